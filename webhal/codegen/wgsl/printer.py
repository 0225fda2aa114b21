"""Legalized kernel statements to WGSL text (see codegen/wgsl/legalize: scalars only, no Let
expressions, integers of 32 bits, narrow buffers as words, shifts by unsigned amounts).

The printer maps each IR operation to WGSL with Halide's semantics where WGSL differs, through
the helper functions in HELPERS: Euclidean integer division and modulo (zero for a zero
divisor), the CPU targets' NaN rule for float min and max, saturating float-to-int conversion,
C's pow; float constants are bit-exact (hex floats), and infinities and NaN come from their bits
at run time, as no implementation agrees on them as constant expressions."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from webhal.codegen.wgsl.legalize.nodes import power_of_two
from webhal.codegen.wgsl.legalize.pack_storage import ATOMIC_AND, ATOMIC_OR
from webhal.codegen.wgsl.legalize.scalarize import MAKE_VECTOR
from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.printing import is_print
from webhal.ir.schedule import ForType
from webhal.ir.types import Type
from webhal.ir.visitor import walk
from webhal.passes.offload_gpu_loops import thread_nest

_BIN = {ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.EQ: "==", ir.NE: "!=", ir.LT: "<",
        ir.LE: "<=", ir.GT: ">", ir.GE: ">=", ir.And: "&&", ir.Or: "||"}
_BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
            "shift_left": "<<", "shift_right": ">>"}
_MATH = {"sqrt", "exp", "log", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
         "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"}
_ROUNDING = {"floor": "floor", "ceil": "ceil", "round": "round", "trunc": "trunc"}
_COUNTS = {"popcount": "countOneBits", "count_leading_zeros": "countLeadingZeros",
           "count_trailing_zeros": "countTrailingZeros"}
_ATOMICS = {ATOMIC_AND: "atomicAnd", ATOMIC_OR: "atomicOr"}
_FLOAT_TESTS = {"is_nan": ">", "is_inf": "==", "is_finite": "<"}

# Signed remainders are a - (a / b) * b, never WGSL's `%` of i32: naga prints that as OpSRem,
# which Vulkan leaves undefined for negative operands, and NVIDIA's driver computes unsigned
# (-1 % 3 gives 0; gfx-rs/wgpu#8191). Division (OpSDiv) is defined for every sign.
HELPERS = """\
fn hl_div_i32(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let q = a / b;
  let r = a - q * b;
  if (r < 0) { return select(q + 1, q - 1, b > 0); }
  return q;
}
fn hl_mod_i32(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let r = a - (a / b) * b;
  if (r < 0) { return select(r - b, r + b, b > 0); }
  return r;
}
fn hl_div_u32(a: u32, b: u32) -> u32 { return select(a / b, 0u, b == 0u); }
fn hl_mod_u32(a: u32, b: u32) -> u32 { return select(a % b, 0u, b == 0u); }
fn hl_is_nan(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u; }
fn hl_min_f32(a: f32, b: f32) -> f32 { return select(a, b, b < a); }
fn hl_max_f32(a: f32, b: f32) -> f32 { return select(a, b, a < b); }
fn hl_i32_of_f32(a: f32) -> i32 {
  if (hl_is_nan(a)) { return 0i; }
  if (a >= 0x1p+31f) { return 2147483647i; }
  return i32(max(a, -0x1p+31f));
}
fn hl_u32_of_f32(a: f32) -> u32 {
  if (hl_is_nan(a)) { return 0u; }
  if (a >= 0x1p+32f) { return 4294967295u; }
  return u32(max(a, 0.0f));
}
fn hl_bits(bits: u32) -> u32 { return bits; }
fn hl_pow_f32(x: f32, y: f32) -> f32 {
  if (y == 0.0f || x == 1.0f) { return 1.0f; }
  if (!(x < 0.0f)) { return pow(x, y); }
  if (y != trunc(y)) { return bitcast<f32>(hl_bits(0x7fc00000u)); }
  let m = pow(-x, y);
  return select(m, -m, y * 0.5f != trunc(y * 0.5f));
}
fn hl_atan2_f32(y: f32, x: f32) -> f32 {
  if (y != 0.0f || x != 0.0f) { return atan2(y, x); }
  let m = select(0.0f, 0x1.921fb6p+1f, (bitcast<u32>(x) & 0x80000000u) != 0u);
  return select(m, -m, (bitcast<u32>(y) & 0x80000000u) != 0u);
}
"""


def wgsl_type(t: Type) -> str:
    if t.is_bool():
        base = "bool"
    elif t.is_float() and t.bits in (16, 32):
        base = f"f{t.bits}"
    elif t.is_int_or_uint() and t.bits == 32:
        base = "i32" if t.is_int() else "u32"
    elif t.is_int_or_uint() and t.bits < 32:
        raise CompileError(f"internal: {t} reached the WGSL printer (legalize widens it)")
    else:
        raise CompileError(f"type {t} has no WGSL equivalent: WebGPU has no 64-bit types "
                           "(use 32-bit or narrower ints and float32)")
    return base if t.lanes == 1 else f"vec{t.lanes}<{base}>"


def identifier(name: str) -> str:
    """A WGSL identifier for an IR name (dots and dollars are not allowed there)."""
    return "v_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def constant(e: ir.IntImm | ir.UIntImm | ir.FloatImm) -> str:
    t = e.type
    if t.is_bool():
        return "true" if e.value else "false"
    if t.is_float():
        v = float(e.value)
        if not math.isfinite(v):
            # WGSL has no literal for these, and a constant expression that evaluates to one
            # is an error in Tint (Dawn, Chromium), though not in naga: the bits go through a
            # function, whose result is not a constant expression.
            if t.bits == 32:
                bits = {math.inf: 0x7F800000, -math.inf: 0xFF800000}.get(v, 0x7FC00000)
                return f"bitcast<f32>(hl_bits({bits:#x}u))"
            bits = {math.inf: 0x7C00, -math.inf: 0xFC00}.get(v, 0x7E00)
            return f"bitcast<vec2<f16>>(hl_bits({bits:#x}u)).x"
        mantissa, exponent = v.hex().split("p")
        text = mantissa.rstrip("0").rstrip(".") + "p" + exponent  # shortest exact hex float
        # f16 values go through an f32 literal (exact: they are f16 already); naga does not
        # take every hex literal with an `h` suffix.
        return text + "f" if t.bits == 32 else f"f16({text}f)"
    if t.is_uint():
        return f"{e.value}u"
    if e.value == -(1 << 31):
        return "i32(-2147483647 - 1)"
    return f"{e.value}i" if e.value >= 0 else f"({e.value}i)"


@dataclass(frozen=True)
class Binding:
    """How a kernel sees one buffer or array: its WGSL variable, the type of its elements as
    declared (words for packed buffers), and whether they are atomic."""

    var: str
    type: Type
    atomic: bool = False


class KernelPrinter:
    """Prints one legalized kernel body, statement by statement, into `lines`."""

    def __init__(self, buffers: dict[str, Binding], scalar_names: dict[str, str],
                 workgroup: tuple[int, int, int] = (1, 1, 1),
                 local: dict[str, str] | None = None):
        self.buffers = buffers
        self.local = local or {}  # allocation name -> its function-scope declaration
        self.workgroup = workgroup
        self.scalars = scalar_names   # IR name -> WGSL expression of the value
        self.locals: dict[str, str] = {}  # IR name -> WGSL name, for names in scope
        self.used: set[str] = set()
        self.lines: list[str] = []
        self.uses_f16 = False  # whether the module must enable f16

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, e: ir.Expr) -> str:
        if e.type.lanes > 1 and not self.is_vector_access(e):
            raise CompileError(f"internal: a vector reached the WGSL printer: {to_string(e)}")
        if e.type.is_float() and e.type.bits == 16:
            self.uses_f16 = True
        match e:
            case ir.IntImm() | ir.UIntImm() | ir.FloatImm():
                return constant(e)
            case ir.Variable():
                if e.name in self.locals:
                    return self.locals[e.name]
                if e.name in self.scalars:
                    return self.scalars[e.name]
                raise CompileError(f"WGSL: {e.name} is not available in the kernel")
            case ir.Div() | ir.Mod() if e.type.is_float():
                a, b = self.expr(e.a), self.expr(e.b)
                return f"({a} / {b})" if isinstance(e, ir.Div) else \
                    f"({a} - {b} * floor({a} / {b}))"
            case ir.Div() | ir.Mod() if (k := power_of_two(e.b)) is not None:
                # by 2^k: a shift (arithmetic for signed: Halide's division rounds down for a
                # positive divisor) and a mask (its modulo is never negative then)
                if isinstance(e, ir.Div):
                    return f"({self.expr(e.a)} >> {k}u)"
                return f"({self.expr(e.a)} & {self.expr(ops.const((1 << k) - 1, e.type))})"
            case ir.Div() | ir.Mod():
                kind = "div" if isinstance(e, ir.Div) else "mod"
                return f"hl_{kind}_{wgsl_type(e.type)}({self.expr(e.a)}, {self.expr(e.b)})"
            case ir.Min() | ir.Max():
                name = "min" if isinstance(e, ir.Min) else "max"
                if not e.type.is_float():
                    return f"{name}({self.expr(e.a)}, {self.expr(e.b)})"
                # b < a ? b : a and a < b ? b : a, the CPU targets' rule for NaN operands
                # (WGSL's min and max leave it open); f16 goes through f32 exactly.
                return self.through_f32(f"hl_{name}_f32", e.type, e.a, e.b)
            case ir.BinaryOp() | ir.CompareOp() if type(e) in _BIN:
                return f"({self.expr(e.a)} {_BIN[type(e)]} {self.expr(e.b)})"
            case ir.Not():
                return f"!({self.expr(e.a)})"
            case ir.Select():
                return (f"select({self.expr(e.false_value)}, {self.expr(e.true_value)}, "
                        f"{self.expr(e.condition)})")
            case ir.Cast():
                return self.cast(e.value.type, self.expr(e.value), e.type)
            case ir.Reinterpret():
                return self.reinterpret(e.value.type, self.expr(e.value), e.type)
            case ir.Load():
                return self.element(e.name, self.expr(e.index), load=True)
            case ir.Call():
                return self.call(e, [self.expr(a) for a in e.args
                                     if not isinstance(a, ir.StringImm)])
        raise CompileError(f"WGSL codegen cannot handle {to_string(e)}")

    def is_vector_access(self, e: ir.Expr) -> bool:
        """Whether vector e is one a kernel may hold: a load of a buffer bound as vectors, a
        name bound to one, or a vector to store there (scalarize's MAKE_VECTOR)."""
        match e:
            case ir.Load():
                return self.buffers[e.name].type.lanes == e.type.lanes
            case ir.Variable():
                return True
            case ir.Call():
                return e.name == MAKE_VECTOR
        return False

    def through_f32(self, fn: str, t: Type, *args: ir.Expr) -> str:
        """fn (an f32 function) applied to args of float type t: f16 goes through f32."""
        if t.bits == 32:
            return f"{fn}({', '.join(self.expr(a) for a in args)})"
        return f"f16({fn}({', '.join(f'f32({self.expr(a)})' for a in args)}))"

    def cast(self, src: Type, v: str, dst: Type) -> str:
        if dst.is_bool():
            zero = "0.0f" if src.bits == 32 and src.is_float() else \
                "f16(0.0f)" if src.is_float() else ("0u" if src.is_uint() else "0i")
            return f"({v} != {zero})"
        if src.is_float() and not dst.is_float():  # saturating, NaN to 0
            return f"hl_{wgsl_type(dst)}_of_f32({v if src.bits == 32 else f'f32({v})'})"
        return v if wgsl_type(src) == wgsl_type(dst) else f"{wgsl_type(dst)}({v})"

    def reinterpret(self, src: Type, v: str, dst: Type) -> str:
        if dst.is_float() and dst.bits == 16:  # the float16 in a word's low 16 bits
            return f"f16(unpack2x16float({v}).x)"
        if src.is_float() and src.bits == 16:  # a float16's bits, zero-extended
            return f"(pack2x16float(vec2<f32>(f32({v}), 0.0f)) & 65535u)"
        return f"bitcast<{wgsl_type(dst)}>({v})"

    def element(self, name: str, index: str, load: bool = False) -> str:
        b = self.buffers[name]
        text = f"{b.var}[{index}]"
        return f"atomicLoad(&{text})" if b.atomic and load else text

    def call(self, e: ir.Call, args: list[str]) -> str:
        name = e.name
        if e.call_type is ir.CallType.PURE_EXTERN:
            if name not in _MATH:
                raise CompileError(f"WGSL has no {name}")
            if name == "pow":  # C's powf: negative bases with integer exponents too
                return self.through_f32("hl_pow_f32", e.type, *e.args)
            if name == "atan2":  # C's atan2f of two zeros (+-0 or +-pi), undefined in WGSL
                return self.through_f32("hl_atan2_f32", e.type, *e.args)
            return f"{name}({', '.join(args)})"
        if name in _BITWISE:
            return f"({args[0]} {_BITWISE[name]} {args[1]})"
        if name in _ATOMICS:
            return f"{_ATOMICS[name]}(&{self.element(e.args[0].value, args[0])}, {args[1]})"
        if name in _COUNTS:
            return f"{_COUNTS[name]}({args[0]})"
        if name in _FLOAT_TESTS:
            value = args[0] if e.args[0].type.bits == 32 else f"f32({args[0]})"
            return f"((bitcast<u32>({value}) & 0x7fffffffu) {_FLOAT_TESTS[name]} 0x7f800000u)"
        if name in _ROUNDING:
            return f"{_ROUNDING[name]}({args[0]})"
        match name:
            case "make_vector":
                return f"{wgsl_type(e.type)}({', '.join(args)})"
            case "vector_lane":
                return f"{args[0]}.{'xyzw'[e.args[1].value]}"
            case "bitwise_not":
                return f"(~{args[0]})"
            case "abs" if e.args[0].type.is_int():
                return f"bitcast<u32>(abs({args[0]}))"
            case "abs":
                return f"abs({args[0]})" if e.args[0].type.is_float() else args[0]
            case "likely":
                return args[0]
        if is_print(e):
            raise CompileError("hl.print, hl.print_when and Func.trace_* cannot run in a GPU "
                               "kernel (WGSL cannot print); print from a Func computed on the "
                               "CPU, or realize on a CPU target to debug", user_location())
        raise CompileError(f"WGSL codegen has no rule for {name}")

    def fresh(self, name: str) -> str:
        """A WGSL name for IR name `name`, unused so far in this kernel."""
        base = text = identifier(name)
        n = 1
        while text in self.used:
            n += 1
            text = f"{base}_{n}"
        self.used.add(text)
        return text

    # -- statements ----------------------------------------------------------------------------

    def emit(self, line: str, depth: int) -> None:
        self.lines.append("  " * depth + line)

    def bound(self, name: str, value: str, depth: int) -> str:
        """Declares `let` name = value; returns the WGSL name, now in scope for IR `name`."""
        wgsl = self.fresh(name)
        self.emit(f"let {wgsl} = {value};", depth)
        self.locals[name] = wgsl
        return wgsl

    def let_chain(self, s: st.LetStmt, depth: int) -> None:
        """A LetStmt and the LetStmts directly in its body, in a loop: legalization binds every
        intermediate value, and a long expression makes a chain deeper than Python's recursion
        limit (differential tester seed 2063: 485 lets)."""
        saved = []
        while isinstance(s, st.LetStmt):
            saved.append((s.name, self.locals.get(s.name)))
            self.bound(s.name, self.expr(s.value), depth)
            s = s.body
        self.stmt(s, depth)
        for name, old in reversed(saved):
            if old is None:
                del self.locals[name]
            else:
                self.locals[name] = old

    def thread_nest(self, loop: st.For, depth: int) -> None:
        """GPU thread loops: each loop variable is an invocation id (innermost loop: x); when
        the nest is smaller than the workgroup, the extra invocations skip it."""
        chain = thread_nest(loop)
        guards = []
        for axis, t in zip("xyz", reversed(chain)):
            self.bound(t.name, f"{self.expr(t.min)} + i32(local_id.{axis})", depth)
            extent = int(t.extent.value)
            if extent < self.workgroup["xyz".index(axis)]:
                guards.append(f"local_id.{axis} < {extent}u")
        inner = depth
        if guards:
            self.emit(f"if ({' && '.join(guards)}) {{", depth)
            inner = depth + 1
        self.stmt(chain[-1].body, inner)
        if guards:
            self.emit("}", depth)
        for t in chain:
            del self.locals[t.name]

    def stmt(self, s: st.Stmt, depth: int) -> None:
        match s:
            case st.Block():
                for i, x in enumerate(s.stmts):
                    self.stmt(x, depth)
                    if i + 1 < len(s.stmts) and _has_threads(x):
                        # Later thread nests read what this one wrote to workgroup memory.
                        self.emit("workgroupBarrier();", depth)
            case st.LetStmt():
                self.let_chain(s, depth)
            case st.Store():
                place, value = self.element(s.name, self.expr(s.index)), self.expr(s.value)
                if self.buffers[s.name].atomic:
                    self.emit(f"atomicStore(&{place}, {value});", depth)
                else:
                    self.emit(f"{place} = {value};", depth)
            case st.IfThenElse():
                self.emit(f"if ({self.expr(s.condition)}) {{", depth)
                self.stmt(s.then_case, depth + 1)
                if s.else_case is not None:
                    self.emit("} else {", depth)
                    self.stmt(s.else_case, depth + 1)
                self.emit("}", depth)
            case st.For() if s.for_type is ForType.GPUThread:
                self.thread_nest(s, depth)
            case st.Allocate():  # workgroup memory is declared at module scope
                if s.name in self.local:
                    self.emit(self.local[s.name], depth)
                self.stmt(s.body, depth)
            case st.For():
                lo, extent = self.expr(s.min), self.expr(s.extent)
                end = self.fresh(s.name + ".end")
                self.emit(f"let {end} = {lo} + {extent};", depth)
                name = self.fresh(s.name)
                self.emit(f"for (var {name}: i32 = {lo}; {name} < {end}; {name}++) {{", depth)
                saved, self.locals[s.name] = self.locals.get(s.name), name
                self.stmt(s.body, depth + 1)
                if saved is None:
                    del self.locals[s.name]
                else:
                    self.locals[s.name] = saved
                self.emit("}", depth)
            case st.ProducerConsumer():
                self.stmt(s.body, depth)
            case st.Evaluate() if isinstance(s.value, ir.Call) and s.value.name in _ATOMICS:
                self.emit(f"{self.expr(s.value)};", depth)
            case st.Evaluate():
                if not isinstance(s.value, ir.IntImm | ir.UIntImm):
                    self.emit(f"_ = {self.expr(s.value)};", depth)
            case _:
                raise CompileError(f"WGSL codegen cannot handle statement {type(s).__name__} "
                                   "inside a kernel")


def _has_threads(s: st.Stmt) -> bool:
    return any(isinstance(n, st.For) and n.for_type is ForType.GPUThread for n in walk(s))
