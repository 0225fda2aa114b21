"""A 1-2-1 vertical smoothing, mirrored about the edge pixels (mirror_interior)."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def _mirror_interior(n: int, i: np.ndarray) -> np.ndarray:
    period = max(2 * n - 2, 1)
    m = i % period
    return np.where(m < n, m, period - m)


def test_smooth_columns(target):
    data = ramp_image(np.float32, seed=5)
    mirrored = hl.BoundaryConditions.mirror_interior(hl.Buffer(data, "samples"))
    smooth = hl.Func("smooth")
    smooth[x, y] = (mirrored[x, y - 1] + 2 * mirrored[x, y] + mirrored[x, y + 1]) * 0.25
    smooth.split(y, y, hl.Var("yi"), 5).vectorize(x, 4)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    d = data.T
    expected = (d[xs, _mirror_interior(H, ys - 1)] + 2 * d[xs, ys] +
                d[xs, _mirror_interior(H, ys + 1)]) * np.float32(0.25)
    check(smooth, [W, H], target, rtol=1e-6, expected=expected)


def test_only_x_mirrored(target):
    data = np.arange(30, dtype=np.int32).reshape(5, 6)
    mirrored = hl.BoundaryConditions.mirror_interior(hl.Buffer(data, "grid"), [(0, 6)])
    out = hl.Func("out")
    out[x, y] = mirrored[x, y]
    xs, ys = np.meshgrid(np.arange(-9, 15), np.arange(5), indexing="ij")
    check(out, [24, 5], target, mins=[-9, 0], expected=data.T[_mirror_interior(6, xs), ys])
