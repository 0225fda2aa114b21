"""compute_at a loop the consumer does not have, found when realizing."""

import webhal as hl

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_loop_of_another_func():
    source = hl.Func("source")
    source[x] = x
    out = hl.Func("out")
    out[x] = source[x]
    source.compute_at(out, y)  # <- error
    with expect_error(hl.ScheduleError, "Func source", "at out.y", "out has no loop y",
                      "its loops are x"):
        out.realize([4], REFERENCE)


def test_loop_removed_by_a_split():
    source = hl.Func("source")
    source[x] = x
    out = hl.Func("out")
    out[x] = source[x]
    out.split(x, hl.Var("xo"), hl.Var("xi"), 2)
    source.compute_at(out, x)  # <- error
    with expect_error(hl.ScheduleError, "out has no loop x", "xo, xi"):
        out.realize([4], REFERENCE)
