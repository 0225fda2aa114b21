"""webhal.analysis.linear: linear forms, checked against evaluation too."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.analysis._brute_force import I32, evaluate, grid, var
from webhal.analysis.linear import linear_form
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Float

x, y = var("x"), var("y")
load = ir.Load(I32, "buf", x)


def c(v, t=I32) -> ir.Expr:
    return ops.const(v, t)


@pytest.mark.parametrize("e, form", [
    (c(7), ({}, 7)),
    (ir.Broadcast(c(3), 4), ({}, 3)),
    (x, ({x: 1}, 0)),
    (ir.Add(x, c(2)), ({x: 1}, 2)),
    (ir.Sub(c(2), ir.Mul(x, c(3))), ({x: -3}, 2)),
    (ir.Mul(c(2), ir.Sub(ir.Add(x, y), c(1))), ({x: 2, y: 2}, -2)),
    (ir.Mul(ir.Mul(ir.Add(x, c(1)), c(2)), c(3)), ({x: 6}, 6)),
    (ir.Mul(c(2), c(3)), ({}, 6)),
])
def test_forms(e, form):
    assert linear_form(e) == form


def test_terms_that_cancel_are_left_out():
    assert linear_form(ir.Sub(ir.Mul(x, c(2)), ir.Add(x, x))) == ({}, 0)
    assert linear_form(ir.Sub(ir.Add(load, c(5)), load)) == ({}, 5)


def test_atoms_are_everything_else_compared_by_value():
    product = ir.Mul(x, y)
    assert linear_form(ir.Add(product, ir.Mul(y, x))) == ({product: 1, ir.Mul(y, x): 1}, 0)
    assert linear_form(ir.Sub(ir.Mul(x, y), ir.Mul(x, y))) == ({}, 0)
    m = ir.Min(x, c(3))
    assert linear_form(ir.Add(ir.Mul(m, c(4)), m)) == ({m: 5}, 0)
    d = ir.Div(x, c(2))  # division is not linear
    assert linear_form(ir.Mul(d, c(2))) == ({d: 2}, 0)


def test_float_constants_are_atoms():
    half = c(0.5, Float(32))
    f = ir.Variable(Float(32), "f")
    assert linear_form(ir.Add(f, half)) == ({f: 1, half: 1}, 0)


def test_distance_of_two_vector_bases():
    a = ir.Add(ir.Mul(y, c(16)), ir.Sub(x, c(1)))
    b = ir.Add(ir.Add(x, c(1)), ir.Mul(c(16), y))
    assert linear_form(ir.Sub(b, a)) == ({}, 2)


def _random_int_expr(rng: random.Random, depth: int) -> ir.Expr:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([x, y, c(rng.randint(-9, 9)), ir.Min(x, y), ir.Div(x, c(3))])
    a, b = _random_int_expr(rng, depth - 1), _random_int_expr(rng, depth - 1)
    kind = rng.choice(["add", "sub", "mul_const", "mul", "max"])
    if kind == "add":
        return ir.Add(a, b)
    if kind == "sub":
        return ir.Sub(a, b)
    if kind == "mul_const":
        k = c(rng.randint(-5, 5))
        return ir.Mul(a, k) if rng.random() < 0.5 else ir.Mul(k, a)
    if kind == "mul":
        return ir.Mul(a, b)
    return ir.Max(a, b)


@pytest.mark.parametrize("seed", range(3))
def test_the_form_evaluates_to_the_expression(seed):
    rng = random.Random(seed)
    ranges = {"x": (-6, 6), "y": (-3, 7)}
    for _ in range(60):
        e = _random_int_expr(rng, 4)
        terms, const = linear_form(e)
        env = grid(ir.Add(x, y), ranges)
        expected = np.broadcast_to(evaluate(e, env), (13, 11)).astype(np.int64)
        total = np.full((13, 11), const, dtype=np.int64)
        for atom, k in terms.items():
            total = total + k * evaluate(atom, env).astype(np.int64)
        assert np.array_equal((total - expected) % (1 << 32), np.zeros((13, 11))), e
