"""Small constructors and tests of the IR nodes that the legalization passes make."""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Type
from webhal.ir.visitor import walk

_PURE_CALLS = (ir.CallType.INTRINSIC, ir.CallType.PURE_EXTERN)


def is_narrow(t: Type) -> bool:
    """An 8- or 16-bit integer type."""
    return t.is_int_or_uint() and not t.is_bool() and t.bits < 32


def is_impure_call(n) -> bool:
    """A Call that may read or write memory: anything but a pure intrinsic or math function,
    and every atomic."""
    return isinstance(n, ir.Call) and (n.call_type not in _PURE_CALLS or "atomic" in n.name)


def reads_memory(e: ir.Expr) -> bool:
    """Whether e loads or calls something impure (a store elsewhere could change its value)."""
    return any(isinstance(n, ir.Load) or is_impure_call(n) for n in walk(e))


def intrinsic(t: Type, name: str, *args: ir.Expr) -> ir.Call:
    return ir.Call(t, name, tuple(args), ir.CallType.INTRINSIC)


def constant(value: int | float, t: Type) -> ir.Expr:
    """value in type t (a Broadcast for a vector type)."""
    c = ops.const(value, t.element_of())
    return c if t.lanes == 1 else ir.Broadcast(c, t.lanes)


def power_of_two(e: ir.Expr) -> int | None:
    """k where e is the integer constant 2^k (a divisor that a shift and a mask replace: Halide
    rounds a quotient by a positive divisor down, as an arithmetic shift does), else None."""
    c = ops.as_const(e)
    if e.type.is_int_or_uint() and not e.type.is_bool() and isinstance(c, int) \
            and not isinstance(c, bool) and c > 0 and c & (c - 1) == 0:
        return c.bit_length() - 1
    return None
