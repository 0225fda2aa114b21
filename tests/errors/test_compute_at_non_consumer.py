"""compute_at a Func that does not use the scheduled Func, found when realizing."""

import webhal as hl

from ._util import REFERENCE, expect_error

x = hl.Var("x")


def test_compute_at_a_sibling():
    source = hl.Func("source")
    source[x] = x
    user = hl.Func("user")
    user[x] = source[x] + 1
    sibling = hl.Func("sibling")
    sibling[x] = x * 2
    out = hl.Func("out")
    out[x] = user[x] + sibling[x]
    source.compute_at(sibling, x)  # <- error
    with expect_error(hl.ScheduleError, "Func source", "at sibling.x",
                      "sibling does not use source", "(user)"):
        out.realize([4], REFERENCE)
