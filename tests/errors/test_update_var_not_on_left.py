"""An update definition using a pure Var on the right that is not on its left."""

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_var_only_on_the_right():
    acc = hl.Func("acc")
    acc[x] = x
    r = hl.RDom([(0, 4)], "r")
    with expect_error(hl.CompileError, "update definition 0 of Func acc", "Var y",
                      "on the right"):
        acc[r] = acc[r] + y
