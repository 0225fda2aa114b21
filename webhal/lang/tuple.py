"""Tuples: Funcs that compute several values at each point, as Halide's do.

`f[x] = (a, b)` (or `hl.Tuple([a, b])`) defines a Tuple-valued Func; `f[x][i]` reads element i;
an update gives every element (`f[x] = (f[x][0] + 1, f[x][1] * 2)`), all of them computed
before any is stored, so each may read the others' old values. `hl.select(c, (a, b), (d, e))`
selects whole Tuples; `hl.argmax`/`hl.argmin` are Tuple-valued inline reductions. As in
Halide's Python bindings, a Python tuple is a Tuple, and realizing a Tuple-valued Func gives a
tuple of Buffers, one per element."""

from __future__ import annotations

from webhal.errors import CompileError, user_location


class Tuple(tuple):
    """hl.Tuple([a, b, ...]): the values of a Tuple-valued Func (a Python tuple works too)."""

    def __new__(cls, *values):
        if len(values) == 1 and isinstance(values[0], (list, tuple)):
            values = tuple(values[0])
        if not values:
            raise CompileError("a Tuple needs at least one value", user_location())
        from webhal.lang.expr import Expr, to_node
        return super().__new__(cls, (Expr(to_node(v)) for v in values))

    def __repr__(self):
        return f"<halide.Tuple of size {len(self)}>"


def is_tuple_value(value) -> bool:
    """Whether `value` (the right side of a definition) has several elements: a Python
    tuple or list, an hl.Tuple, a reference to a Tuple-valued Func, or any other sequence
    (an object with __len__ and __getitem__, as Halide's bindings take: a user's Complex)."""
    from webhal.lang.expr import ExprLike
    from webhal.lang.func import FuncRef
    if isinstance(value, (tuple, list)):
        return True
    if isinstance(value, FuncRef):
        return value._func._function.defined and value._func._function.is_tuple
    return not isinstance(value, (ExprLike, str, bytes)) and hasattr(value, "__len__") and \
        hasattr(value, "__getitem__") and not hasattr(value, "dimensions")


def elements(value) -> list:
    """The elements of a Tuple value (see is_tuple_value), as they are (Exprs, numbers)."""
    if isinstance(value, (tuple, list)):
        return list(value)
    from webhal.lang.func import FuncRef
    if isinstance(value, FuncRef):
        return [value[i] for i in range(len(value._func._function.types))]
    return [value[i] for i in range(len(value))]
