"""Text form of IR expressions, close to Halide's own printing."""

from __future__ import annotations

from functools import singledispatch

from webhal.ir import nodes as n
from webhal.ir import stmt as st

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


@to_string.register
def _(e: n.Load) -> str:
    return f"{e.name}[{to_string(e.index)}]"


def short_string(e, limit: int = 200) -> str:
    """to_string(e) cut to about `limit` characters (its start and end, with how much was left
    out between), for error messages: a lowered expression can run to thousands."""
    text = to_string(e)
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 10, 10)
    return f"{text[:keep]} ...({len(text) - 2 * keep} characters)... {text[-keep:]}"


def stmt_to_string(s, indent: int = 0) -> str:
    """Text of a statement, one line per node, nested by indentation."""
    pad = "  " * indent
    inner = lambda x: stmt_to_string(x, indent + 1)  # noqa: E731
    match s:
        case st.For():
            kind = s.for_type.value
            return (f"{pad}{kind} ({s.name}, {to_string(s.min)}, {to_string(s.extent)}) {{\n"
                    f"{inner(s.body)}{pad}}}\n")
        case st.LetStmt():
            return f"{pad}let {s.name} = {to_string(s.value)}\n{stmt_to_string(s.body, indent)}"
        case st.Block():
            return "".join(stmt_to_string(x, indent) for x in s.stmts)
        case st.IfThenElse():
            text = f"{pad}if ({to_string(s.condition)}) {{\n{inner(s.then_case)}{pad}}}"
            if s.else_case is not None:
                text += f" else {{\n{inner(s.else_case)}{pad}}}"
            return text + "\n"
        case st.Evaluate():
            return f"{pad}{to_string(s.value)}\n"
        case st.AssertStmt():
            return f"{pad}assert({to_string(s.condition)}, {to_string(s.message)})\n"
        case st.ProducerConsumer():
            word = "produce" if s.is_producer else "consume"
            return f"{pad}{word} {s.name} {{\n{inner(s.body)}{pad}}}\n"
        case st.Provide():
            args = ", ".join(to_string(a) for a in s.args)
            name = s.name if not s.value_index else f"{s.name}.{s.value_index}"
            return f"{pad}{name}({args}) = {to_string(s.value)}\n"
        case st.Realize():
            bounds = ", ".join(f"[{to_string(a)}, {to_string(b)}]" for a, b in s.bounds)
            fold = "" if s.fold is None else f" fold dim {s.fold[0]} by {s.fold[1]}"
            return f"{pad}realize {s.name}({bounds}){fold} {{\n{inner(s.body)}{pad}}}\n"
        case st.Allocate():
            return (f"{pad}allocate {s.name}[{s.type} * {to_string(s.size)}]\n"
                    f"{stmt_to_string(s.body, indent)}{pad}free {s.name}\n")
        case st.GPULaunch():
            grid = ", ".join(to_string(g) for g in s.grid)
            args = ", ".join(to_string(a) for a in s.args)
            name = f" {s.kernel.name}" if s.kernel is not None else ""
            return f"{pad}gpu_launch kernel {s.kernel_id}{name} <<<{grid}>>>({args})\n"
        case st.Store():
            pred = "" if s.predicate is None else f" if {to_string(s.predicate)}"
            return f"{pad}{s.name}[{to_string(s.index)}] = {to_string(s.value)}{pred}\n"
    raise TypeError(f"cannot print {type(s).__name__}")
