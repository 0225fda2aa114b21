"""A producer computed inside an output unrolled with GuardWithIf (so the last iteration covers
fewer columns) and vectorized with ShiftInwards reads only a factor's width before that slice:
its extent is min(x + 2, max) - x, which must not be bounded as if both sides ranged freely
(webhal read 31 columns too far left and refused an input that Halide accepts)."""

import numpy as np

import webhal as hl

from .conftest import check


def test_producer_bounds_in_a_guarded_unrolled_tail(target):
    x, y, yp = hl.Var("x"), hl.Var("y"), hl.Var("yp")
    data = np.arange(9 * 37, dtype=np.uint32).reshape(9, 37)
    image = hl.Buffer(data, "image")
    image.set_min([-2, -2])  # columns -2..34: exactly what a vector of 4 shifted inwards reads
    producer, out = hl.Func("producer"), hl.Func("out")
    producer[x, y] = image[x - 1, y] * 3
    out[x, y] = producer[x + 1, y] + 1
    out.split(y, y, yp, 4, hl.TailStrategy.ShiftInwards)
    out.unroll(x, 3, hl.TailStrategy.GuardWithIf)
    out.reorder(yp, y, x)
    producer.compute_at(out, yp).vectorize(x, 4, hl.TailStrategy.ShiftInwards)
    want = data[2:7, 2:35].astype(np.uint32) * 3 + 1
    check(out, [33, 5], target, expected=want.T)
