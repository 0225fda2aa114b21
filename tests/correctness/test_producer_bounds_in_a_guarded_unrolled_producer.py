"""A producer computed at the outer loop of a Func unrolled with GuardWithIf, itself computed at
one column of its consumer: the unrolled Func's min and max are both that column, so its guarded
tile `min(x.min + 3 * xo + 2, x.max) - (x.min + 3 * xo)` is at most 2 wide and the producer,
vectorized with ShiftInwards, reads 7 columns left of the column. webhal bounded x.max and
x.min apart inside that expression (each ranges over the whole output) and read 15 columns too
far left, refusing an input exactly as large as Halide requires (differential tester seed 3597,
issue 15)."""

import numpy as np

import webhal as hl

from .conftest import check


def _image(left: int, width: int, height: int) -> tuple[np.ndarray, hl.Buffer]:
    """`width` columns from `left` and `height` rows from 0: the region Halide's bounds query
    asks for."""
    data = (np.arange(height * width, dtype=np.uint16) * 5).reshape(height, width)
    image = hl.Buffer(data, "image")
    image.set_min([left, 0])
    return data, image


def test_producer_of_a_guarded_unrolled_func_computed_per_column(target):
    x, y = hl.Var("x"), hl.Var("y")
    data, image = _image(-7, 23, 5)
    producer, middle, out = hl.Func("producer"), hl.Func("middle"), hl.Func("out")
    producer[x, y] = image[x, y] * 3
    middle[x, y] = producer[x, y] + 1
    out[x, y] = middle[x, y] * 2
    middle.compute_at(out, x).unroll(x, 3, hl.TailStrategy.GuardWithIf)
    producer.compute_at(middle, x).vectorize(x, 8, hl.TailStrategy.ShiftInwards)
    want = (data[:, 7:23] * 3 + 1) * 2
    check(out, [16, 5], target, expected=want.T)


def test_the_same_inside_a_func_computed_per_row(target):
    # The seed's shape: offsets on both axes and the per-column Func inside a per-row one.
    x, y = hl.Var("x"), hl.Var("y")
    data, image = _image(-7, 26, 8)
    f1, f2, f3, out = hl.Func("f1"), hl.Func("f2"), hl.Func("f3"), hl.Func("out")
    f1[x, y] = image[x + 2, y + 1]
    f2[x, y] = f1[x + 1, y]
    f3[x, y] = f2[x - 1, y + 1]
    out[x, y] = image[x - 2, y] + f3[x + 1, y] + f3[x - 2, y + 1]
    f3.compute_at(out, y)
    f2.compute_at(f3, x).unroll(x, 3, hl.TailStrategy.GuardWithIf)
    f1.compute_at(f2, x).vectorize(x, 8, hl.TailStrategy.ShiftInwards)

    def at(dx, dy):  # image[x + dx, y + dy] over the output, x from 0 and y from 0
        return data[dy:dy + 5, 7 + dx:7 + dx + 16]

    want = at(-2, 0) + at(3, 2) + at(0, 3)
    check(out, [16, 5], target, expected=want.T)
