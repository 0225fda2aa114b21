"""Inline reductions: hl.sum, hl.product, hl.maximum, hl.minimum over the RDom inside an Expr."""

from __future__ import annotations

from webhal.errors import CompileError, user_location
from webhal.ir.visitor import free_variables
from webhal.lang.expr import Expr, to_node
from webhal.lang.func import Func
from webhal.lang.functions import max as hl_max
from webhal.lang.functions import min as hl_min
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
