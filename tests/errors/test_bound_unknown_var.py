"""bound() on a Var the Func does not have."""

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_bound_on_a_missing_var():
    row = hl.Func("row")
    row[x] = x
    with expect_error(hl.CompileError, "Func row has no pure Var y", "its Vars are x"):
        row.bound(y, 0, 16)
