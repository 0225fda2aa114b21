"""A pure definition using a Var that is not one of its arguments."""

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_var_on_the_right_only():
    row = hl.Func("row")
    with expect_error(hl.CompileError, "Func row", "Var y", "not one of its arguments (x)"):
        row[x] = x + y


def test_rvar_in_a_pure_definition():
    r = hl.RDom([(0, 4)], "r")
    total = hl.Func("total")
    with expect_error(hl.CompileError, "Func total", "RVar r$x", "update definitions"):
        total[x] = x + r
