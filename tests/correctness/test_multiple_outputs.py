"""A Pipeline of several outputs: computed together, of different types, one reading another,
sharing a producer computed at root, scheduled each its own way."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def test_outputs_sharing_a_producer(target):
    data = ramp_image(np.uint8, seed=171)
    image = hl.Buffer(data, "image")
    shared = hl.Func("shared")
    shared[x, y] = hl.i32(image[x, y]) * 3
    plus = hl.Func("plus")
    plus[x, y] = shared[x, y] + 1
    minus = hl.Func("minus")
    minus[x, y] = hl.f32(shared[x, y]) - 0.5
    shared.compute_root()
    plus.vectorize(x, 4)
    minus.parallel(y)
    s = data.T.astype(np.int32) * 3
    check(hl.Pipeline([plus, minus]), [W, H], target,
          expected=[s + 1, s.astype(np.float32) - np.float32(0.5)])


def test_output_reading_another_output(target):
    first = hl.Func("first")
    first[x, y] = x * y
    second = hl.Func("second")
    second[x, y] = first[x, y] * 2 + 1
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(hl.Pipeline([first, second]), [W, H], target,
          expected=[xs * ys, xs * ys * 2 + 1])


def test_outputs_with_updates(target):
    data = ramp_image(np.int16, seed=172)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, W)], "r")
    sums = hl.Func("sums")
    sums[x, y] = 0
    sums[x, y] += hl.i32(image[r.x, y]) * (x + 1)
    maxes = hl.Func("maxes")
    maxes[x, y] = hl.i16(-32768)
    maxes[x, y] = hl.max(maxes[x, y], image[r.x, y] - hl.i16(x))
    row_sum = data.astype(np.int32).sum(axis=1)
    xs = np.arange(W)[:, None]
    shifted = (data[None, :, :].astype(np.int32) - xs[:, :, None]).astype(np.int16)  # wraps
    expected_max = shifted.max(axis=2)
    check(hl.Pipeline([sums, maxes]), [W, H], target,
          expected=[(row_sum[None, :] * (xs + 1)).astype(np.int32), expected_max])
