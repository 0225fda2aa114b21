"""An RDom whose bounds call a Func: refused where the RDom is made, as in Halide (its bounds
are needed before any Func is computed; the host JIT failed to compile it while the reference
evaluated it)."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_rdom_extent_calling_a_func():
    r0 = hl.RDom([(0, 3)])
    n = hl.Func("n")
    n[x] = hl.sum(r0.x + x * 0)
    with expect_error(hl.CompileError, "bounds of an RDom may not call a Func",
                      "dimension 0", "Func n", "Param"):
        hl.RDom([(0, n[0])])
