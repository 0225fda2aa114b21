"""A pure definition with something other than a Var on the left."""

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_expression_on_the_left():
    ramp = hl.Func("ramp")
    with expect_error(hl.CompileError, "pure definition of Func ramp", "argument 0",
                      "(x + 1)", "not a Var"):
        ramp[x + 1] = x


def test_constant_on_the_left():
    ramp = hl.Func("ramp")
    with expect_error(hl.CompileError, "pure definition of Func ramp", "argument 1", "not a Var"):
        ramp[x, 0] = x
