"""A producer stored outside a serial loop of its consumer and computed inside it (a sliding
window, its storage folded to a circular buffer) whose own loops write more than the window:
RoundUp tiles and unrolled rows write whole tiles, ShiftInwards shifts a short one back. The
fold must hold those rows too; with a fold of the window alone, the tile's extra row landed on
the row being read (every output off by one row, found by the differential tester)."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")
xo, yo, xi, yi = (hl.Var(n) for n in ("xo", "yo", "xi", "yi"))


def _round_up_tile(f):
    f.tile(x, y, xo, yo, xi, yi, 4, 2, hl.TailStrategy.RoundUp)


def _shift_inwards_rows(f):
    f.split(y, yo, yi, 3, hl.TailStrategy.ShiftInwards)


def _unrolled_rows(f):
    f.unroll(y, 2, hl.TailStrategy.RoundUp)


@pytest.mark.parametrize("schedule", [_round_up_tile, _shift_inwards_rows, _unrolled_rows])
def test_sliding_window_of_whole_tiles(target, schedule):
    producer, out = hl.Func("producer"), hl.Func("out")
    producer[x, y] = x * 100 - y
    out[x, y] = producer[x + 1, y + 2] + producer[x, y + 1]
    producer.compute_at(out, y).store_root()
    schedule(producer)
    want = np.array([[(xx + 1) * 100 - (yy + 2) + xx * 100 - (yy + 1) for yy in range(9)]
                     for xx in range(5)])
    check(out, [5, 9], target, expected=want)
