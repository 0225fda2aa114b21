"""lerp between values of two types: refused, as in Halide (which type the answer has would be
a guess); a Python number beside an Expr takes its type, a float beside an integer does not."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_lerp_of_two_types():
    with expect_error(hl.CompileError, "lerp between", "uint8", "int16", "cast them"):
        hl.lerp(hl.u8(x), hl.i16(x), hl.u8(x))


def test_lerp_of_an_integer_and_a_float_literal():
    with expect_error(hl.CompileError, "lerp between", "uint8", "float32"):
        hl.lerp(hl.u8(x), 3.5, hl.u8(x))


def test_python_numbers_take_the_values_type():
    assert hl.lerp(hl.u8(x), 3, hl.u8(x)).type() == hl.UInt(8)
    assert hl.lerp(hl.f64(x), 0.5, hl.u8(x)).type() == hl.Float(64)
