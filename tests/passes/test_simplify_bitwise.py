"""The simplifier folds bitwise intrinsics of constants (and, or, xor, not, shifts) with Halide's
semantics. Bounds queries need it: a local Laplacian's pyramid levels are sized by
`shift_right(65, (uint32)1)`, which must fold for the query to have constant bounds."""

from __future__ import annotations

import pytest

import webhal as hl
from tests.halide_peer import require
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Int, UInt
from webhal.lang.expr import to_node
from webhal.passes.simplify import simplify_expr

# (name, build(lib), value): built with webhal and with Halide from the same lambda; the values
# are what Halide 21 computes for them.
CASES = [
    ("u32 65 >> 1", lambda m: m.cast(m.UInt(32), 65) >> m.cast(m.UInt(32), 1), 32),
    ("i32 -65 >> 1", lambda m: m.Expr(-65) >> 1, -33),
    ("i32 -65 >> -2", lambda m: m.Expr(-65) >> m.Expr(-2), -260),
    ("i32 5 << -1", lambda m: m.Expr(5) << m.Expr(-1), 2),
    ("i32 5 << 31", lambda m: m.Expr(5) << m.Expr(31), -2**31),
    ("i32 -5 >> 31", lambda m: m.Expr(-5) >> m.Expr(31), -1),
    ("u8 200 >> 3", lambda m: m.cast(m.UInt(8), 200) >> m.cast(m.UInt(8), 3), 25),
    ("u8 200 << 3", lambda m: m.cast(m.UInt(8), 200) << m.cast(m.UInt(8), 3), 64),
    ("i8 100 << 2", lambda m: m.cast(m.Int(8), 100) << m.cast(m.Int(8), 2), -112),
    ("i8 -100 >> 7", lambda m: m.cast(m.Int(8), -100) >> m.cast(m.Int(8), 7), -1),
    ("i8 3 << 7", lambda m: m.cast(m.Int(8), 3) << m.cast(m.Int(8), 7), -128),
    ("u32 1 << 31", lambda m: m.cast(m.UInt(32), 1) << m.cast(m.UInt(32), 31), 2**31),
    ("i64 -7 >> 63", lambda m: m.cast(m.Int(64), -7) >> m.cast(m.Int(64), 63), -1),
    ("i64 1 << 40", lambda m: m.cast(m.Int(64), 1) << m.cast(m.Int(64), 40), 2**40),
    ("and", lambda m: m.Expr(12) & m.Expr(-10), 4),
    ("or", lambda m: m.Expr(12) | m.Expr(10), 14),
    ("xor", lambda m: m.Expr(-12) ^ m.Expr(10), -2),
    ("not", lambda m: ~m.Expr(12), -13),
    ("u8 not", lambda m: ~m.cast(m.UInt(8), 12), 243),
]
OVERSIZED = [
    ("i32 5 >> 32", lambda m: m.Expr(5) >> m.Expr(32)),
    ("i32 5 << -40", lambda m: m.Expr(5) << m.Expr(-40)),
    ("u32 1 << 32", lambda m: m.cast(m.UInt(32), 1) << m.cast(m.UInt(32), 32)),
]


@pytest.mark.parametrize("name, build, value", CASES, ids=[c[0] for c in CASES])
def test_constants_fold(name, build, value):
    e = to_node(build(hl))
    assert isinstance(e, ir.Call)  # the front end leaves them to the simplifier
    folded = simplify_expr(e)
    assert ops.as_const(folded) == value and folded.type == e.type


@pytest.mark.parametrize("name, build", OVERSIZED, ids=[c[0] for c in OVERSIZED])
def test_constant_shifts_past_the_width_are_refused(name, build):
    with pytest.raises(CompileError, match="Halide refuses such a constant shift"):
        simplify_expr(to_node(build(hl)))


def test_shift_amounts_fold_where_the_value_does_not():
    x = ops.var("x")
    u32 = UInt(32)
    shift = lambda n, a, b: ir.Call(a.type, n, (a, b), ir.CallType.INTRINSIC)  # noqa: E731
    assert simplify_expr(shift("shift_left", x, ops.const(0))) == x
    # a negative amount shifts the other way
    assert simplify_expr(shift("shift_right", x, ops.const(-3))) == \
        shift("shift_left", x, ops.const(3))
    # the local Laplacian's bounds: (65 >> 1) * 2 - 3 and (64 >> 0) - 1
    level = ir.Call(Int(32), "shift_right", (ops.const(65), ops.const(1, u32)),
                    ir.CallType.INTRINSIC)
    assert simplify_expr(ir.Sub(ir.Mul(level, ops.const(2)), ops.const(3))) == ops.const(61)
    vec = ir.Broadcast(ops.const(5), 4)  # a vector's constant amount is checked as well
    with pytest.raises(CompileError):
        simplify_expr(shift("shift_left", vec, ir.Broadcast(ops.const(40), 4)))


@pytest.mark.halide
def test_values_and_refusals_are_halides():
    (halide,) = require("halide")
    x = halide.Var("x")

    def realize(e):
        f = halide.Func("f")
        f[x] = e
        return f.realize([1])[0]

    for name, build, value in CASES:
        assert realize(build(halide)) == value, name
    for _name, build in OVERSIZED:
        with pytest.raises(halide.HalideError, match="overflow"):
            realize(build(halide))
