"""A Func with an update, computed at the outer loop of a consumer split with GuardWithIf, its
pure stage split with RoundUp and its update unrolled (GuardWithIf, the default for updates):
its region in each tile is [x.min, min(x.min + 1, out.x.max)], and the rounded-up pure stage
reads the input over [x.min, x.min + 7]. Bounds inference takes the Func's region as the union
of what its consumer reads and what its update touches; the update's guard clamps what it
touches to the consumer's max, so the union's max was `max(m, min(rounded max, m))` with m =
min(x.min + 1, out.x.max). Left as that max, it hid the clamp that makes `x.max - x.min` at
most 1, the pure stage's extent was bounded as wide as the whole output, and the input read
came out one output width too far right (issue 15, differential seed 6364: accessed at 72,
beyond the max 56 of an input exactly as large as Halide's bounds query asks). A union or
intersection of two ends, one of which is already clamped by the other (max(m, min(y, m)),
min(m, max(y, m))), is now that end, as Halide's simplifier rewrites it.
"""

import numpy as np
import pytest

import webhal as hl

from .conftest import check


def _pipeline(image, tile: int, round_up: int, unroll: int) -> hl.Func:
    """out(x) = f(x), f(x) = image(x) * 2 then f(x) += 1, f computed per tile of out."""
    x = hl.Var("x")
    f, out = hl.Func("f"), hl.Func("out")
    f[x] = image[x] * 2
    f[x] = f[x] + 1
    out[x] = f[x]
    out.split(x, x, hl.Var("xi"), tile, hl.TailStrategy.GuardWithIf)
    f.compute_at(out, x)
    f.split(x, x, hl.Var("xp"), round_up, hl.TailStrategy.RoundUp)
    f.update(0).unroll(x, unroll)
    return out


# (out's tile, f's RoundUp factor, f's update unroll, output width, Halide's bounds query of
# the input: min, extent), as Halide 21 reports them. Before the fix webhal asked for extents
# 72, 30, 42, 14 and 60 on the first five.
HALIDE_REGIONS = [
    (2, 8, 2, 33, 0, 40),
    (2, 8, 2, 16, 0, 22),
    (3, 8, 2, 20, 0, 26),
    (2, 4, 2, 7, 0, 10),
    (4, 8, 3, 30, 0, 36),
    (2, 8, 2, 1, 0, 8),
]


def _data(extent: int) -> np.ndarray:
    return (np.arange(extent, dtype=np.uint16) * 7) % 1000


@pytest.mark.parametrize("tile, round_up, unroll, width, left, extent", HALIDE_REGIONS)
def test_bounds_query_gives_halides_region(tile, round_up, unroll, width, left, extent,
                                           target):
    image = hl.ImageParam(hl.UInt(16), 1, "image")
    out = _pipeline(image, tile, round_up, unroll)
    out.infer_input_bounds([width])
    b = image.get()
    assert (b.dim(0).min(), b.dim(0).extent()) == (left, extent)
    # Exactly that region is enough to run the pipeline.
    data = _data(extent)
    given = hl.Buffer(data, "image")
    given.set_min([left])
    image.set(given)
    check(out, [width], target, expected=data[:width] * 2 + 1)


def test_input_exactly_as_large_as_halide_asks(target):
    data = _data(40)
    image = hl.Buffer(data, "image")
    check(_pipeline(image, 2, 8, 2), [33], target, expected=data[:33] * 2 + 1)


# The seed's shape: two dimensions, the Func unrolled in y and parallel, its consumer computed
# per row of tiles of a vectorized output. (output size, Halide's input region: x min and
# extent, y min and extent); before the fix webhal asked for 73 and 41 columns.
SEED_SHAPE_REGIONS = [
    ((33, 2), (0, 41, -2, 6)),
    ((17, 4), (0, 25, -2, 8)),
]


def _seed_shape(image) -> hl.Func:
    x, y = hl.Var("x"), hl.Var("y")
    f0, f1, out = hl.Func("f0"), hl.Func("f1"), hl.Func("out")
    f0[x, y] = image[x, y + 1]
    f0[x, y] = f0[x, y] + 1
    f1[x, y] = f0[x - 1, y] + image[x - 2, y - 1]
    out[x, y] = f1[x + 2, y - 1] + f1[x + 2, y + 1]
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    out.tile(x, y, xo, yo, xi, yi, 8, 2).vectorize(xi).reorder(xi, xo, yi, yo)
    f1.compute_at(out, yo).split(x, x, xi, 2, hl.TailStrategy.GuardWithIf)
    f0.compute_at(f1, x).unroll(y, 2, hl.TailStrategy.ShiftInwards)
    f0.split(x, x, hl.Var("xp"), 8, hl.TailStrategy.RoundUp).parallel(x)
    f0.update(0).unroll(x, 2)
    return out


@pytest.mark.parametrize("size, region", SEED_SHAPE_REGIONS)
def test_seed_shape_with_an_input_exactly_as_large_as_halide_asks(size, region, target):
    x_min, x_extent, y_min, y_extent = region
    image = hl.ImageParam(hl.UInt(16), 2, "image")
    out = _seed_shape(image)
    out.infer_input_bounds(list(size))
    b = image.get()
    assert [(b.dim(d).min(), b.dim(d).extent()) for d in range(2)] == \
        [(x_min, x_extent), (y_min, y_extent)]
    data = ((np.arange(y_extent * x_extent, dtype=np.uint16) * 5) % 997).reshape(
        y_extent, x_extent)
    given = hl.Buffer(data, "image")
    given.set_min([x_min, y_min])
    image.set(given)
    width, height = size

    def at(dx, dy):  # image[x + dx, y + dy] over the output, x and y from 0
        return data[dy - y_min:dy - y_min + height, dx - x_min:dx - x_min + width]

    # f1(x, y) = image(x - 1, y + 1) + 1 + image(x - 2, y - 1), read at (x + 2, y -+ 1).
    want = (at(1, 0) + 1 + at(0, -2)) + (at(1, 2) + 1 + at(0, 0))
    check(out, list(size), target, expected=want.T)
