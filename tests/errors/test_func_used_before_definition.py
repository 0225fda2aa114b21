"""A Func read, scheduled or realized before it has a definition."""

import webhal as hl

from ._util import REFERENCE, expect_error

x = hl.Var("x")


def test_read_before_definition():
    later = hl.Func("later")
    out = hl.Func("out")
    with expect_error(hl.CompileError, "Func later", "before it is defined"):
        out[x] = later[x] + 1


def test_schedule_before_definition():
    later = hl.Func("later")
    with expect_error(hl.CompileError, "Func later is not defined yet"):
        later.compute_root()


def test_realize_before_definition():
    later = hl.Func("later")
    with expect_error(hl.CompileError, "Func later is not defined yet"):
        later.realize([4], REFERENCE)
