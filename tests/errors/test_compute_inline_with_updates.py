"""compute_inline of a Func that has update definitions."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_inline_a_reduction():
    counts = hl.Func("counts")
    counts[x] = x
    counts[x] += 1
    with expect_error(hl.CompileError, "Func counts", "update definitions", "compute_root"):
        counts.compute_inline()
