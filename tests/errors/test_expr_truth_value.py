"""Python `if`, `and`, `or`, `not` on an Expr, which has no truth value."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_if_on_an_expr():
    with expect_error(hl.CompileError, "(x > 3)", "no truth value", "hl.select"):
        if x > 3:
            pass


def test_and_of_exprs():
    with expect_error(hl.CompileError, "(x > 1)", "no truth value", "&"):
        hl.select((x > 1) and (x < 3), 1, 0)
