"""A wrapping shift (repeat_image) of a small image: reads far outside it in both directions."""

import numpy as np

import webhal as hl

from .conftest import check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def test_tiles_the_plane(target):
    data = ramp_image(np.int16, 5, 3)
    tiled = hl.BoundaryConditions.repeat_image(hl.Buffer(data, "tile"))
    out = hl.Func("out")
    out[x, y] = tiled[x, y] + tiled[x - 7, y + 4]
    xs, ys = np.meshgrid(np.arange(-11, 20), np.arange(-6, 13), indexing="ij")
    expected = data.T[xs % 5, ys % 3] + data.T[(xs - 7) % 5, (ys + 4) % 3]
    check(out, [31, 19], target, mins=[-11, -6], expected=expected.astype(np.int16))


def test_stencil_vectorized_across_the_seam(target):
    data = ramp_image(np.uint8, 13, 9, seed=3)
    tiled = hl.BoundaryConditions.repeat_image(hl.Buffer(data, "tile"))
    diff = hl.Func("diff")
    diff[x, y] = hl.absd(tiled[x + 1, y], tiled[x - 1, y + 1])
    diff.vectorize(x, 8, hl.TailStrategy.GuardWithIf)
    xs, ys = np.meshgrid(np.arange(21), np.arange(11), indexing="ij")
    a = data.T[(xs + 1) % 13, ys % 9].astype(np.int16)
    b = data.T[(xs - 1) % 13, (ys + 1) % 9].astype(np.int16)
    check(diff, [21, 11], target, expected=np.abs(a - b).astype(np.uint8))
