"""An update definition with a pure Var in another position than its own."""

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_swapped_vars_on_the_left():
    grid = hl.Func("grid")
    grid[x, y] = x
    with expect_error(hl.CompileError, "Func grid", "argument 0 on the left", "is y",
                      "pure Var of that position (x)"):
        grid[y, x] = 1


def test_swapped_vars_in_a_read_of_itself():
    grid = hl.Func("grid")
    grid[x, y] = x
    with expect_error(hl.CompileError, "Func grid", "grid(y, x)", "pure Var y",
                      "as argument 1"):
        grid[x, y] = grid[y, x]
