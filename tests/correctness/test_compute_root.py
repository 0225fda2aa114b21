"""A two-stage pipeline whose producer is computed at root, with its own schedule."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def _pipeline():
    data = ramp_image(np.uint8, seed=13)
    image = hl.Buffer(data, "image")
    squared = hl.Func("squared")
    squared[x, y] = hl.u32(image[x, y]) * image[x, y]
    diff = hl.Func("diff")
    diff[x, y] = hl.i32(squared[x, y]) - hl.i32(squared[W - 1 - x, H - 1 - y])
    s = data.T.astype(np.int64) ** 2
    return squared, diff, (s - s[::-1, ::-1]).astype(np.int32)


def test_compute_root(target):
    squared, diff, expected = _pipeline()
    squared.compute_root()
    check(diff, [W, H], target, expected=expected)


def test_compute_root_scheduled(target):
    squared, diff, expected = _pipeline()
    xo, xi = hl.Var("xo"), hl.Var("xi")
    squared.compute_root().split(x, xo, xi, 8).vectorize(xi).parallel(y)
    diff.vectorize(x, 4)
    check(diff, [W, H], target, expected=expected)


def test_chain_of_compute_roots(target):
    f = [hl.Func(f"stage{i}") for i in range(4)]
    f[0][x] = x * 2
    for i in range(1, 4):
        f[i][x] = f[i - 1][x] + f[i - 1][x + 1] + i
    for g in f[:3]:
        g.compute_root()

    def stage(i, v):
        return 2 * v if i == 0 else stage(i - 1, v) + stage(i - 1, v + 1) + i
    check(f[3], [20], target, expected=stage(3, np.arange(20)))


def test_root_producer_with_moved_output(target):
    squared, diff, expected = _pipeline()
    squared.compute_root()
    out = hl.Func("out")
    out[x, y] = diff[x - 4, y + 2]
    check(out, [W - 8, H - 4], target, mins=[4, -2], expected=expected[:W - 8, :H - 4])
