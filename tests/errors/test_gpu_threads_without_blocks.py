"""GPU thread loops without GPU block loops around them, found when realizing."""

import webhal as hl

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_threads_only_on_an_output():
    shade = hl.Func("shade")
    shade[x, y] = x + y
    shade.gpu_threads(x, y)  # <- error
    with expect_error(hl.ScheduleError, "Func shade", "GPU thread loops (y, x)",
                      "no GPU block loop", "gpu_blocks"):
        shade.realize([4, 4], REFERENCE)


def test_threads_only_on_an_intermediate():
    source = hl.Func("source")
    source[x] = x
    out = hl.Func("out")
    out[x] = source[x]
    source.compute_root().gpu_threads(x)  # <- error
    with expect_error(hl.ScheduleError, "Func source", "GPU thread loops (x)"):
        out.realize([4], REFERENCE)


def test_threads_outside_blocks():
    shade = hl.Func("shade")
    shade[x, y] = x + y
    shade.gpu_threads(y).gpu_blocks(x)  # <- error
    with expect_error(hl.ScheduleError, "Func shade", "thread loop y",
                      "outside GPU block loop x"):
        shade.realize([4, 4], REFERENCE)
