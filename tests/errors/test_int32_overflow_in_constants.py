"""Constants whose int32 sum or product overflows: refused, as Halide refuses them (signed
32- and 64-bit overflow is undefined there); narrower and unsigned types wrap."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_int32_product_of_constants_overflows():
    with expect_error(hl.CompileError, "overflows int32", "4294967296", "undefined"):
        hl.i32(2**30) * 4


def test_int32_sum_of_constants_overflows():
    with expect_error(hl.CompileError, "overflows int32"):
        hl.Expr(2**31 - 1) + 1


def test_narrow_and_unsigned_constants_wrap():
    assert (hl.u32(2**31) * 2).type() == hl.UInt(32)
    assert (hl.i16(30000) + hl.i16(30000)).type() == hl.Int(16)
    assert (hl.i32(2**30) * x).type() == hl.Int(32)  # not constant: not checked
