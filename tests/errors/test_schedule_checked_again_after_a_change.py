"""realize checks a pipeline's schedules once per version of its definitions and schedules
(realizing in a loop costs no checks); a schedule changed after a realize is checked again, and
two pipelines of the same Funcs with different outputs are not taken for one another."""

import numpy as np

import webhal as hl

from ._util import expect_error

x = hl.Var("x")
HOST = hl.Target("host")


def test_a_schedule_broken_after_a_realize_is_refused():
    source = hl.Func("source")
    source[x] = x * 2
    out = hl.Func("out")
    out[x] = source[x] + 1
    source.compute_at(out, x)  # <- error
    for _ in range(2):  # the second realize finds the schedule checked
        np.testing.assert_array_equal(np.asarray(out.realize([4], HOST)),
                                      [1, 3, 5, 7])
    out.split(x, hl.Var("xo"), hl.Var("xi"), 2)  # source's compute_at loop is gone
    with expect_error(hl.ScheduleError, "out has no loop x", "xo, xi"):
        out.realize([4], HOST)


def test_pipelines_of_the_same_funcs_with_other_outputs():
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x + 10
    g[x] = f[x] * 2
    f.compute_root()
    single = hl.Pipeline(g).realize([3])
    np.testing.assert_array_equal(np.asarray(single), [20, 22, 24])
    both = hl.Pipeline([f, g]).realize([3])  # f is an output now: computed into its Buffer
    np.testing.assert_array_equal(np.asarray(both[0]), [10, 11, 12])
    np.testing.assert_array_equal(np.asarray(both[1]), [20, 22, 24])
