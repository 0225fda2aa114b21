"""An integer constant that does not fit the type of the other operand."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_uint8_plus_300():
    with expect_error(hl.CompileError, "constant 300", "type uint8", "to 44", "hl.cast"):
        hl.u8(x) + 300


def test_int8_times_200():
    with expect_error(hl.CompileError, "constant 200", "type int8", "to -56"):
        200 * hl.i8(x)
