"""Scans: a running sum along x per row (the RDom loop inside the pure y loop), a 2-D
integral image, and a recursive filter in floats."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def test_running_sum_along_rows(target):
    data = ramp_image(np.int16, seed=31)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(1, W - 1)], "r")
    run = hl.Func("run")
    run[x, y] = hl.i32(image[x, y])
    run[r.x, y] = run[r.x - 1, y] + run[r.x, y]
    run.update(0).parallel(y)
    check(run, [W, H], target, expected=np.cumsum(data.T.astype(np.int32), axis=0))


def test_integral_image(target):
    data = ramp_image(np.uint8, seed=32)
    image = hl.Buffer(data, "image")
    rx = hl.RDom([(1, W - 1)], "rx")
    ry = hl.RDom([(1, H - 1)], "ry")
    integral = hl.Func("integral")
    integral[x, y] = hl.u32(image[x, y])
    integral[rx.x, y] = integral[rx.x - 1, y] + integral[rx.x, y]
    integral[x, ry.x] = integral[x, ry.x - 1] + integral[x, ry.x]
    integral.update(1).vectorize(x, 8, hl.TailStrategy.GuardWithIf)  # Auto rounds up: past W
    expected = np.cumsum(np.cumsum(data.T.astype(np.uint32), axis=0), axis=1)
    check(integral, [W, H], target, expected=expected.astype(np.uint32))


def test_recursive_filter(target):
    data = ramp_image(np.float32, seed=33)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(1, W - 1)], "r")
    smooth = hl.Func("smooth")
    smooth[x, y] = image[x, y]
    smooth[r.x, y] = smooth[r.x - 1, y] * 0.75 + smooth[r.x, y] * 0.25
    expected = data.T.copy()
    for i in range(1, W):
        expected[i] = expected[i - 1] * np.float32(0.75) + expected[i] * np.float32(0.25)
    check(smooth, [W, H], target, rtol=1e-5, atol=1e-4, expected=expected)


def test_scan_backwards(target):
    r = hl.RDom([(0, W - 1)], "r")
    f = hl.Func("f")
    f[x] = x
    f[W - 2 - r.x] = f[W - 1 - r.x] * 3 + f[W - 2 - r.x]
    expected = np.arange(W, dtype=np.int64)
    for i in range(W - 2, -1, -1):
        expected[i] = expected[i + 1] * 3 + expected[i]
    check(f, [W], target, expected=expected.astype(np.int32))
