"""Kernel statements to WGSL text, with Halide's semantics where WGSL differs: Euclidean integer
division and modulo (zero for a zero divisor) through helper functions, shifts by negative
amounts, bit-exact float constants (hex floats)."""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.schedule import ForType
from webhal.ir.types import Float, Type, UInt
from webhal.ir.visitor import children, rebuild

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
fn hl_is_nan(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u; }
fn hl_min_f32(a: f32, b: f32) -> f32 { return select(a, b, b < a); }
fn hl_max_f32(a: f32, b: f32) -> f32 { return select(a, b, a < b); }
fn hl_pow_f32(x: f32, y: f32) -> f32 {
  if (y == 0.0f || x == 1.0f) { return 1.0f; }
  if (!(x < 0.0f)) { return pow(x, y); }
  if (y != trunc(y)) { return bitcast<f32>(0x7fc00000u); }
  let m = pow(-x, y);
  return select(m, -m, y * 0.5f != trunc(y * 0.5f));
}
"""


def wgsl_type(t: Type) -> str:
    if t.is_bool():
        base = "bool"
    elif t.is_float() and t.bits == 32:
        base = "f32"
    elif t.is_float() and t.bits == 16:
        base = "f16"
    elif t.is_int() and t.bits in (8, 16, 32):
        base = "i32"  # 8- and 16-bit values live in 32-bit registers, kept wrapped
    elif t.is_uint() and t.bits in (8, 16, 32):
        base = "u32"
    else:
        raise CompileError(f"type {t} has no WGSL equivalent: WebGPU has no 64-bit types "
                           "(use 32-bit or narrower ints and float32)")
    return base if t.lanes == 1 else f"vec{t.lanes}<{base}>"


def wrap(text: str, t: Type) -> str:
    """Bring a value computed in 32 bits back into the range of its 8- or 16-bit type."""
    if not t.is_int_or_uint() or t.is_bool() or t.bits >= 32:
        return text
    if t.is_uint():
        return f"({text} & {(1 << t.bits) - 1}u)"
    # extractBits sign-extends; shifting left and back would overflow in WGSL's evaluation
    # of constant expressions (a shader-creation error) when text is a constant.
    return f"extractBits({text}, 0u, {t.bits}u)"


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
    """How a kernel sees one buffer: its WGSL array, element type, and whether the array is
    atomic (8/16-bit buffers that kernels write: elements share 32-bit words)."""

    var: str
    type: Type
    atomic: bool = False
    shared: bool = False  # workgroup memory: one element per word

    @property
    def per_word(self) -> int:
        """Elements per 32-bit word: 8/16-bit integers are packed in storage buffers; f16
        arrays and workgroup memory are not."""
        packed = self.type.is_int_or_uint() and self.type.bits < 32 and not self.shared
        return 32 // self.type.bits if packed else 1


_WRAPPING = (ir.Add, ir.Sub, ir.Mul, ir.Div)


class KernelPrinter:
    """Prints one kernel body. Vector expressions (from vectorized loops inside a kernel) are
    printed lane by lane; expressions that need statements first (lets) add them to `pending`,
    emitted before the statement that uses them."""

    def __init__(self, buffers: dict[str, Binding], scalar_names: dict[str, str],
                 workgroup: tuple[int, int, int] = (1, 1, 1),
                 local: dict[str, str] | None = None):
        self.buffers = buffers
        self.local = local or {}  # allocation name -> its function-scope declaration
        self.workgroup = workgroup
        self.scalars = scalar_names   # IR name -> WGSL expression of the value
        self.locals: dict[str, str | list[str]] = {}
        self.lines: list[str] = []
        self.pending: list[str] = []
        self.counter = 0

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, e: ir.Expr) -> str:
        if e.type.lanes > 1:
            raise CompileError(f"WGSL: a vector value where a scalar is needed: {to_string(e)}")
        match e:
            case ir.IntImm() | ir.UIntImm() | ir.FloatImm():
                return constant(e)
            case ir.Variable():
                if "@" in e.name:  # lane i of a vector local
                    base, lane = e.name.rsplit("@", 1)
                    value = self.locals.get(base)
                    if isinstance(value, list):
                        return value[int(lane)]
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
                return wrap(f"hl_{kind}_{wgsl_type(e.type)}({a}, {b})", e.type)
            case ir.Min() | ir.Max():
                name = "min" if isinstance(e, ir.Min) else "max"
                a, b = self.expr(e.a), self.expr(e.b)
                if e.type.is_float():
                    # b < a ? b : a and a < b ? b : a, the CPU targets' rule for NaN operands
                    # (WGSL's min and max leave it open); f16 goes through f32 exactly.
                    if e.type.bits == 32:
                        return f"hl_{name}_f32({a}, {b})"
                    return f"f16(hl_{name}_f32(f32({a}), f32({b})))"
                return f"{name}({a}, {b})"
            case ir.BinaryOp() | ir.CompareOp() if type(e) in _BIN:
                text = f"({self.expr(e.a)} {_BIN[type(e)]} {self.expr(e.b)})"
                return wrap(text, e.type) if isinstance(e, _WRAPPING) else text
            case ir.Not():
                return f"!({self.expr(e.a)})"
            case ir.Select():
                return (f"select({self.expr(e.false_value)}, {self.expr(e.true_value)}, "
                        f"{self.expr(e.condition)})")
            case ir.Cast():
                return self.cast(e.value.type, self.expr(e.value), e.type)
            case ir.Reinterpret():
                src = e.value.type
                if e.type.bits != 32:
                    value = self.expr(e.value)
                    if e.type.is_float():  # 16 bits of an int as a float16
                        word = value if src.is_uint() else f"(bitcast<u32>({value}) & 65535u)"
                        return f"f16(unpack2x16float({word}).x)"
                    if src.is_float():  # a float16's bits (exact through f32)
                        value = f"(pack2x16float(vec2<f32>(f32({value}), 0.0f)) & 65535u)"
                        src = UInt(16)
                    # Same 8 or 16 bits: re-extend them (signed) or mask them (unsigned).
                    if wgsl_type(src) != wgsl_type(e.type):
                        value = f"bitcast<{wgsl_type(e.type)}>({value})"
                    return wrap(value, e.type)
                return f"bitcast<{wgsl_type(e.type)}>({self.expr(e.value)})"
            case ir.Load():
                return self.load(e.name, self.expr(e.index))
            case ir.Let():
                value = self.expr(e.value)
                name = self.fresh(e.name)
                self.pending.append(f"let {name} = {value};")
                self.locals[e.name] = name
                return self.expr(e.body)
            case ir.Call():
                return self.call(e, [self.expr(a) for a in e.args])
        raise CompileError(f"WGSL codegen cannot handle {to_string(e)}")

    def lanes(self, e: ir.Expr) -> list[str]:
        """A vector expression as one WGSL scalar expression per lane."""
        n = e.type.lanes
        if n == 1:
            return [self.expr(e)]
        match e:
            case ir.Broadcast():
                v = self.bind(self.expr(e.value))
                return [v] * n
            case ir.Ramp():
                base, stride = self.bind(self.expr(e.base)), self.bind(self.expr(e.stride))
                t = e.base.type
                steps = [constant(ops_const(i, t)) for i in range(n)]
                return [base] + [wrap(f"({base} + {stride} * {k})", t) for k in steps[1:]]
            case ir.Variable():
                value = self.locals.get(e.name)
                if not isinstance(value, list):
                    raise CompileError(f"WGSL: vector {e.name} is not available in the kernel")
                return value
            case ir.Let():
                self.locals[e.name] = [self.bind(v) for v in self.lanes(e.value)] \
                    if e.value.type.lanes > 1 else self.bind(self.expr(e.value))
                return self.lanes(e.body)
            case ir.Load():
                return [self.load(e.name, i) for i in self.lanes(e.index)]
            case _:
                return self._lanewise(e)

    def _lanewise(self, e: ir.Expr) -> list[str]:
        """Each lane of e from the lanes of its children: the children are printed once (as
        lets), then e is printed per lane over placeholders standing for them."""
        kids = list(children(e))
        kid_lanes = [[self.bind(t) for t in self.lanes(k)] if k.type.lanes > 1 else
                     [self.bind(self.expr(k))] * e.type.lanes for k in kids]
        out = []
        for i in range(e.type.lanes):
            holders = {}
            for j, k in enumerate(kids):
                name = f"@hold{self.counter}_{j}"
                holders[id(k)] = ir.Variable(k.type.element_of(), name)
                self.locals[name] = kid_lanes[j][i]
            scalar = rebuild(e, lambda c, holders=holders: holders[id(c)])
            if any(f.name == "type" for f in dataclasses.fields(scalar)):
                scalar = dataclasses.replace(scalar, type=scalar.type.element_of())
            out.append(self.expr(scalar))
            for h in holders.values():
                del self.locals[h.name]
        self.counter += 1
        return out

    def bind(self, text: str) -> str:
        """text as a let (so lanes that share it compute it once)."""
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*|\(?-?[0-9][0-9a-fx.+piuh]*\)?", text):
            return text
        name = self.fresh("t")
        self.pending.append(f"let {name} = {text};")
        return name

    def cast(self, src: Type, v: str, dst: Type) -> str:
        if dst.is_bool():
            zero = "0.0f" if src.is_float() else ("0u" if src.is_uint() else "0i")
            return f"({v} != {zero})"
        if src.is_bool():
            return f"{wgsl_type(dst)}({v})"
        if src.is_float() and dst.is_int_or_uint():
            return self.float_to_int(v if src.bits == 32 else f"f32({v})", dst)
        text = v if wgsl_type(src) == wgsl_type(dst) else f"{wgsl_type(dst)}({v})"
        narrows = dst.is_int_or_uint() and dst.bits < 32 and (
            src.is_float() or src.bits > dst.bits or src.code != dst.code)
        return wrap(text, dst) if narrows else text

    def float_to_int(self, v: str, dst: Type) -> str:
        """An f32 converted to an integer type the way webhal's CPU targets convert it:
        truncated, saturated to dst's range (not wrapped to 8 or 16 bits), NaN to 0."""
        v = self.bind(v)
        lo, hi = float(dst.min()), float(dst.max()) + 1.0  # both exact in f32
        t = wgsl_type(dst)
        top = f"{dst.max()}u" if dst.is_uint() else f"{dst.max()}i"
        zero = "0u" if dst.is_uint() else "0i"
        converted = f"{t}(max({v}, {constant(ops_const(lo, Float(32)))}))"
        return (f"select(select({converted}, {top}, {v} >= "
                f"{constant(ops_const(hi, Float(32)))}), {zero}, hl_is_nan({v}))")

    def load(self, name: str, index: str) -> str:
        b = self.buffers[name]
        if b.per_word == 1:
            return f"{b.var}[{index}]"
        i = self.bind(index)
        shift = "2" if b.per_word == 4 else "1"
        word = f"{b.var}[{i} >> {shift}u]"
        if b.atomic:
            word = f"atomicLoad(&{word})"
        lane_bits = f"(u32({i} & {b.per_word - 1}i) * {b.type.bits}u)"
        value = f"(({word} >> {lane_bits}) & {(1 << b.type.bits) - 1}u)"
        if b.type.is_int():
            return wrap(f"bitcast<i32>({value})", b.type)
        return value

    def call(self, e: ir.Call, args: list[str]) -> str:
        name = e.name
        if e.call_type is ir.CallType.PURE_EXTERN:
            if name not in _MATH:
                raise CompileError(f"WGSL has no {name}")
            if name == "pow":  # C's powf: negative bases with integer exponents too
                if e.type.bits == 32:
                    return f"hl_pow_f32({args[0]}, {args[1]})"
                return f"f16(hl_pow_f32(f32({args[0]}), f32({args[1]})))"
            return f"{name}({', '.join(args)})"
        if name in _BITWISE:
            return f"({args[0]} {_BITWISE[name]} {args[1]})"
        match name:
            case "bitwise_not":
                return wrap(f"(~{args[0]})", e.type)
            case "shift_left" | "shift_right":
                op = "<<" if name == "shift_left" else ">>"
                back = ">>" if op == "<<" else "<<"
                # (A vector's lanes reach here as placeholders: read constants from the text.)
                amount = e.args[1].value if isinstance(e.args[1], ir.IntImm | ir.UIntImm) \
                    else _literal_int(args[1])
                if amount is not None:
                    # A constant amount picks its direction now: WGSL rejects a constant
                    # shift by u32(-k), even in the select arm that is not taken, or by 32 or
                    # more, and a constant shifted left past its top bit.
                    op, k = (op if amount >= 0 else back), abs(amount)
                    reg = wgsl_type(e.type.element_of())
                    if k >= 32:  # (undefined in Halide) all bits shifted out
                        if op == ">>" and reg == "i32":
                            text = f"({args[0]} >> 31u)"
                        else:
                            text = "0u" if reg == "u32" else "0i"
                    elif op == "<<" and (_is_constant(e.args[0]) or
                                         _literal_int(args[0]) is not None):
                        word = args[0] if reg == "u32" else f"bitcast<u32>({args[0]})"
                        text = f"(({word} & {0xFFFFFFFF >> k}u) << {k}u)"
                        text = text if reg == "u32" else f"bitcast<i32>({text})"
                    else:
                        text = f"({args[0]} {op} {k}u)"
                elif e.args[1].type.is_int():
                    text = (f"select({args[0]} {op} u32({args[1]}), {args[0]} {back} "
                            f"u32(-{args[1]}), {args[1]} < 0i)")
                else:
                    text = f"({args[0]} {op} u32({args[1]}))"
                return wrap(text, e.type)
            case "abs":
                src = e.args[0].type
                if src.is_int():
                    return f"bitcast<u32>(abs({args[0]}))"
                return f"abs({args[0]})" if src.is_float() else args[0]
            case "popcount" | "count_leading_zeros" | "count_trailing_zeros":
                fn = {"popcount": "countOneBits", "count_leading_zeros": "countLeadingZeros",
                      "count_trailing_zeros": "countTrailingZeros"}[name]
                bits = e.type.bits
                if bits == 32:
                    return f"{fn}({args[0]})"
                # 8/16-bit values: count in their own bits (signed ones are kept
                # sign-extended in 32), the result in the value's register type.
                word = f"({args[0]} & {(1 << bits) - 1}u)" if e.type.is_uint() else \
                    f"(bitcast<u32>({args[0]}) & {(1 << bits) - 1}u)"
                count = f"{fn}({word})"
                if name == "count_leading_zeros":
                    count = f"({count} - {32 - bits}u)"
                elif name == "count_trailing_zeros":
                    count = f"min({count}, {bits}u)"
                return count if e.type.is_uint() else f"i32({count})"
            case "likely":
                return args[0]
            case "is_nan" | "is_inf" | "is_finite":
                value = args[0] if e.args[0].type.bits == 32 else f"f32({args[0]})"
                bits = f"(bitcast<u32>({value}) & 0x7fffffffu)"
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

    def store(self, s: st.Store, depth: int) -> None:
        b = self.buffers[s.name]
        n = s.value.type.lanes
        values = self.lanes(s.value)
        if n > 1 or b.per_word > 1:
            # Every lane's value is computed before anything is stored: a value may read the
            # element it replaces (an update), which the atomic path below clears first, or
            # an element an earlier lane's store changes.
            values = [self.bind(v) for v in values]
        if n > 1 and b.per_word > 1 and isinstance(s.index, ir.Ramp) and \
                ops_is_one(s.index.stride) and n % b.per_word == 0:
            # Whole words when the first lane starts a word: one store per word, no
            # read-modify-write. Otherwise fall back to the per-element path below.
            base = self.bind(self.expr(s.index.base))
            mask = (1 << b.type.bits) - 1
            self.emit(f"if (({base} & {b.per_word - 1}i) == 0i) {{", depth)
            shift = "2" if b.per_word == 4 else "1"
            for w in range(n // b.per_word):
                parts = [f"((u32({values[w * b.per_word + j]}) & {mask}u) << {j * b.type.bits}u)"
                         for j in range(b.per_word)]
                word = f"{b.var}[({base} >> {shift}u) + {w}i]"
                packed = " | ".join(parts)
                line = f"atomicStore(&{word}, {packed});" if b.atomic else f"{word} = {packed};"
                self.emit(line, depth + 1)
            self.emit("} else {", depth)
            self._store_elements(b, self.lanes(s.index), values, depth + 1)
            self.emit("}", depth)
            return
        self._store_elements(b, self.lanes(s.index), values, depth)

    def _store_elements(self, b: Binding, indices: list[str], values: list[str],
                        depth: int) -> None:
        for index, value in zip(indices, values):
            if b.per_word == 1:
                self.emit(f"{b.var}[{index}] = {value};", depth)
                continue
            # Another invocation may own the rest of the word: change only this element's
            # bits, atomically (clear, then set).
            i = self.bind(index)
            shift = "2" if b.per_word == 4 else "1"
            mask = (1 << b.type.bits) - 1
            lane_bits = f"(u32({i} & {b.per_word - 1}i) * {b.type.bits}u)"
            word = f"&{b.var}[{i} >> {shift}u]"
            self.emit(f"atomicAnd({word}, ~({mask}u << {lane_bits}));", depth)
            self.emit(f"atomicOr({word}, (u32({value}) & {mask}u) << {lane_bits});", depth)

    def thread_nest(self, loop: st.For, depth: int) -> None:
        """GPU thread loops: each loop variable is an invocation id (innermost loop: x); when
        the nest is smaller than the workgroup, the extra invocations skip it."""
        from webhal.passes.offload_gpu_loops import thread_nest
        chain = thread_nest(loop)
        guards = []
        for axis, t in zip("xyz", reversed(chain)):
            name = self.fresh(t.name)
            self.emit(f"let {name} = {self.expr(t.min)} + i32(local_id.{axis});", depth)
            self.locals[t.name] = name
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
                saved = self.locals.get(s.name)
                if s.value.type.lanes > 1:
                    self.locals[s.name] = [self.bind(v) for v in self.lanes(s.value)]
                else:
                    value = self.expr(s.value)
                    name = self.fresh(s.name)
                    self.emit(f"let {name} = {value};", depth)
                    self.locals[s.name] = name
                self.stmt(s.body, depth)
                if saved is None:
                    del self.locals[s.name]
                else:
                    self.locals[s.name] = saved
            case st.Store():
                self.store(s, depth)
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


def _literal_int(text: str) -> int | None:
    """The value of an integer literal as constant() prints it, else None."""
    m = re.fullmatch(r"\(?(-?[0-9]+)[iu]?\)?", text)
    return int(m.group(1)) if m else None


def _is_constant(e: ir.Expr) -> bool:
    """Whether e reads no variable and no memory (WGSL evaluates it when creating the shader)."""
    from webhal.ir.visitor import walk
    return not any(isinstance(n, ir.Variable | ir.Load) for n in walk(e))


def _has_threads(s: st.Stmt) -> bool:
    from webhal.ir.visitor import walk
    return any(isinstance(n, st.For) and n.for_type is ForType.GPUThread for n in walk(s))


def ops_const(v, t):
    from webhal.ir import ops
    return ops.const(v, t)


def ops_is_one(e) -> bool:
    from webhal.ir import ops
    return ops.is_const(e, 1)
