"""A producer computed at a consumer's tile loop and split itself (ShiftInwards), with an image
width that is not a multiple of the tile: the producer's bounds (x.max is x.min plus 15 in every
tile) must stay that tight across tiles, or the input's region check fails (it read -17)."""

import numpy as np

import webhal as hl

from .conftest import check, ramp_image

x, y, xo, yo, xi, yi, xv = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi", "xv"))


def test_vectorized_producer_in_shifted_tiles(target):
    w, h = 37, 23
    data = ramp_image(np.float32, w + 9, h + 1, seed=62)
    a = hl.Buffer(data, "a")
    p, out = hl.Func("p"), hl.Func("p_out")
    p[x, y] = a[x, y] * 2.0 + a[x + 1, y + 1]
    out[x, y] = p[x, y] - p[x + 8, y]
    out.tile(x, y, xo, yo, xi, yi, 8, 4)
    p.compute_at(out, xo).split(x, x, xv, 4).vectorize(xv)
    prod = data[:h, :w + 8] * np.float32(2.0) + data[1:h + 1, 1:w + 9]  # float32, as compiled
    check(out, [w, h], target, expected=(prod[:, :w] - prod[:, 8:w + 8]).T)
