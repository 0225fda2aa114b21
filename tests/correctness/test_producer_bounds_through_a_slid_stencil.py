"""A producer slid along its consumer's x loop and vectorized with ShiftInwards computes, each
iteration, the vector `min(4 * xx, (f1.x.max - f1.x.min) - 3) + f1.x.min + [0, 3]`, whose last
lane is at most f1.x.max: f1.x.min cancels. webhal bounded the min and f1.x.min apart (f1.x.min
is the previous iteration's max + 1 except on the first, so it ranges as widely as f1.x.max),
and its stencil's reads came out 3 columns past what the producer covers: the bounds query
asked for too large an input, and the buffer check refused one exactly as large as Halide's
query asks (issue 15). The upper bound of a sum holding min(p, q), where q holds a ranging
variable that the rest of the sum cancels, is now the smaller of the sum's bounds with p and
with q in place of the min, as Halide bounds min(p + m, q + m) after simplifying. Without
vectors (case A) webhal already agreed with Halide; that case guards the scalar path.
"""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

HEIGHT = 5


def _pipeline(image, vector: int) -> hl.Func:
    """out(x) = f1(x - 1) + f1(x + 2), f1(x) = image(x - 1) + image(x + 1), f1 slid along x."""
    x, y = hl.Var("x"), hl.Var("y")
    f1, out = hl.Func("f1"), hl.Func("out")
    f1[x, y] = image[x - 1, y] + image[x + 1, y]
    out[x, y] = f1[x - 1, y] + f1[x + 2, y]
    f1.store_at(out, y).compute_at(out, x)
    if vector:
        f1.vectorize(x, vector, hl.TailStrategy.ShiftInwards)
    return out


def _data(width: int) -> np.ndarray:
    return (np.arange(HEIGHT * width, dtype=np.uint16) * 7).reshape(HEIGHT, width)


def _expected(data: np.ndarray, left: int, width: int) -> np.ndarray:
    """out over [0, width) x [0, HEIGHT), from data whose first column is x = left."""
    def at(dx):
        return data[:, dx - left:dx - left + width]
    return (at(-2) + at(0) + at(1) + at(3)).T


# (vector, output width, Halide's bounds query of the input in x: min, extent), as Halide 21
# reports them for this pipeline over [0, width) x [0, 5].
HALIDE_REGIONS = [
    (0, 33, -2, 38),
    (4, 33, -5, 41),
    (8, 33, -9, 45),
    (8, 21, -9, 33),
    (4, 7, -5, 15),
]


def _check_with_input(vector: int, width: int, left: int, extent: int, target: str) -> None:
    data = _data(extent)
    image = hl.Buffer(data, "image")
    image.set_min([left, 0])
    check(_pipeline(image, vector), [width, HEIGHT], target,
          expected=_expected(data, left, width))


def test_slid_stencil(target):
    # Case A: scalar; the input read is [-2, 35].
    _check_with_input(0, 33, -2, 38, target)


def test_slid_stencil_vectorized_with_shift_inwards(target):
    # Case B: the vectors end at f1.x.max, so the input read ends at 35, as without vectors.
    _check_with_input(4, 33, -5, 41, target)


def test_slid_stencil_vectors_of_8_over_a_width_not_a_multiple(target):
    _check_with_input(8, 21, -9, 33, target)


@pytest.mark.parametrize("vector, width, left, extent", HALIDE_REGIONS)
def test_bounds_query_gives_halides_region(vector, width, left, extent, target):
    image = hl.ImageParam(hl.UInt(16), 2, "image")
    out = _pipeline(image, vector)
    out.infer_input_bounds([width, HEIGHT])
    b = image.get()
    assert [(b.dim(d).min(), b.dim(d).extent()) for d in range(2)] == \
        [(left, extent), (0, HEIGHT)]
    # Exactly that region is enough to run the pipeline.
    data = _data(extent)
    given = hl.Buffer(data, "image")
    given.set_min([left, 0])
    image.set(given)
    check(out, [width, HEIGHT], target, expected=_expected(data, left, width))
