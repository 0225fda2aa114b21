"""Printing in the IR: hl.print, hl.print_when and tracing all become one runtime call.

`print_call(condition, pieces)` is a RUNTIME Call of abi.PRINT_FUNCTION whose first argument is
the condition and whose others are the pieces of the line (values and StringImms, concatenated
as they are: callers put the spaces in). Code generators evaluate the pieces and make the call
only where the condition holds; the reference evaluator prints each active lane, and so does
the vectorizer's "print_lanes" form of it (one line per lane, lane 0 first).
`return_second(a, b)` evaluates a, then b, and is b: how a print returns its first value.
"""

from __future__ import annotations

from webhal import abi
from webhal.ir import nodes as ir
from webhal.ir.types import Bool, Int


def print_call(condition: ir.Expr, pieces: list[ir.Expr]) -> ir.Call:
    return ir.Call(Int(32), abi.PRINT_FUNCTION, (condition, *pieces), ir.CallType.RUNTIME)


def always() -> ir.Expr:
    return ir.UIntImm(Bool(), 1)


def return_second(first: ir.Expr, second: ir.Expr) -> ir.Call:
    return ir.Call(second.type, "return_second", (first, second), ir.CallType.INTRINSIC)


def print_value(condition: ir.Expr, pieces: list[ir.Expr]) -> ir.Call:
    """hl.print's Expr: pieces[0], printed with the other pieces where condition holds. The
    tracing pass (which runs on every pipeline) makes it a Let of pieces[0] around
    return_second(print_call(...), the Let's variable), so the value is computed once."""
    return ir.Call(pieces[0].type, "print_value", (condition, *pieces), ir.CallType.INTRINSIC)


def is_print_value(e) -> bool:
    return isinstance(e, ir.Call) and e.call_type is ir.CallType.INTRINSIC and \
        e.name == "print_value"


def lower_print_value(e: ir.Call, name: str) -> ir.Expr:
    var = ir.Variable(e.type, name)
    call = print_call(e.args[0], [var, *e.args[2:]])
    return ir.Let(name, e.args[1], return_second(call, var))


def trace_call(pieces: list[ir.Expr]) -> ir.Call:
    """A trace line. Unlike print_call, the vectorizer widens it: each value piece becomes a
    vector of the loop's lanes, which prints as `<a, b, c, d>` (as Halide's vector stores)."""
    return ir.Call(Int(32), "trace_print", (always(), *pieces), ir.CallType.INTRINSIC)


def is_print(e) -> bool:
    """A print_call or a trace_call: code generators print it."""
    return isinstance(e, ir.Call) and (
        (e.call_type is ir.CallType.RUNTIME and e.name == abi.PRINT_FUNCTION) or
        (e.call_type is ir.CallType.INTRINSIC and e.name == "trace_print"))


def spaced(values: list[ir.Expr]) -> list[ir.Expr]:
    """Halide's print: the values separated by one space."""
    out: list[ir.Expr] = []
    for i, v in enumerate(values):
        if i:
            out.append(ir.StringImm(" "))
        out.append(v)
    return out
