"""store_at a loop inside the one given to compute_at, found when realizing."""

import webhal as hl

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_store_inner_compute_outer():
    source = hl.Func("source")
    source[x, y] = x + y
    out = hl.Func("out")
    out[x, y] = source[x, y]
    source.compute_at(out, y)
    source.store_at(out, x)  # <- error
    with expect_error(hl.ScheduleError, "Func source", "stored at out.x",
                      "computed (out.y)"):
        out.realize([4, 4], REFERENCE)
