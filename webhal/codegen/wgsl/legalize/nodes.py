"""Small constructors and tests of the IR nodes that the legalization passes make."""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Type


def is_narrow(t: Type) -> bool:
    """An 8- or 16-bit integer type."""
    return t.is_int_or_uint() and not t.is_bool() and t.bits < 32


def intrinsic(t: Type, name: str, *args: ir.Expr) -> ir.Call:
    return ir.Call(t, name, tuple(args), ir.CallType.INTRINSIC)


def constant(value: int | float, t: Type) -> ir.Expr:
    """value in type t (a Broadcast for a vector type)."""
    c = ops.const(value, t.element_of())
    return c if t.lanes == 1 else ir.Broadcast(c, t.lanes)
