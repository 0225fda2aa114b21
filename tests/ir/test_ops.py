"""webhal.ir.ops: constants, wrapping, casts, and the folding constructors. Folding is checked
against the reference evaluator: a folded node must compute what the unfolded one does."""

from __future__ import annotations

import math

import numpy as np
import pytest

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Bool, Float, Int, UInt
from webhal.reference.evaluate import Evaluator

I32, I16, U8, U32, F32 = Int(32), Int(16), UInt(8), UInt(32), Float(32)
x = ops.var("x")


@pytest.mark.parametrize("value, t, wrapped", [
    (130, Int(8), -126), (-129, Int(8), 127), (-1, U8, 255), (256, U8, 0),
    (2**31, I32, -2**31), (65536 + 5, UInt(16), 5), (-1, U32, 2**32 - 1), (7, I32, 7),
])
def test_wrap_int(value, t, wrapped):
    assert ops.wrap_int(value, t) == wrapped


def test_make_const():
    assert ops.make_const(U8, 300) == ir.UIntImm(U8, 44)
    assert ops.make_const(I16, -5) == ir.IntImm(I16, -5)
    assert ops.make_const(Bool(), 7) == ir.UIntImm(Bool(), 1)
    assert ops.make_const(F32, 0.1).value == float(np.float32(0.1))  # rounded to float32
    assert ops.make_const(F32, math.inf).value == math.inf
    assert math.isnan(ops.make_const(F32, math.nan).value)
    assert ops.const(3) == ir.IntImm(I32, 3)


def test_cast_node():
    assert ops.cast_node(I32, x) is x
    assert ops.cast_node(U8, ops.const(-1)) == ir.UIntImm(U8, 255)  # folds, wrapping
    assert ops.cast_node(F32, ops.const(3)) == ir.FloatImm(F32, 3.0)
    # float -> int truncates and saturates: left to the Cast node, not folded here
    assert ops.cast_node(I32, ops.const(2.7, F32)) == ir.Cast(I32, ops.const(2.7, F32))
    assert ops.cast_node(U8, x) == ir.Cast(U8, x)
    assert ops.cast(U8, x) == ir.Cast(U8, x)


def test_as_const_and_is_const():
    assert ops.as_const(ops.const(4)) == 4
    assert ops.as_const(ir.Broadcast(ops.const(2.5, F32), 4)) == 2.5
    assert ops.as_const(x) is None
    assert ops.is_const(ops.const(0)) and ops.is_const(ops.const(0), 0)
    assert not ops.is_const(ops.const(1), 0) and not ops.is_const(x)


@pytest.mark.parametrize("e, split", [
    (ops.const(5), (None, 5)),
    (ir.Add(x, ops.const(3)), (x, 3)),
    (ir.Sub(x, ops.const(3)), (x, -3)),
    (ir.Add(ops.const(3), x), (ir.Add(ops.const(3), x), 0)),
    (x, (x, 0)),
])
def test_split_offset(e, split):
    assert ops.split_offset(e) == split


@pytest.mark.parametrize("made, expected", [
    (ops.add(x, ops.const(0)), x),
    (ops.add(ops.const(0), x), x),
    (ops.add(ir.Add(x, ops.const(1)), ops.const(2)), ir.Add(x, ops.const(3))),
    (ops.add(ir.Add(x, ops.const(1)), ops.const(-1)), x),
    (ops.add(x, ir.Sub(ops.var("y"), x)), ops.var("y")),
    (ops.sub(x, x), ops.const(0)),
    (ops.sub(ir.Add(x, ops.const(5)), ir.Add(x, ops.const(2))), ops.const(3)),
    (ops.sub(ir.Add(x, ops.var("y")), x), ops.var("y")),
    (ops.mul(ops.const(1), x), x),
    (ops.mul(x, ops.const(0)), ops.const(0)),
    (ops.mul(ir.Add(x, ops.const(1)), ops.const(3)),
     ir.Add(ir.Mul(x, ops.const(3)), ops.const(3))),
    (ops.mul(ops.const(3), x), ir.Mul(x, ops.const(3))),
    (ops.div(x, ops.const(1)), x),
    (ops.minimum(x, x), x),
    (ops.minimum(ir.Add(x, ops.const(2)), x), x),
    (ops.maximum(ir.Add(x, ops.const(2)), x), ir.Add(x, ops.const(2))),
    (ops.minimum(ir.Min(x, ops.const(4)), ops.const(2)), ir.Min(x, ops.const(2))),
    (ops.minimum(ops.const(3), x), ir.Min(x, ops.const(3))),  # constants go right
    (ops.maximum(ir.Min(x, ops.const(0)), ops.const(2)), ops.const(2)),  # clamp(x, 2, 0)
    (ops.maximum(ops.const(2), ir.Min(x, ops.const(2))), ops.const(2)),
    (ops.minimum(ir.Max(x, ops.const(5)), ops.const(2)), ops.const(2)),
    (ops.maximum(ir.Min(x, ops.const(5)), ops.const(2)),
     ir.Max(ir.Min(x, ops.const(5)), ops.const(2))),
    (ops.mod(x, x), ops.const(0)),
    (ops.select(ops.const(1, Bool()), x, ops.const(0)), x),
    (ops.select(ir.LT(x, ops.const(0)), x, x), x),
    (ops.and_(ops.const(1, Bool()), ir.LT(x, ops.const(0))), ir.LT(x, ops.const(0))),
    (ops.and_(ir.LT(x, ops.const(0)), ops.const(0, Bool())), ops.const(0, Bool())),
    (ops.lt(ops.const(1), ops.const(2)), ops.const(1, Bool())),
    (ops.le(ops.const(3), ops.const(2)), ops.const(0, Bool())),
])
def test_folding_shapes(made, expected):
    assert made == expected


@pytest.mark.parametrize("a, b, q, r", [
    (7, 2, 3, 1), (-7, 2, -4, 1), (7, -2, -3, 1), (-7, -2, 4, 1), (5, 0, 0, 0), (0, 3, 0, 0),
])
def test_constant_division_is_euclidean(a, b, q, r):
    assert ops.div(ops.const(a), ops.const(b)) == ops.const(q)
    assert ops.mod(ops.const(a), ops.const(b)) == ops.const(r)
    assert a == q * b + r or b == 0


def test_constants_that_overflow_are_not_folded():
    big = ops.const(2**31 - 1)
    assert ops.add(big, ops.const(1)) == ir.Add(big, ops.const(1))
    assert ops.mul(ops.const(2**20), ops.const(2**12)) == ir.Mul(ops.const(2**20),
                                                               ops.const(2**12))
    assert ops.sub(ops.const(0, U8), ops.const(1, U8)) == ir.Sub(ops.const(0, U8),
                                                                ops.const(1, U8))


def test_float_arithmetic_keeps_its_identities():
    f = ir.Variable(F32, "f")
    zero = ops.const(0.0, F32)
    assert ops.add(f, zero) == ir.Add(f, zero)  # f + 0.0 is not f when f is -0.0
    assert ops.mul(f, zero) == ir.Mul(f, zero)  # nor f * 0.0 when f is inf or NaN
    assert ops.minimum(zero, f) == ir.Min(zero, f)  # NaN rules depend on the order


# -- folding preserves values ------------------------------------------------------------------

_CONSTRUCTORS = [
    (ops.add, ir.Add), (ops.sub, ir.Sub), (ops.mul, ir.Mul), (ops.div, ir.Div),
    (ops.mod, ir.Mod), (ops.minimum, ir.Min), (ops.maximum, ir.Max),
]


def _operands(t):
    v = ir.Variable(t, "x")
    k = lambda n: ops.const(n, t)  # noqa: E731
    lo, hi = t.min(), t.max()
    rounded_up = ir.Add(ir.Mul(ir.Div(ir.Add(v, k(3)), k(4)), k(4)), k(1))
    return [v, k(0), k(1), k(3), k(hi), k(lo), ir.Add(v, k(2)), ir.Sub(v, k(1)),
            ir.Mul(v, k(2)), ir.Min(v, k(4)), ir.Max(v, k(1)), rounded_up,
            k(-2 if t.is_int() else 2)]


@pytest.mark.parametrize("t", [I32, I16, U8, U32], ids=str)
def test_folded_nodes_compute_what_unfolded_ones_do(t):
    env = {"x": np.arange(-20, 21).astype(t.dtype)}
    for fold, node in _CONSTRUCTORS:
        for a in _operands(t):
            for b in _operands(t):
                folded = Evaluator(None, env).eval(fold(a, b))
                plain = Evaluator(None, env).eval(node(a, b))
                assert np.array_equal(np.broadcast_to(folded, plain.shape), plain), \
                    f"{fold.__name__}({a}, {b})"


@pytest.mark.parametrize("stride, divisor", [(2, 2), (4, 2), (6, 3), (8, 8), (16, 4)])
def test_a_ramp_over_a_divisor_of_its_stride_stays_a_ramp(stride, divisor):
    """ramp(x, k * c, n) / c is ramp(x / c, k, n) and ramp(x, k * c, n) % c is a broadcast of
    x % c, lane for lane, for negative bases too (division rounds down): a vectorized x / 2
    is then a dense load, not a gather."""
    env = {"x": np.arange(-37, 38).astype(np.int32)}
    a = ir.Ramp(ir.Add(x, ops.const(3)), ops.const(stride), 8)
    c = ir.Broadcast(ops.const(divisor), 8)
    q, r = ops.div(a, c), ops.mod(a, c)
    assert isinstance(q, ir.Ramp) and ops.as_const(q.stride) == stride // divisor
    assert isinstance(r, ir.Broadcast)
    def lane(e, i):  # lane i of a ramp or broadcast, as a scalar expression
        if isinstance(e, ir.Broadcast):
            return e.value
        return ir.Add(e.base, ir.Mul(e.stride, ops.const(i)))
    for i in range(8):
        for got, node in ((lane(q, i), ir.Div), (lane(r, i), ir.Mod)):
            want = node(lane(a, i), ops.const(divisor))
            assert np.array_equal(Evaluator(None, env).eval(got),
                                  Evaluator(None, env).eval(want)), (node.__name__, i)


def test_a_ramp_whose_stride_the_divisor_does_not_divide_stays_a_division():
    a = ir.Ramp(x, ops.const(3), 4)
    assert isinstance(ops.div(a, ir.Broadcast(ops.const(2), 4)), ir.Div)
    narrow = ir.Ramp(ir.Variable(I16, "x"), ops.const(2, I16), 4)  # 16-bit lanes may wrap
    assert isinstance(ops.div(narrow, ir.Broadcast(ops.const(2, I16), 4)), ir.Div)


def _uses_x_under(e: ir.Expr, kinds) -> bool:
    """Whether x occurs inside a node of one of `kinds` in e."""
    from webhal.ir.visitor import variable_names, walk
    return any(isinstance(n, kinds) and "x" in variable_names(n) for n in walk(e))


@pytest.mark.parametrize("t, c0, c1", [(I32, 8, 2), (I32, -3, 5), (I16, 300, 300), (U8, 20, 20),
                                       (U32, 0x10001, 0x10001), (Int(64), 7, -9)], ids=str)
def test_a_product_of_constants_folds(t, c0, c1):
    """(x * c0) * c1 is x * (c0 * c1): exact in wrap-around arithmetic, so the narrow and
    unsigned types, which wrap, fold to the wrapped product, value for value."""
    v = ir.Variable(t, "x")
    folded = ops.mul(ir.Mul(v, ops.const(c0, t)), ops.const(c1, t))
    assert isinstance(folded, ir.Mul) and folded.a == v
    assert ops.as_const(folded.b) == ops.wrap_int(c0 * c1, t)
    lo, hi = max(t.min(), -70000), min(t.max(), 70000)
    env = {"x": np.linspace(lo, hi, 4001).astype(np.int64).astype(t.dtype)}
    plain = ir.Mul(ir.Mul(v, ops.const(c0, t)), ops.const(c1, t))
    assert np.array_equal(Evaluator(None, env).eval(folded), Evaluator(None, env).eval(plain))


def test_a_signed_product_that_would_overflow_does_not_fold():
    big = ops.mul(ir.Mul(x, ops.const(2**20)), ops.const(2**12))
    assert isinstance(big.a, ir.Mul)  # 2**32 is no int32; Halide assumes no overflow


_y = ops.var("y")
_k = ops.const
_MULTIPLES = [  # numerators with terms that are multiples of the divisors below
    ir.Add(ir.Mul(x, _k(16)), _y),
    ir.Add(_y, ir.Mul(x, _k(16))),
    ir.Add(ir.Add(ir.Mul(x, _k(16)), _y), _k(1)),
    ir.Sub(ir.Mul(x, _k(16)), _y),
    ir.Sub(_y, ir.Mul(x, _k(16))),
    ir.Sub(ir.Add(ir.Mul(x, _k(-8)), _y), _k(3)),
    ir.Add(ir.Sub(_y, ir.Mul(x, _k(4))), ir.Mul(_y, _k(4))),
]


@pytest.mark.parametrize("n", range(len(_MULTIPLES)))
@pytest.mark.parametrize("c", [2, 4])
def test_whole_multiples_come_out_of_a_division(n, c):
    """(x * (k * c) + y) / c is x * k + y / c and (x * (k * c) + y) % c is y % c, with y on
    either side, subtracted, and constants beside (int32: no overflow; division rounds down,
    so it holds for negative values): the divided term leaves the division, value for value."""
    a = _MULTIPLES[n]
    q, r = ops.div(a, _k(c)), ops.mod(a, _k(c))
    assert not _uses_x_under(q, (ir.Div, ir.Mod)) and not _uses_x_under(r, (ir.Div, ir.Mod))
    xs, ys = np.meshgrid(np.arange(-40, 41), np.arange(-40, 41))
    env = {"x": xs.ravel().astype(np.int32), "y": ys.ravel().astype(np.int32)}
    for got, node in ((q, ir.Div), (r, ir.Mod)):
        want = node(a, _k(c))
        assert np.array_equal(Evaluator(None, env).eval(got), Evaluator(None, env).eval(want))


def test_a_division_keeps_what_is_not_a_whole_multiple():
    for a, c in ((ir.Add(ir.Mul(x, _k(6)), _y), 4), (ir.Add(ir.Mul(x, _k(4)), _y), -2)):
        assert isinstance(ops.div(a, _k(c)), ir.Div) and isinstance(ops.mod(a, _k(c)), ir.Mod)
    v = ir.Variable(I16, "x")  # 16-bit sums wrap: x * 4 + y may wrap where x * 2 + y / 2 not
    narrow = ir.Add(ir.Mul(v, ops.const(4, I16)), ir.Variable(I16, "y"))
    assert isinstance(ops.div(narrow, ops.const(2, I16)), ir.Div)


def test_the_simplifier_takes_whole_multiples_out_of_interpolates_indices():
    """Interpolate's upsampling read coarse[(x * 8 * 2 + m + 1) / 2] in its output loop; the
    simplifier now leaves x * 8 + (m + 1) / 2, the loop variable outside the division."""
    from webhal.passes.simplify import simplify_expr
    m = ops.var("m")
    e = ir.Div(ir.Add(ir.Add(ir.Mul(ir.Mul(x, _k(8)), _k(2)), m), _k(1)), _k(2))
    s = simplify_expr(e)
    assert s == ir.Add(ir.Mul(x, _k(8)), ir.Div(ir.Add(m, _k(1)), _k(2)))
