"""An update definition whose value has a different type from the pure definition."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_update_of_another_type():
    hist = hl.Func("hist")
    hist[x] = hl.u8(x)
    with expect_error(hl.CompileError, "Func hist", "float32", "uint8", "hl.cast"):
        hist[x] = hl.f32(x)


def test_compound_assignment_that_widens_to_float():
    level = hl.Func("level")
    level[x] = hl.u8(x)
    with expect_error(hl.CompileError, "Func level", "type float32", "type uint8"):
        level[x] += 1.5
