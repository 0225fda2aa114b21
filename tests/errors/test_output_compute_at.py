"""compute_at on a Func that is an output of the pipeline, found when realizing."""

import webhal as hl

from ._util import REFERENCE, expect_error

x = hl.Var("x")


def test_output_computed_inside_another_func():
    host = hl.Func("host")
    host[x] = x
    result = hl.Func("result")
    result[x] = host[x]
    result.compute_at(host, x)  # <- error
    with expect_error(hl.ScheduleError, "Func result is an output", "not at host.x"):
        result.realize([4], REFERENCE)
