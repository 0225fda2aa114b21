"""lerp between 64-bit integers: refused, as in Halide (the exact product needs 128 bits)."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_lerp_of_64_bit_integers():
    with expect_error(hl.CompileError, "lerp between 64-bit integers", "float64"):
        hl.lerp(hl.i64(x), hl.i64(x) * 2, hl.u8(x))
