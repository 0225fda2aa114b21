"""webhal.analysis.intervals: every interval is checked for soundness by evaluating the expression
at each point of small variable ranges (the reference evaluator's semantics: wrapping, Euclidean
division), and where the analysis should be exact, for exactness."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.analysis._brute_force import I32, evaluate, grid, samples, var
from webhal.analysis.intervals import Interval, bounds_of, refine, type_bounds
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Bool, Float, Int, UInt
from webhal.ir.visitor import free_variables

U8, U16, I16, U32, F32 = UInt(8), UInt(16), Int(16), UInt(32), Float(32)
x, y, n = var("x"), var("y"), var("n")


def c(v, t=I32) -> ir.Expr:
    return ops.const(v, t)


def check(e: ir.Expr, ranges: dict[str, tuple[int, int]],
          free: dict[str, list[int]] | None = None, constraints=None) -> Interval:
    """bounds_of(e) with the variables of `ranges` over those (inclusive) ranges; asserts that
    e's value at every point lies within the bounds, the bounds evaluated at each assignment
    of the `free` variables (those left out of the scope). Returns the interval."""
    types = {v.name: v.type for v in free_variables(e)}
    scope = {k: Interval(c(lo, types.get(k, I32)), c(hi, types.get(k, I32)))
             for k, (lo, hi) in ranges.items()}
    iv = bounds_of(e, scope, constraints)
    for assignment in samples(free or {}):
        fixed = {k: np.asarray(v, dtype=types.get(k, I32).dtype) for k, v in assignment.items()}
        values = evaluate(e, {**grid(e, ranges), **fixed})
        if iv.min is not None:
            lo = evaluate(iv.min, fixed)
            assert values.min() >= lo, f"{e}: {values.min()} below the lower bound {lo}"
        if iv.max is not None:
            hi = evaluate(iv.max, fixed)
            assert values.max() <= hi, f"{e}: {values.max()} above the upper bound {hi}"
    return iv


def consts(iv: Interval) -> tuple:
    """The interval's ends as Python numbers (None where unbounded)."""
    ends = []
    for end in (iv.min, iv.max):
        v = None if end is None else ops.as_const(end)
        assert end is None or v is not None, f"{end} is not a constant"
        ends.append(v)
    return tuple(ends)


# -- leaves and arithmetic ---------------------------------------------------------------------

def test_constants_and_variables():
    assert bounds_of(c(7), {}) == Interval(c(7), c(7))
    assert bounds_of(x, {}) == Interval(x, x)  # out of scope: itself
    assert bounds_of(x, {"x": Interval(c(1), None)}) == Interval(c(1), None)


@pytest.mark.parametrize("e, exact", [
    (ir.Add(x, y), (-3, 9)),
    (ir.Sub(x, y), (-7, 5)),
    (ir.Mul(x, y), (-12, 20)),       # corners of a range that crosses zero
    (ir.Mul(x, c(-2)), (-10, 6)),    # a negative constant swaps the ends
    (ir.Mul(c(3), x), (-9, 15)),
    (ir.Sub(x, x), (-8, 8)),         # intervals forget that both are the same x
])
def test_arithmetic(e, exact):
    assert consts(check(e, {"x": (-3, 5), "y": (0, 4)})) == exact


def test_symbolic_bounds_keep_free_variables():
    iv = check(ir.Add(x, n), {"x": (0, 9)}, {"n": [-5, 0, 7]})
    assert iv == Interval(n, ops.add(n, c(9)))


def test_product_with_an_unbounded_factor_is_unbounded():
    load = ir.Load(I32, "buf", c(0))
    assert bounds_of(ir.Mul(x, load), {"x": Interval(c(0), c(3))}) == Interval(None, None)


# -- min, max, select --------------------------------------------------------------------------

def test_min_max_of_constants():
    assert consts(check(ir.Min(x, c(2)), {"x": (-3, 5)})) == (-3, 2)
    assert consts(check(ir.Max(x, c(2)), {"x": (-3, 5)})) == (2, 5)
    clamp = ir.Min(ir.Max(x, c(0)), c(3))
    assert consts(check(clamp, {"x": (-10, 10)})) == (0, 3)


def test_min_with_an_unbounded_side_keeps_its_upper_bound():
    load = ir.Load(I32, "buf", c(0))
    assert bounds_of(ir.Min(x, load), {"x": Interval(c(0), c(9))}) == Interval(None, c(9))
    assert bounds_of(ir.Max(load, x), {"x": Interval(c(0), c(9))}) == Interval(c(0), None)


def test_min_max_with_free_variables():
    check(ir.Min(x, n), {"x": (0, 9)}, {"n": [-3, 4, 20]})
    check(ir.Max(ir.Sub(x, n), c(1)), {"x": (0, 9)}, {"n": [-3, 4, 20]})


def test_select_is_tightened_by_its_condition():
    # select(x < 5, x, 5): the true branch sees x <= 4.
    e = ir.Select(ir.LT(x, c(5)), x, c(5))
    assert consts(check(e, {"x": (0, 9)})) == (0, 5)
    e = ir.Select(ir.GE(x, c(2)), ir.Sub(x, c(2)), c(0))
    assert consts(check(e, {"x": (-4, 9)})) == (0, 7)


def test_select_with_a_compound_condition():
    cond = ir.And(ir.LE(c(1), x), ir.Not(ir.GT(x, c(6))))
    e = ir.Select(cond, x, c(3))
    assert consts(check(e, {"x": (-20, 20)})) == (1, 6)


def test_refine_records_both_sides_of_a_comparison():
    cons = refine(ir.LT(x, n), True, {}, {})
    assert cons[x] == Interval(None, ops.sub(n, c(1)))
    assert cons[n] == Interval(ops.add(x, c(1)), None)
    assert refine(ir.LT(x, n), False, {}, {})[x] == Interval(n, None)
    assert refine(ir.LT(ir.Variable(F32, "f"), c(1.0, F32)), True, {}, {}) == {}


# -- casts -------------------------------------------------------------------------------------

def test_widening_cast_keeps_bounds():
    e = ir.Cast(I32, ir.Variable(U8, "p"))
    assert consts(check(e, {"p": (0, 255)})) == (0, 255)


def test_narrowing_cast_that_fits_keeps_constant_bounds():
    assert consts(check(ir.Cast(U8, x), {"x": (3, 7)})) == (3, 7)


def test_narrowing_cast_that_may_wrap_covers_the_type():
    assert consts(check(ir.Cast(U8, x), {"x": (250, 260)})) == (0, 255)
    assert consts(check(ir.Cast(I16, ir.Mul(x, c(1000))), {"x": (0, 40)})) == (-32768, 32767)


def test_narrow_sums_that_wrap_cover_the_type():
    # uint8 x + 200 wraps for x >= 56: the bounds must not be [200, 255 + 200].
    p = ir.Variable(U8, "p")
    e = ir.Cast(I32, ir.Add(p, c(200, U8)))
    assert consts(check(e, {"p": (0, 100)})) == (0, 255)
    assert consts(check(ir.Sub(c(3, U8), p), {"p": (0, 5)})) == (0, 255)
    assert consts(check(ir.Mul(p, c(3, U8)), {"p": (0, 200)})) == (0, 255)


def test_narrow_sums_that_fit_stay_exact():
    p = ir.Variable(U8, "p")
    assert consts(check(ir.Add(p, c(5, U8)), {"p": (0, 100)})) == (5, 105)
    assert consts(check(ir.Mul(ir.Variable(I16, "s"), c(-3, I16)), {"s": (-10, 10)})) == \
        (-30, 30)


def test_unsigned_32_bit_difference_may_wrap():
    u = ir.Variable(U32, "u")
    iv = check(ir.Sub(u, c(1, U32)), {"u": (0, 10)})
    assert iv.max is None  # 0 - 1 is 2**32 - 1


def test_float_to_int_and_back():
    f = ir.Variable(F32, "f")
    iv = bounds_of(ir.Cast(I32, f), {"f": Interval(c(-1.5, F32), c(2.5, F32))})
    assert iv.min is not None and iv.max is not None
    assert evaluate(iv.min, {}) <= -1 and evaluate(iv.max, {}) >= 2
    assert consts(bounds_of(ir.Cast(F32, x), {"x": Interval(c(-2), c(3))})) == (-2.0, 3.0)


def test_bool_casts():
    cmp = ir.LT(x, c(3))
    assert consts(check(ir.Cast(I32, cmp), {"x": (0, 9)})) == (0, 1)
    assert consts(check(ir.Cast(Bool(), x), {"x": (0, 9)})) == (0, 1)


# -- division and modulo (Euclidean, x / 0 == x % 0 == 0) --------------------------------------

@pytest.mark.parametrize("k, exact", [(3, (-3, 2)), (-3, (-2, 3)), (1, (-7, 8))])
def test_division_by_a_constant(k, exact):
    assert consts(check(ir.Div(x, c(k)), {"x": (-7, 8)})) == exact


@pytest.mark.parametrize("k, exact", [(3, (0, 2)), (-3, (0, 2)), (1, (0, 0)), (0, (0, 0))])
def test_modulo_by_a_constant(k, exact):
    assert consts(check(ir.Mod(x, c(k)), {"x": (-7, 8)})) == exact


def test_division_by_a_divisor_of_unknown_sign():
    check(ir.Div(x, n), {"x": (-7, 8)}, {"n": [-3, -1, 0, 1, 4]})


def test_modulo_by_a_divisor_of_unknown_sign():
    iv = check(ir.Mod(x, n), {"x": (-7, 8)}, {"n": [-3, -1, 0, 1, 4]})
    assert iv.min == c(0)


def test_division_by_a_positive_range():
    assert consts(check(ir.Div(x, y), {"x": (-7, 8), "y": (2, 4)})) == (-4, 4)
    assert consts(check(ir.Mod(x, y), {"x": (-7, 8), "y": (2, 4)})) == (0, 3)


def test_division_by_a_range_with_zero_is_unbounded():
    assert check(ir.Div(x, y), {"x": (-7, 8), "y": (-1, 4)}) == Interval(None, None)
    assert check(ir.Mod(x, y), {"x": (-7, 8), "y": (-1, 4)}) == Interval(c(0), None)


def test_unsigned_division_stays_below_the_dividend():
    u, v = ir.Variable(U16, "u"), ir.Variable(U16, "v")
    assert consts(check(ir.Div(u, v), {"u": (0, 300), "v": (0, 3)})) == (0, 300)


def test_float_modulo_is_unbounded():
    f = ir.Variable(F32, "f")
    scope = {"f": Interval(c(1.0, F32), c(2.0, F32))}
    assert bounds_of(ir.Mod(f, c(2.0, F32)), scope) == Interval(None, None)


def test_float_division_by_one_value_follows_the_numerator():
    f, p = ir.Variable(F32, "f"), ir.Variable(F32, "p")
    scope = {"f": Interval(c(1.0, F32), c(2.0, F32))}
    assert bounds_of(ir.Div(f, c(2.0, F32)), scope) == \
        Interval(ir.Div(c(1.0, F32), c(2.0, F32)), ir.Div(c(2.0, F32), c(2.0, F32)))
    assert bounds_of(ir.Div(f, c(-2.0, F32)), scope) == \
        Interval(ir.Div(c(2.0, F32), c(-2.0, F32)), ir.Div(c(1.0, F32), c(-2.0, F32)))
    # A Param of unknown sign: the smaller and the larger of the two quotients.
    lo, hi = ir.Div(c(1.0, F32), p), ir.Div(c(2.0, F32), p)
    assert bounds_of(ir.Div(f, p), scope) == Interval(ir.Min(lo, hi), ir.Max(lo, hi))
    assert bounds_of(ir.Div(c(1.0, F32), p), {}) == Interval.point(ir.Div(c(1.0, F32), p))
    # A divisor that ranges (over zero, perhaps) leaves the quotient unbounded.
    q = ir.Variable(F32, "q")
    scope["q"] = Interval(c(-1.0, F32), c(1.0, F32))
    assert bounds_of(ir.Div(f, q), scope) == Interval(None, None)


# -- lets, vectors, intrinsics, unknown nodes --------------------------------------------------

def test_let_binds_the_interval_of_its_value():
    e = ir.Let("t", ir.Mul(x, c(2)), ir.Add(var("t"), c(1)))
    assert consts(check(e, {"x": (0, 9)})) == (1, 19)


def test_ramp_and_broadcast():
    ramp = ir.Ramp(x, c(-2), 4)  # x, x - 2, x - 4, x - 6
    assert consts(bounds_of(ramp, {"x": Interval(c(10), c(20))})) == (4, 20)
    assert consts(bounds_of(ir.Broadcast(x, 8), {"x": Interval(c(1), c(2))})) == (1, 2)


def test_intrinsics():
    def call(name, *args, t=I32):
        return ir.Call(t, name, args, ir.CallType.INTRINSIC)
    assert consts(check(call("bitwise_and", x, c(15)), {"x": (-100, 100)})) == (0, 15)
    shifted = check(call("shift_right", x, c(2)), {"x": (-9, 17)})
    assert (evaluate(shifted.min, {}), evaluate(shifted.max, {})) == (-3, 4)
    assert consts(check(call("likely", x), {"x": (2, 3)})) == (2, 3)
    p = ir.Variable(I16, "s")
    assert consts(check(call("saturating_cast", p, t=U8), {"s": (-300, 300)})) == (0, 255)


@pytest.mark.parametrize("t, ends", [
    (Bool(), (0, 1)), (U8, (0, 255)), (I16, (-32768, 32767)), (U32, (0, None)),
    (I32, (None, None)), (F32, (None, None)),
])
def test_type_bounds(t, ends):
    assert consts(type_bounds(t)) == ends


def test_loads_and_calls_have_their_type_bounds():
    assert consts(bounds_of(ir.Load(U8, "buf", x), {})) == (0, 255)
    assert bounds_of(ir.Load(I32, "buf", x), {}) == Interval(None, None)


def test_exact_constraint_wins():
    fact = Interval.point(c(4))
    assert bounds_of(ir.Sub(x, y), {"x": Interval(c(0), c(9))}, {ir.Sub(x, y): fact}) == fact


def test_union_and_intersect_with_open_ends():
    a, b = Interval(c(0), None), Interval(c(-2), c(5))
    assert a.union(b) == Interval(c(-2), None)
    assert a.intersect(b) == Interval(c(0), c(5))
    assert Interval(None, None).intersect(b) == b
    assert not a.is_bounded() and b.is_bounded()


# -- random expressions ------------------------------------------------------------------------

def _random_expr(rng: random.Random, depth: int, t) -> ir.Expr:
    """An expression of type t over x and y. int32 trees stay shallow enough not to overflow
    (their bounds assume it does not); narrow types are meant to wrap."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.6:
            leaf = rng.choice([x, y])
            return leaf if t == I32 else ir.Cast(t, leaf)
        return c(rng.randint(-6, 9) if not t.is_uint() else rng.randint(0, 9), t)
    a, b = _random_expr(rng, depth - 1, t), _random_expr(rng, depth - 1, t)
    op = rng.choice(["add", "sub", "mul", "div", "mod", "min", "max", "select", "cast", "let",
                     "and", "shift"])
    match op:
        case "add":
            return ir.Add(a, b)
        case "sub":
            return ir.Sub(a, b)
        case "mul":
            return ir.Mul(a, b)
        case "div":
            return ir.Div(a, b)
        case "mod":
            return ir.Mod(a, b)
        case "min":
            return ir.Min(a, b)
        case "max":
            return ir.Max(a, b)
        case "select":
            cmp = rng.choice([ir.LT, ir.LE, ir.GT, ir.GE, ir.EQ])
            return ir.Select(cmp(a, b), _random_expr(rng, depth - 1, t), a)
        case "cast":  # through a narrower type and back
            other = rng.choice([U8, I16, U16])
            return ir.Cast(t, ir.Add(ir.Cast(other, a), ir.Cast(other, b)))
        case "let":
            return ir.Let("t", a, ir.Add(var("t", t), b))
        case "and":
            return ir.Call(t, "bitwise_and", (a, c(rng.randint(0, 31), t)),
                           ir.CallType.INTRINSIC)
        case _:
            return ir.Call(t, "shift_right", (a, c(rng.randint(0, 3), t)),
                           ir.CallType.INTRINSIC)


@pytest.mark.parametrize("seed", range(4))
def test_random_expressions_are_bounded_soundly(seed):
    rng = random.Random(seed)
    for _ in range(120):
        t = rng.choice([I32, I32, U8, I16])
        e = _random_expr(rng, 3, t)
        e = e if t == I32 else ir.Cast(I32, e)
        check(e, {"x": (-4, 6), "y": (0, 5)})
