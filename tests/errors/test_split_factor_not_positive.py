"""A split (or vectorize, unroll) with a factor that is not a positive integer."""

import pytest

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def make_ramp() -> hl.Func:
    ramp = hl.Func("ramp")
    ramp[x] = x
    return ramp


@pytest.mark.parametrize("factor", [0, -3])
def test_split(factor):
    ramp = make_ramp()
    with expect_error(hl.ScheduleError, "loop x of Func ramp", f"positive, not {factor}"):
        ramp.split(x, hl.Var("xo"), hl.Var("xi"), factor)


def test_vectorize_by_zero():
    ramp = make_ramp()
    with expect_error(hl.ScheduleError, "loop x of Func ramp", "positive, not 0"):
        ramp.vectorize(x, 0)


def test_float_factor():
    ramp = make_ramp()
    with expect_error(hl.ScheduleError, "loop x of Func ramp", "integer, not float32"):
        ramp.unroll(x, 2.5)
