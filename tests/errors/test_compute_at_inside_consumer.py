"""compute_at a loop that its consumer's computation is not inside, found when realizing."""

import webhal as hl

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_producer_inside_a_loop_its_consumer_is_outside_of():
    source = hl.Func("source")
    source[x, y] = x + y
    middle = hl.Func("middle")
    middle[x, y] = source[x, y] * 2
    out = hl.Func("out")
    out[x, y] = middle[x, y] + middle[x, y + 1]
    middle.compute_at(out, y)
    source.compute_at(out, x)  # <- error
    with expect_error(hl.ScheduleError, "Func source is computed at out.x",
                      "middle, which uses it", "outside that loop (at out.y)"):
        out.realize([4, 4], REFERENCE)
