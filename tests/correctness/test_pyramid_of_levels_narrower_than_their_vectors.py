"""A pyramid whose coarse levels are narrower than their vectors: each level computed at the
root, vectorized by 8 (tails shifted inwards), the coarsest 4 wide. Its loops then compute 8
points, 4 of them left of its region; webhal counted what those read as needed, so each level
below computed twice as many points left of its region, doubling down to the finest level
(Halide's interpolate app at 1536x1024, 10 levels: its finest level 12 times the size of
Halide's, and the pipeline 10 times slower). As in Halide, a level computes the points its
consumers are asked for; what the extra points read is stored, not computed, and goes only into
them. The input region the bounds query asks for is Halide's, and the output is right on every
target.
"""

import numpy as np

import webhal as hl
from tests.halide_peer import require

from .conftest import check

LEVELS, WIDTH, HEIGHT = 5, 32, 3


def _pipeline(lib, image):
    """out(x) = down_1(x) + down_4(x / 8): down_i(x) = (down_{i-1}(2x - 1) + 2 down_{i-1}(2x) +
    down_{i-1}(2x + 1)) / 4 in x only, down_0 the image."""
    x, y = lib.Var("x"), lib.Var("y")
    down = [lib.Func("down_0")]
    down[0][x, y] = image[x, y]
    for i in range(1, LEVELS):
        prev, f = down[-1], lib.Func(f"down_{i}")
        f[x, y] = (prev[2 * x - 1, y] + 2 * prev[2 * x, y] + prev[2 * x + 1, y]) / 4
        f.compute_root().vectorize(x, 8)
        down.append(f)
    out = lib.Func("out")
    out[x, y] = down[1][x, y] + down[-1][x / 8, y]
    return out


def _expected(data: np.ndarray, left: int) -> np.ndarray:
    """out over [0, WIDTH) x [0, HEIGHT), indexed [x, y], from data (rows y, columns from
    x = left)."""
    level = {x: data[:, x - left].astype(np.float64) for x in range(left, left + data.shape[1])}
    levels = [level]
    for _ in range(1, LEVELS):
        prev = levels[-1]
        levels.append({x: (prev[2 * x - 1] + 2 * prev[2 * x] + prev[2 * x + 1]) / 4
                       for x in range(-64, 64) if {2 * x - 1, 2 * x + 1} <= prev.keys()})
    return np.stack([levels[1][x] + levels[-1][x // 8] for x in range(WIDTH)])


def _input_region(lib) -> list[tuple[int, int]]:
    image = lib.ImageParam(lib.Float(32), 2, "image")
    _pipeline(lib, image).infer_input_bounds([WIDTH, HEIGHT])
    b = image.get()
    return [(b.dim(d).min(), b.dim(d).extent()) for d in range(2)]


# Halide 21's bounds query of the input. down_4's region is [0, 3] and its loop computes
# [-4, 3]; down_3 computes what [0, 3] needs, [-1, 7], down_2 [-3, 15], down_1 [-7, 31] (out
# reads [0, 31] of it), which reads [-15, 63] of the input. (webhal read [-79, 63].)
HALIDE_REGION = [(-15, 79), (0, HEIGHT)]


def test_bounds_query_gives_halides_region():
    assert _input_region(hl) == HALIDE_REGION


def test_halide_agrees():
    halide, = require("halide")
    assert _input_region(halide) == HALIDE_REGION


def test_output(target):
    left, extent = HALIDE_REGION[0]
    data = ((np.arange(HEIGHT * extent) * 37) % 101).astype(np.float32).reshape(HEIGHT, extent)
    buffer = hl.Buffer(data, "image")
    buffer.set_min([left, 0])
    check(_pipeline(hl, buffer), [WIDTH, HEIGHT], target, expected=_expected(data, left),
          rtol=1e-6)
