"""Storage outside a parallel, vectorized or GPU block loop with the computation inside it: a
race, refused as Halide refuses it; storage at that loop is fine."""

import numpy as np
import pytest

import webhal as hl

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def _pipeline():
    source = hl.Func("source")
    source[x, y] = x + y
    out = hl.Func("out")
    out[x, y] = source[x, y - 1] + source[x, y]
    return source, out


@pytest.mark.parametrize("loop", ["parallel", "vectorize"])
def test_stored_outside_a_concurrent_loop(loop):
    source, out = _pipeline()
    getattr(out, loop)(y if loop == "parallel" else x)
    var = y if loop == "parallel" else x
    source.compute_at(out, var).store_root()  # <- error
    kind = "parallel" if loop == "parallel" else "vectorized"
    with expect_error(hl.ScheduleError, "Func source", f"the {kind} loop out.",
                      "store source inside that loop"):
        out.realize([8, 4], REFERENCE)


def test_stored_at_the_parallel_loop_is_fine():
    source, out = _pipeline()
    out.parallel(y)
    source.compute_at(out, y).store_at(out, y)
    got = np.asarray(out.realize([8, 4], hl.Target("host")))
    assert got[3, 5] == (5 + 2) + (5 + 3)


def test_stored_outside_a_gpu_thread_loop():
    source, out = _pipeline()
    xo, yo, xi, yi = (hl.Var(n) for n in ("xo", "yo", "xi", "yi"))
    out.gpu_tile(x, y, xo, yo, xi, yi, 4, 4)
    source.compute_at(out, xi).store_at(out, xo)  # <- error
    with expect_error(hl.ScheduleError, "Func source", "the gpu_thread loop out.",
                      "store source inside that loop"):
        out.realize([8, 8], "host-webgpu")
