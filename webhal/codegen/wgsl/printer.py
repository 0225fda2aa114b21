"""Kernel statements to WGSL text, with Halide's semantics where WGSL differs: Euclidean integer
division and modulo (zero for a zero divisor) through helper functions, shifts by negative
amounts, bit-exact float constants (hex floats)."""

from __future__ import annotations

import math
import re

from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.types import Type

_BIN = {ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.EQ: "==", ir.NE: "!=", ir.LT: "<",
        ir.LE: "<=", ir.GT: ">", ir.GE: ">=", ir.And: "&&", ir.Or: "||"}
_BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}
_MATH = {"sqrt", "exp", "log", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
         "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"}
_ROUNDING = {"floor": "floor", "ceil": "ceil", "round": "round", "trunc": "trunc"}

HELPERS = """\
fn hl_div_i32(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let q = a / b;
  let r = a % b;
  if (r < 0) { return select(q + 1, q - 1, b > 0); }
  return q;
}
fn hl_mod_i32(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let r = a % b;
  if (r < 0) { return select(r - b, r + b, b > 0); }
  return r;
}
fn hl_div_u32(a: u32, b: u32) -> u32 { return select(a / b, 0u, b == 0u); }
fn hl_mod_u32(a: u32, b: u32) -> u32 { return select(a % b, 0u, b == 0u); }
"""


def wgsl_type(t: Type) -> str:
    if t.is_bool():
        base = "bool"
    elif t.is_float() and t.bits == 32:
        base = "f32"
    elif t.is_float() and t.bits == 16:
        base = "f16"
    elif t.is_int() and t.bits == 32:
        base = "i32"
    elif t.is_uint() and t.bits == 32:
        base = "u32"
    else:
        raise CompileError(f"type {t} has no WGSL equivalent in webhal's WebGPU backend yet "
                           "(32-bit int, uint and float are supported)")
    return base if t.lanes == 1 else f"vec{t.lanes}<{base}>"


def identifier(name: str) -> str:
    """A WGSL identifier for an IR name (dots and dollars are not allowed there)."""
    return "v_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def constant(e: ir.Expr) -> str:
    t = e.type
    if t.is_bool():
        return "true" if e.value else "false"
    if t.is_float():
        v = float(e.value)
        if not math.isfinite(v):
            bits = {math.inf: 0x7F800000, -math.inf: 0xFF800000}.get(v, 0x7FC00000)
            return f"bitcast<f32>({bits}u)"
        return f"{v.hex()}f" if t.bits == 32 else f"{v.hex()}h"
    if t.is_uint():
        return f"{e.value}u"
    if e.value == -(1 << 31):
        return "i32(-2147483647 - 1)"
    return f"{e.value}i" if e.value >= 0 else f"({e.value}i)"


class KernelPrinter:
    """Prints one kernel body; expressions that need statements first (lets) add them to
    `pending`, emitted before the statement that uses them."""

    def __init__(self, buffer_names: dict[str, str], scalar_names: dict[str, str]):
        self.buffers = buffer_names   # IR name -> WGSL expression of the array
        self.scalars = scalar_names   # IR name -> WGSL expression of the value
        self.locals: dict[str, str] = {}
        self.lines: list[str] = []
        self.pending: list[str] = []
        self.counter = 0

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, e: ir.Expr) -> str:
        match e:
            case ir.IntImm() | ir.UIntImm() | ir.FloatImm():
                return constant(e)
            case ir.Variable():
                if e.name in self.locals:
                    return self.locals[e.name]
                if e.name in self.scalars:
                    return self.scalars[e.name]
                raise CompileError(f"WGSL: {e.name} is not available in the kernel")
            case ir.Div() | ir.Mod():
                a, b = self.expr(e.a), self.expr(e.b)
                if e.type.is_float():
                    if isinstance(e, ir.Div):
                        return f"({a} / {b})"
                    return f"({a} - {b} * floor({a} / {b}))"
                kind = "div" if isinstance(e, ir.Div) else "mod"
                return f"hl_{kind}_{wgsl_type(e.type)}({a}, {b})"
            case ir.Min() | ir.Max():
                name = "min" if isinstance(e, ir.Min) else "max"
                return f"{name}({self.expr(e.a)}, {self.expr(e.b)})"
            case ir.BinaryOp() | ir.CompareOp() if type(e) in _BIN:
                return f"({self.expr(e.a)} {_BIN[type(e)]} {self.expr(e.b)})"
            case ir.Not():
                return f"!({self.expr(e.a)})"
            case ir.Select():
                return (f"select({self.expr(e.false_value)}, {self.expr(e.true_value)}, "
                        f"{self.expr(e.condition)})")
            case ir.Cast():
                return self.cast(e)
            case ir.Reinterpret():
                return f"bitcast<{wgsl_type(e.type)}>({self.expr(e.value)})"
            case ir.Load():
                if e.type.lanes != 1:
                    raise CompileError("WGSL: vector loads inside GPU kernels are not supported; "
                                       "do not vectorize GPU loops")
                return f"{self.buffers[e.name]}[{self.expr(e.index)}]"
            case ir.Let():
                value = self.expr(e.value)
                name = self.fresh(e.name)
                self.pending.append(f"let {name} = {value};")
                self.locals[e.name] = name
                return self.expr(e.body)
            case ir.Call():
                return self.call(e)
        raise CompileError(f"WGSL codegen cannot handle {to_string(e)}")

    def cast(self, e: ir.Cast) -> str:
        v = self.expr(e.value)
        src, dst = e.value.type, e.type
        if dst.is_bool():
            zero = "0.0f" if src.is_float() else ("0u" if src.is_uint() else "0i")
            return f"({v} != {zero})"
        return f"{wgsl_type(dst)}({v})"

    def call(self, e: ir.Call) -> str:
        args = [self.expr(a) for a in e.args]
        name = e.name
        if e.call_type is ir.CallType.PURE_EXTERN:
            if name not in _MATH:
                raise CompileError(f"WGSL has no {name}")
            return f"{name}({', '.join(args)})"
        if name in _BITWISE:
            return f"({args[0]} {_BITWISE[name]} {args[1]})"
        match name:
            case "bitwise_not":
                return f"(~{args[0]})"
            case "shift_left" | "shift_right":
                op = "<<" if name == "shift_left" else ">>"
                back = ">>" if op == "<<" else "<<"
                if e.args[1].type.is_int():
                    return (f"select({args[0]} {op} u32({args[1]}), {args[0]} {back} "
                            f"u32(-{args[1]}), {args[1]} < 0i)")
                return f"({args[0]} {op} u32({args[1]}))"
            case "abs":
                src = e.args[0].type
                if src.is_int():
                    return f"bitcast<u32>(abs({args[0]}))"
                return f"abs({args[0]})" if src.is_float() else args[0]
            case "popcount":
                return f"countOneBits({args[0]})"
            case "count_leading_zeros":
                return f"countLeadingZeros({args[0]})"
            case "count_trailing_zeros":
                return f"countTrailingZeros({args[0]})"
            case "likely":
                return args[0]
            case "is_nan" | "is_inf" | "is_finite":
                bits = f"(bitcast<u32>({args[0]}) & 0x7fffffffu)"
                test = {"is_nan": ">", "is_inf": "==", "is_finite": "<"}[name]
                return f"({bits} {test} 0x7f800000u)"
        if name in _ROUNDING:
            return f"{_ROUNDING[name]}({args[0]})"
        raise CompileError(f"WGSL codegen has no rule for {name}")

    def fresh(self, name: str) -> str:
        self.counter += 1
        return f"{identifier(name)}_{self.counter}"

    # -- statements ----------------------------------------------------------------------------

    def emit(self, line: str, depth: int) -> None:
        for p in self.pending:
            self.lines.append("  " * depth + p)
        self.pending.clear()
        self.lines.append("  " * depth + line)

    def stmt(self, s: st.Stmt, depth: int) -> None:
        match s:
            case st.Block():
                for x in s.stmts:
                    self.stmt(x, depth)
            case st.LetStmt():
                value = self.expr(s.value)
                name = self.fresh(s.name)
                self.emit(f"let {name} = {value};", depth)
                saved = self.locals.get(s.name)
                self.locals[s.name] = name
                self.stmt(s.body, depth)
                if saved is None:
                    del self.locals[s.name]
                else:
                    self.locals[s.name] = saved
            case st.Store():
                if s.value.type.lanes != 1:
                    raise CompileError("WGSL: vector stores inside GPU kernels are not "
                                       "supported; do not vectorize GPU loops")
                value, index = self.expr(s.value), self.expr(s.index)
                self.emit(f"{self.buffers[s.name]}[{index}] = {value};", depth)
            case st.IfThenElse():
                self.emit(f"if ({self.expr(s.condition)}) {{", depth)
                self.stmt(s.then_case, depth + 1)
                if s.else_case is not None:
                    self.emit("} else {", depth)
                    self.stmt(s.else_case, depth + 1)
                self.emit("}", depth)
            case st.For():
                lo, extent = self.expr(s.min), self.expr(s.extent)
                name = self.fresh(s.name)
                end = self.fresh(s.name + ".end")
                self.emit(f"let {end} = {lo} + {extent};", depth)
                self.emit(f"for (var {name}: i32 = {lo}; {name} < {end}; {name}++) {{", depth)
                self.locals[s.name] = name
                self.stmt(s.body, depth + 1)
                del self.locals[s.name]
                self.emit("}", depth)
            case st.ProducerConsumer():
                self.stmt(s.body, depth)
            case st.Evaluate():
                if not isinstance(s.value, ir.IntImm | ir.UIntImm):
                    self.emit(f"_ = {self.expr(s.value)};", depth)
            case _:
                raise CompileError(f"WGSL codegen cannot handle statement {type(s).__name__} "
                                   "inside a kernel")
