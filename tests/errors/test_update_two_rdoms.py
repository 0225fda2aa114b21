"""RVars of two different RDoms in one update definition."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_two_rdoms():
    acc = hl.Func("acc")
    acc[x] = x
    rows, cols = hl.RDom([(0, 4)], "rows"), hl.RDom([(0, 4)], "cols")
    with expect_error(hl.CompileError, "Func acc", "several RDoms (rows, cols)", "one RDom"):
        acc[rows] = acc[rows] + cols
