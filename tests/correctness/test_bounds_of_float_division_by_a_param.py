"""A table read at a coordinate computed in float with a Param divisor, `i32(v / step)` or
`i32(v * (1 / step))`: as in Halide, bounds inference takes the quotient's range from the
numerator's for a divisor of either sign, so the table's region needs no bound() or clamp."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, camera, check

x, y = hl.Var("x"), hl.Var("y")


@pytest.mark.parametrize("form", ["quotient", "reciprocal"])
def test_table_read_at_a_quotient_by_a_param(target, form):
    pixels = camera()
    photo = hl.Buffer(pixels, "photo")
    step = hl.Param(hl.Float(32), "step", 0.25)
    table = hl.Func("table")
    table[x] = x * 3 + 1
    level = hl.f32(photo[x, y]) / 255.0
    bin_ = level / step if form == "quotient" else level * (1.0 / step)
    f = hl.Func("f")
    f[x, y] = table[hl.i32(bin_)]
    table.compute_root()
    f.vectorize(x, 4)
    for value in (0.25, -0.1):
        step.set(value)
        level = pixels.astype(np.float32) / np.float32(255)
        v = np.float32(value)
        q = level / v if form == "quotient" else level * (np.float32(1) / v)
        check(f, [W, H], target, expected=(np.trunc(q).astype(np.int32) * 3 + 1).T)
