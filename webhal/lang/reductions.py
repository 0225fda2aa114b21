"""Inline reductions over the RDom inside an Expr: hl.sum, hl.product, hl.maximum, hl.minimum,
and the Tuple-valued hl.argmax and hl.argmin."""

from __future__ import annotations

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir.types import Int
from webhal.ir.visitor import free_variables
from webhal.lang.expr import Expr, to_node
from webhal.lang.func import Func
from webhal.lang.functions import max as hl_max
from webhal.lang.functions import min as hl_min
from webhal.lang.functions import select
from webhal.lang.names import unique_name
from webhal.lang.var import Var


def _reduce(kind: str, e, name: str | None, init, step) -> Expr:
    node = to_node(e)
    free = free_variables(node)
    if not any(v.rdom is not None for v in free):
        raise CompileError(f"hl.{kind} needs an expression that uses an RDom", user_location())
    pure = [Var(v.name) for v in free if v.rdom is None and v.param is None]
    f = Func(name or unique_name(kind))
    t = node.type
    f[tuple(pure)] = Expr(to_node(init(t), like=t))
    f[tuple(pure)] = step(f[tuple(pure)], Expr(node))
    return Expr(f[tuple(pure)].node())


def sum(e, name: str | None = None) -> Expr:  # noqa: A001 - Halide's name
    """The sum of e over its RDom, in e's type."""
    return _reduce("sum", e, name, lambda t: 0, lambda acc, v: acc + v)


def product(e, name: str | None = None) -> Expr:
    return _reduce("product", e, name, lambda t: 1, lambda acc, v: acc * v)


def maximum(e, name: str | None = None) -> Expr:
    return _reduce("maximum", e, name, lambda t: t.min() if not t.is_float() else float("-inf"),
                   hl_max)


def minimum(e, name: str | None = None) -> Expr:
    return _reduce("minimum", e, name, lambda t: t.max() if not t.is_float() else float("inf"),
                   hl_min)


def _arg_reduce(kind: str, e, name: str | None, better) -> tuple:
    """(coordinates of the RDom point..., value) of the best value of e over its RDom, the
    first such point in RDom order. As Halide's: starting from (0, ..., the type's lowest or
    highest value), a point replaces the best so far only when strictly better (NaN never)."""
    node = to_node(e)
    free = free_variables(node)
    rdom = next((v.rdom for v in free if v.rdom is not None), None)
    if rdom is None:
        raise CompileError(f"hl.{kind} needs an expression that uses an RDom", user_location())
    rvars = [Expr(ir.Variable(Int(32), rdom.var_name(i), rdom=rdom))
             for i in range(len(rdom.mins))]
    pure = tuple(Var(v.name) for v in free if v.rdom is None and v.param is None)
    t = node.type
    start = t.min() if kind == "argmax" else t.max()
    if t.is_float():
        start = float("-inf") if kind == "argmax" else float("inf")
    f = Func(name or unique_name(kind))
    f[pure] = (*([0] * len(rvars)), Expr(to_node(start, like=t)))
    so_far = tuple(f[pure][i] for i in range(len(rvars) + 1))
    f[pure] = select(better(Expr(node), so_far[-1]), (*rvars, Expr(node)), so_far)
    return tuple(f[pure][i] for i in range(len(rvars) + 1))


def argmax(e, name: str | None = None) -> tuple:
    """(the RDom coordinates of the largest e, its value): a Tuple, the first in RDom order."""
    return _arg_reduce("argmax", e, name, lambda v, best: v > best)


def argmin(e, name: str | None = None) -> tuple:
    """(the RDom coordinates of the smallest e, its value): a Tuple, the first in RDom order."""
    return _arg_reduce("argmin", e, name, lambda v, best: v < best)
