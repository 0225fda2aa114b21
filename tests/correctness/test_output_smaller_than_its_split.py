"""An output realized with sizes smaller than a split or vector factor of its schedule, or not a
multiple of a RoundUp split, or with an update writing beyond the sizes: as Halide's realize,
webhal computes into a larger buffer and returns its crop to the sizes asked for. (A Buffer the
caller passes is only checked: tests/errors/test_output_smaller_than_its_split.py.)"""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")
xo, xi, yo, yi = hl.Var("xo"), hl.Var("xi"), hl.Var("yo"), hl.Var("yi")


def _split(f):
    f.split(x, xo, xi, 8)


def _shift_inwards(f):
    f.split(x, xo, xi, 8, hl.TailStrategy.ShiftInwards)


def _round_up(f):
    f.split(x, xo, xi, 8, hl.TailStrategy.RoundUp)


def _vectorize(f):
    f.vectorize(x, 8)


def _tile_round_up(f):
    f.tile(x, y, xo, yo, xi, yi, 8, 4, hl.TailStrategy.RoundUp).vectorize(xi)


SCHEDULES = [_split, _shift_inwards, _round_up, _vectorize, _tile_round_up]


def _pipeline(schedule):
    out = hl.Func("out")
    out[x, y] = x + 10 * y
    schedule(out)
    return out


@pytest.mark.parametrize("width", [2, 12])
@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: s.__name__.strip("_"))
def test_output_smaller_than_its_split(target, schedule, width):
    out = _pipeline(schedule)
    expected = np.arange(width)[:, None] + 10 * np.arange(3)[None, :]
    check(out, [width, 3], target, expected=expected.astype(np.int32))
    result = out.realize([width, 3], target)
    assert result.mins() == [0, 0] and list(result.shape()) == [width, 3]


def test_update_writing_beyond_the_sizes(target):
    f = hl.Func("f")
    f[x] = x
    r = hl.RDom([(0, 10)])
    f[r.x] = f[r.x] * 2 + 1
    g = hl.Func("g")
    g[x] = x * 3
    g.vectorize(x, 8)
    check(hl.Pipeline([f, g]), [4], target,
          expected=[np.arange(4) * 2 + 1, np.arange(4) * 3])


@pytest.mark.parametrize("width", [1, 3, 5])
def test_update_rounded_up_past_the_shifted_pure_stage(target, width):
    """Both stages vectorized by 4 at a width under 4: the pure stage, shifted inwards, writes
    from -1; the update, rounded up from there, to 6: the query repeats on the larger buffer
    until it holds both (Halide refuses this realize)."""
    out = hl.Func("out")
    out[x, y] = x + 10 * y
    r = hl.RDom([(-1, 3)])
    out[x, y] = out[x, y] * 2 + r.x
    out.vectorize(x, 4)
    out.update(0).vectorize(x, 4)
    expected = np.arange(width)[:, None] + 10 * np.arange(2)[None, :]
    for _ in range(3):  # r.x = -1, 0, 1
        expected = expected * 2
    expected = expected + (-1 * 4 + 0 * 2 + 1)  # each step doubles what the ones before added
    check(out, [width, 2], target, expected=expected.astype(np.int32))


def test_gpu_tile_wider_than_the_output(wgpu_adapter):
    out = hl.Func("out")
    out[x, y] = x + 10 * y
    out.gpu_tile(x, y, xo, yo, xi, yi, 8, 1)
    expected = (np.arange(2)[:, None] + 10 * np.arange(3)[None, :]).astype(np.int32)
    check(out, [2, 3], "host-webgpu", expected=expected)
