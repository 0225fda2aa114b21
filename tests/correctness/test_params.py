"""Scalar Params of every type as pipeline arguments: in expressions, as an RDom's extent, as a
split factor's companion bound, changed between realizations (the compiled pipeline is reused)."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


PARAMS = [(hl.UInt(8), 200), (hl.Int(8), -100), (hl.UInt(16), 60000), (hl.Int(16), -30000),
          (hl.UInt(32), 4000000000), (hl.Int(32), -2000000000), (hl.UInt(64), 2 ** 63 + 5),
          (hl.Int(64), -(2 ** 62)), (hl.Float(32), -1.75), (hl.Float(64), 1e100),
          (hl.Float(16), 0.5), (hl.Bool(), True)]


def test_param_of_each_type(target):
    funcs, expected = [], []
    for t, value in PARAMS:
        p = hl.Param(t, f"p_{t}", value)
        f = hl.Func(f"f_{t}")
        f[x] = p if not t.is_bool() else hl.select(p, x, -x)
        funcs.append(f)
        if t.is_bool():
            expected.append(np.arange(W) if value else -np.arange(W))
        else:
            expected.append(np.full(W, value, dtype=t.dtype))
    check(hl.Pipeline(funcs), [W], target, expected=expected)


def test_params_in_arithmetic_and_changed_between_runs(target):
    data = ramp_image(np.int16, seed=151)
    image = hl.Buffer(data, "image")
    gain = hl.Param(hl.Float(32), "gain", 1.5)
    offset = hl.Param(hl.Int(32), "offset", -7)
    f = hl.Func("f")
    f[x, y] = hl.f32(image[x, y] + offset) * gain
    f.vectorize(x, 8)
    for g, o in ((1.5, -7), (-0.25, 1000)):
        gain.set(g)
        offset.set(o)
        expected = ((data.astype(np.int32) + o).astype(np.float32) * np.float32(g)).T
        check(f, [W, H], target, expected=expected)


def test_param_as_an_rdom_extent_and_a_coordinate(target):
    data = ramp_image(np.int32, seed=152) // 1024
    image = hl.Buffer(data, "image")
    n = hl.Param(hl.Int(32), "n", 5)
    shift = hl.Param(hl.Int(32), "shift", 3)
    r = hl.RDom([(0, n)], "r")
    f = hl.Func("f")
    f[x, y] = 0
    f[x, y] += image[hl.clamp(x + r.x + shift, 0, W - 1), y]
    for count, s in ((5, 3), (9, -2)):
        n.set(count)
        shift.set(s)
        d = data.T
        expected = sum(d[np.clip(np.arange(W) + k + s, 0, W - 1)] for k in range(count))
        check(f, [W, H], target, expected=expected)


def test_compiled_pipeline_reused_with_other_sizes_and_images(target):
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    clamped = hl.BoundaryConditions.repeat_edge(photo)
    f = hl.Func("f")
    f[x, y] = hl.u16(clamped[x - 1, y]) + clamped[x + 1, y + 1]
    f.vectorize(x, 8).parallel(y)
    for (w, h), seed in (((W, H), 153), ((13, 40), 154), ((64, 5), 155)):
        data = ramp_image(np.uint8, w + 3, h + 1, seed=seed)
        photo.set(hl.Buffer(data))
        pe = np.pad(data.T.astype(np.uint16), ((1, 1), (0, 1)), mode="edge")  # x - 1 at 0
        expected = pe[0:w, 0:h] + pe[2:w + 2, 1:h + 1]
        check(f, [w, h], target, expected=expected)
