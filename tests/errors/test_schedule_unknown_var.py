"""A schedule directive naming a Var the Func does not have."""

import webhal as hl

from ._util import expect_error

x, y, z = hl.Var("x"), hl.Var("y"), hl.Var("z")


def make_grid() -> hl.Func:
    grid = hl.Func("grid")
    grid[x, y] = x + y
    return grid


def test_split():
    grid = make_grid()
    with expect_error(hl.ScheduleError, "Func grid has no loop z", "y, x"):
        grid.split(z, hl.Var("zo"), hl.Var("zi"), 4)


def test_vectorize():
    grid = make_grid()
    with expect_error(hl.ScheduleError, "Func grid has no loop z", "y, x"):
        grid.vectorize(z, 8)


def test_reorder():
    grid = make_grid()
    with expect_error(hl.ScheduleError, "Func grid has no loop z", "y, x"):
        grid.reorder(y, z)


def test_tile_leaves_the_loops_as_they_were():
    grid = make_grid()
    with expect_error(hl.ScheduleError, "Func grid has no loop z", "y, x (outermost first)"):
        grid.tile(x, z, hl.Var("xi"), hl.Var("zi"), 4, 4)
    assert grid.loops() == ["x", "y"]  # x was not split before the error


def test_update_stage():
    acc = hl.Func("acc")
    acc[x] = 0
    r = hl.RDom([(0, 8)], "r")
    acc[r] = acc[r] + 1
    with expect_error(hl.ScheduleError, "Func acc.update(0) has no loop x", "r$x"):
        acc.update(0).vectorize(x, 4)
