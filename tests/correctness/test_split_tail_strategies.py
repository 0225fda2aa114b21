"""A two-input weighted sum whose loops are split with each tail strategy, by factors that do and
do not divide the extent."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")
xo, xi, yo, yi = hl.Var("xo"), hl.Var("xi"), hl.Var("yo"), hl.Var("yi")
TAILS = [hl.TailStrategy.Auto, hl.TailStrategy.GuardWithIf, hl.TailStrategy.ShiftInwards]


A_DATA = ramp_image(np.int32, seed=1) // 4
B_DATA = ramp_image(np.int32, seed=2) // 4
A, B = hl.Buffer(A_DATA, "a"), hl.Buffer(B_DATA, "b")


def _weighted(name="weighted"):
    f = hl.Func(name)
    f[x, y] = A[x, y] * 3 - B[x, y] + x * y
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    return f, (A_DATA.T * 3 - B_DATA.T + xs * ys).astype(np.int32)


@pytest.mark.parametrize("tail", TAILS, ids=lambda t: t.name)
def test_split_x(target, tail):
    funcs, expected = [], []
    for factor in (1, 4, 7, 23):
        f, want = _weighted(f"split_by_{factor}")
        f.split(x, xo, xi, factor, tail)
        funcs.append(f)
        expected.append(want)
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


@pytest.mark.parametrize("tail", TAILS, ids=lambda t: t.name)
def test_split_both_vectorize_and_unroll_inner(target, tail):
    f, expected = _weighted()
    f.split(x, xo, xi, 8, tail).split(y, yo, yi, 3, tail).vectorize(xi).unroll(yi)
    check(f, [W, H], target, expected=expected)


def test_other_tail_strategies(target):
    # webhal guards these with an if, as GuardWithIf: the results must be the same.
    funcs, expected = [], []
    for tail in (hl.TailStrategy.Predicate, hl.TailStrategy.PredicateLoads,
                 hl.TailStrategy.PredicateStores, hl.TailStrategy.RoundUpAndBlend,
                 hl.TailStrategy.ShiftInwardsAndBlend):
        f, want = _weighted(f"vectorized_{tail.name}")
        f.vectorize(x, 8, tail)
        g, _ = _weighted(f"update_split_{tail.name}")
        g[x, y] += 1
        g.update(0).split(x, xo, xi, 8, tail)
        funcs += [f, g]
        expected += [want, want + 1]
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


def test_round_up_when_the_factor_divides(target):
    f, expected = _weighted()
    f.split(x, xo, xi, W, hl.TailStrategy.RoundUp).split(y, yo, yi, H, hl.TailStrategy.RoundUp)
    check(f, [W, H], target, expected=expected)


def test_round_up_of_an_intermediate(target):
    # An intermediate Func is allocated with the rounded-up extent, so any factor works (as
    # long as what it reads exists there: here coordinates only).
    f = hl.Func("f")
    f[x, y] = x * x - 7 * y
    out = hl.Func("out")
    out[x, y] = f[x, y] + 1
    f.compute_root().split(x, xo, xi, 8, hl.TailStrategy.RoundUp).vectorize(xi)
    f.split(y, yo, yi, 5, hl.TailStrategy.RoundUp)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(out, [W, H], target, expected=xs * xs - 7 * ys + 1)


def test_round_up_reading_beyond_the_input_is_an_error(compiled_target):
    f, _ = _weighted()
    out = hl.Func("out")
    out[x, y] = f[x, y] + 1
    f.compute_root().split(x, xo, xi, 8, hl.TailStrategy.RoundUp)
    # (The reference ignores schedules, so it reads nothing beyond the input.)
    with pytest.raises(hl.BufferError, match="Input buffer a is accessed at 39, which is "
                                             r"beyond the max \(36\) in dimension 0"):
        out.realize([W, H], compiled_target)


def test_split_of_a_split(target):
    f, expected = _weighted()
    xio, xii = hl.Var("xio"), hl.Var("xii")
    f.split(x, xo, xi, 16).split(xi, xio, xii, 4).vectorize(xii)
    check(f, [W, H], target, expected=expected)


def test_shift_inwards_recomputes_overlap_of_a_compute_at_producer(target):
    f, expected = _weighted()
    out = hl.Func("out")
    out[x, y] = f[x, y] * 2
    out.split(x, xo, xi, 10, hl.TailStrategy.ShiftInwards)
    f.compute_at(out, xo)
    check(out, [W, H], target, expected=expected * 2)
