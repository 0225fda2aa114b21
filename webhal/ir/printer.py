"""Text form of IR expressions, close to Halide's own printing."""

from __future__ import annotations

from functools import singledispatch

from webhal.ir import nodes as n

_INFIX = {n.Add: "+", n.Sub: "-", n.Mul: "*", n.Div: "/", n.Mod: "%", n.EQ: "==", n.NE: "!=",
          n.LT: "<", n.LE: "<=", n.GT: ">", n.GE: ">=", n.And: "&&", n.Or: "||"}


@singledispatch
def to_string(e) -> str:
    raise TypeError(f"cannot print {type(e).__name__}")


@to_string.register
def _(e: n.IntImm) -> str:
    return str(e.value) if e.type.bits == 32 else f"({e.type}){e.value}"


@to_string.register
def _(e: n.UIntImm) -> str:
    if e.type.is_bool():
        return "true" if e.value else "false"
    return f"({e.type}){e.value}"


@to_string.register
def _(e: n.FloatImm) -> str:
    text = repr(float(e.value))
    return text + "f" if e.type.bits == 32 else f"({e.type}){text}"


@to_string.register
def _(e: n.StringImm) -> str:
    return repr(e.value)


@to_string.register
def _(e: n.Cast) -> str:
    return f"{e.type}({to_string(e.value)})"


@to_string.register
def _(e: n.Reinterpret) -> str:
    return f"reinterpret<{e.type}>({to_string(e.value)})"


@to_string.register
def _(e: n.Variable) -> str:
    return e.name


@to_string.register
def _(e: n.BinaryOp) -> str:
    if type(e) in (n.Min, n.Max):
        return f"{type(e).__name__.lower()}({to_string(e.a)}, {to_string(e.b)})"
    return f"({to_string(e.a)} {_INFIX[type(e)]} {to_string(e.b)})"


@to_string.register
def _(e: n.CompareOp) -> str:
    return f"({to_string(e.a)} {_INFIX[type(e)]} {to_string(e.b)})"


@to_string.register
def _(e: n.Not) -> str:
    return f"!{to_string(e.a)}"


@to_string.register
def _(e: n.Select) -> str:
    parts = ", ".join(to_string(x) for x in (e.condition, e.true_value, e.false_value))
    return f"select({parts})"


@to_string.register
def _(e: n.Call) -> str:
    return f"{e.name}({', '.join(to_string(a) for a in e.args)})"


@to_string.register
def _(e: n.Let) -> str:
    return f"(let {e.name} = {to_string(e.value)} in {to_string(e.body)})"


@to_string.register
def _(e: n.Ramp) -> str:
    return f"ramp({to_string(e.base)}, {to_string(e.stride)}, {e.lanes})"


@to_string.register
def _(e: n.Broadcast) -> str:
    return f"x{e.lanes}({to_string(e.value)})"
