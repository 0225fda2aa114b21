"""The same Var twice on the left of a pure definition."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_var_twice():
    diagonal = hl.Func("diagonal")
    with expect_error(hl.CompileError, "Func diagonal", "Var x appears twice"):
        diagonal[x, x] = x
