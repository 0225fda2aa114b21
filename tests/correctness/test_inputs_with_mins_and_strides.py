"""Inputs whose coordinates do not start at 0 (set_min), cropped numpy views (rows apart in
memory), and a zero-dimensional Func (a scalar computed once and read everywhere)."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def test_input_with_moved_mins(target):
    data = ramp_image(np.uint16, W + 6, H + 4, seed=161)
    image = hl.Buffer(data, "image").set_min(-3, 10)
    f = hl.Func("f")
    f[x, y] = image[x - 3, y + 10] + image[x + 2, y + 13]
    f.vectorize(x, 8)
    d = data.T
    check(f, [W, H], target, expected=(d[:W, :H] + d[5:W + 5, 3:H + 3]).astype(np.uint16))


def test_cropped_view_of_a_larger_array(target):
    big = ramp_image(np.int32, 100, 60, seed=162)
    view = big[5:5 + H, 7:7 + W]  # rows are 100 elements apart
    image = hl.Buffer(view, "view")
    f = hl.Func("f")
    f[x, y] = image[x, y] * 2 + image[W - 1 - x, y]
    d = view.T
    check(f, [W, H], target, expected=(d * 2 + d[::-1]).astype(np.int32))


def test_zero_dimensional_func(target):
    data = ramp_image(np.uint8, seed=163)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, W), (0, H)], "r")
    total = hl.Func("total")
    total[()] = hl.sum(hl.u32(image[r.x, r.y]))
    share = hl.Func("share")
    share[x, y] = hl.f32(image[x, y]) / hl.f32(total[()])
    total.compute_root()
    expected = (data.astype(np.float32) / np.float32(data.astype(np.uint32).sum())).T
    check(share, [W, H], target, rtol=1e-6, expected=expected)


def test_zero_dimensional_output(target):
    data = ramp_image(np.int16, seed=164)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, W), (0, H)], "r")
    largest = hl.Func("largest")
    largest[()] = hl.maximum(image[r.x, r.y])
    check(largest, [], target, expected=np.array(data.max()))


def test_zero_dimensional_input(target):
    k = hl.Buffer(np.array(7, np.int32), "k")
    f = hl.Func("f")
    f[x] = x * k[()]
    check(f, [W], target, expected=np.arange(W) * 7)


def test_input_not_dense_in_x(target):
    # A transposed array: x steps over whole rows in memory. Compiled targets work on a copy.
    data = ramp_image(np.int16, H, W, seed=165)
    image = hl.Buffer(data.T, "transposed")
    f = hl.Func("f")
    f[x, y] = image[x, y] + image[x, (y + 1) % H]
    assert image.dim(0).stride() != 1
    d = data  # image[x, y] is data.T.T[x, y] = data[x, y]
    check(f, [W, H], target, expected=(d + np.roll(d, -1, axis=1)).astype(np.int16))


def test_output_not_dense_in_x(target):
    f = hl.Func("f")
    f[x, y] = x * 100 + y
    storage = np.zeros((H, 2 * W), np.int32)
    out = hl.Buffer(storage[:, ::2], "out")  # x steps over 2 elements in memory
    assert out.dim(0).stride() == 2
    f.realize(out, target)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    np.testing.assert_array_equal(storage[:, ::2], (xs * 100 + ys).T)
    assert not storage[:, 1::2].any()
