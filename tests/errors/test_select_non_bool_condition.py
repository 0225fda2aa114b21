"""hl.select with a condition that is not a bool."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_int_condition():
    with expect_error(hl.CompileError, "condition of select must be bool", "int32"):
        hl.select(x, 1, 2)


def test_second_condition_of_a_chain():
    with expect_error(hl.CompileError, "condition of select must be bool", "float32"):
        hl.select(x > 1, 1, hl.f32(x), 2, 3)
