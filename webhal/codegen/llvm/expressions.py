"""Expressions to LLVM IR, with Halide's semantics: wrapping integers, Euclidean division and
modulo (zero for a zero divisor, no trap on INT_MIN / -1), saturating float-to-int conversion,
NaN-propagating float min/max (as numpy's)."""

from __future__ import annotations

import math

from llvmlite import ir as ll

from webhal import abi
from webhal.codegen.llvm import clamped_loads, interleave, simd_idioms
from webhal.codegen.llvm.types import I1, I8, I32, I64, PTR, llvm_type, memory_type, scalar
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.printer import to_string
from webhal.ir.types import Int, Type, TypeCode
from webhal.ir.visitor import walk
from webhal.reference.numeric import float_reciprocal

_LIBM = {"exp", "log", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh",
         "cosh", "tanh", "asinh", "acosh", "atanh", "erf"}
_ICMP_SIGNED = {ir.EQ: "==", ir.NE: "!=", ir.LT: "<", ir.LE: "<=", ir.GT: ">", ir.GE: ">="}
_FCMP = {ir.EQ: ("==", True), ir.NE: ("!=", False), ir.LT: ("<", True), ir.LE: ("<=", True),
         ir.GT: (">", True), ir.GE: (">=", True)}


def _magic(k: int, domain_bits: int, wide_bits: int):
    """(m, s) with floor(x / k) == (x * m) >> s for every x < 2**domain_bits and x * m below
    2**wide_bits; None when no such pair exists."""
    top = (1 << domain_bits) - 1
    for s in range(domain_bits, wide_bits):
        m = -(-(1 << s) // k)
        error = m * k - (1 << s)
        if error * top < (1 << s) and m * top < (1 << wide_bits):
            return m, s
    return None


def mangle(t: ll.Type) -> str:
    if isinstance(t, ll.VectorType):
        return f"v{t.count}{mangle(t.element)}"
    if isinstance(t, ll.IntType):
        return f"i{t.width}"
    return {ll.HalfType: "f16", ll.FloatType: "f32", ll.DoubleType: "f64"}[type(t)]


def _uniform(e: ir.Expr) -> bool:
    """Whether every lane of e has one value (a scalar, a constant or a broadcast)."""
    return e.type.lanes == 1 or isinstance(e, ir.Broadcast) or ops.as_const(e) is not None


# Bits of precision of the float types (an integer up to 2 ** bits is exact in it).
_MANTISSA_BITS = {16: 11, 32: 24, 64: 53}


class ExprCodegen:
    """Expression half of the code generator; StmtCodegen adds statements."""

    module: ll.Module
    builder: ll.IRBuilder
    wasm_simd128 = False  # whether wasm SIMD intrinsics may be called (build_module sets it)
    vector_registers = True  # False for wasm without SIMD: vector math goes lane by lane to libm
    # x86's unsigned 16-bit multiply-high (pmulhuw) by vector lanes, for dividing by constants:
    # LLVM folds the generic trunc((zext a * m) >> 16) >> s back into a multiply of widened
    # lanes, twice the instructions (build_module fills it for x86 targets).
    pmulhuw: dict[int, str] = {}
    # Vector float-to-int conversions as a clamp and a plain conversion rather than
    # llvm.fpto[su]i.sat, which x86 expands lane by lane (build_module sets it for x86).
    clamp_float_to_int = False
    x86_64 = False  # x86 with 64-bit registers (build_module sets it)
    # x86's max instruction per float width: (intrinsic, lanes). maxps(a, b) is a > b ? a : b,
    # NaN in either giving b: one instruction where a select against 0 costs a compare and an
    # and. build_module sets it for x86.
    x86_fmax: dict[int, tuple[str, int]] = {}
    # Float +, - and * carry LLVM's `contract` flag, so that a multiply feeding an add may be
    # fused into one multiply-add (rounded once) where the target has the instruction, as
    # Halide's code generator allows; build_module clears it for strict_float targets.
    contract_floats = False
    # A float32/float64 quotient by a constant is a product by its reciprocal (x / 3.0 is
    # x * 0.333333f), as Halide's simplifier rewrites it, and as the reference evaluates it;
    # build_module clears it for strict_float targets, which divide.
    reciprocal_divisions = False
    # The width buffer indices are computed in (index): 64 on targets with 64-bit pointers
    # (build_module sets it), else 32.
    index_bits = 32

    def __init__(self):
        self.symbols: dict[str, ll.Value] = {}
        self.buffer_types: dict[str, Type] = {}  # element type of each buffer/allocation
        self.user_context: ll.Value = ll.Constant(PTR, None)
        # reused_conversion's float-to-int conversions: key -> (value, buffers read).
        self.conversions: dict = {}
        self.conversions_block: ll.Block | None = None
        # The strided loads of the store being generated that share dense loads
        # (interleave.strided_groups).
        self.strided_groups: dict[tuple, int] = {}

    # -- helpers -------------------------------------------------------------------------------

    def intrinsic(self, name: str, ret: ll.Type, args: list[ll.Type], overload=None):
        overload = overload if overload is not None else [ret]
        full = ".".join([name, *(mangle(t) for t in overload)])
        fn = self.module.globals.get(full)
        if fn is None:
            fn = ll.Function(self.module, ll.FunctionType(ret, args), name=full)
        return fn

    def declare(self, name: str, ret: ll.Type, args: list[ll.Type], var_arg=False):
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ll.Function(self.module, ll.FunctionType(ret, args, var_arg=var_arg), name=name)
        return fn

    def const(self, t: Type, value) -> ll.Value:
        lt = scalar(t)
        if t.is_float():
            c = ll.Constant(lt, float(value))
        elif t.is_bool():
            c = ll.Constant(I1, 1 if value else 0)
        else:
            c = ll.Constant(lt, int(value) & ((1 << t.bits) - 1))
        return c if t.lanes == 1 else ll.Constant(ll.VectorType(lt, t.lanes), [c] * t.lanes)

    def splat(self, v: ll.Value, lanes: int) -> ll.Value:
        if lanes == 1:
            return v
        vt = ll.VectorType(v.type, lanes)
        undef = ll.Constant(vt, ll.Undefined)
        first = self.builder.insert_element(undef, v, ll.Constant(I32, 0))
        return self.builder.shuffle_vector(first, undef, ll.Constant(ll.VectorType(I32, lanes),
                                                                      [0] * lanes))

    def string(self, text: str) -> ll.Value:
        strings = self.__dict__.setdefault("_strings", {})
        name = strings.setdefault(text, f".str.{len(strings)}")
        g = self.module.globals.get(name)
        if g is None:
            data = bytearray(text.encode() + b"\0")
            g = ll.GlobalVariable(self.module, ll.ArrayType(I8, len(data)), name=name)
            g.global_constant = True
            g.linkage = "private"
            g.initializer = ll.Constant(ll.ArrayType(I8, len(data)), data)
        return g.bitcast(PTR)

    # -- dispatch ------------------------------------------------------------------------------

    def expr(self, e: ir.Expr) -> ll.Value:
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:
            raise CompileError(f"LLVM codegen cannot handle {type(e).__name__}: {to_string(e)}")
        return method(e)

    def _IntImm(self, e):
        return self.const(e.type, e.value)

    _UIntImm = _IntImm
    _FloatImm = _IntImm

    def _StringImm(self, e):
        return self.string(e.value)

    def _Variable(self, e):
        try:
            return self.symbols[e.name]
        except KeyError:
            raise CompileError(f"LLVM codegen: {e.name} is not defined here") from None

    def _Broadcast(self, e):
        return self.splat(self.expr(e.value), e.lanes)

    def _Ramp(self, e):
        base = self.splat(self.expr(e.base), e.lanes)
        stride = self.splat(self.expr(e.stride), e.lanes)
        t = e.base.type
        steps = ll.Constant(ll.VectorType(scalar(t), e.lanes),
                            [ll.Constant(scalar(t), i) for i in range(e.lanes)])
        fl = self._flags(t)
        return self.builder.add(base, self.builder.mul(stride, steps, flags=fl), flags=fl)

    def _Cast(self, e):
        src, dst = e.value.type, e.type
        if self.clamp_float_to_int and src.is_float() and src.bits == 32 and src.lanes > 1 and \
                (dst.is_int() or dst.is_uint()) and not dst.is_bool() and dst.bits <= 32:
            lo, hi = _float_range(e.value)  # float32 products of constants are exact in Python
            if 0 <= lo and hi <= min(dst.max(), 2**24):  # (rounding to float32 keeps <= 2**24)
                # Within dst's range or NaN (clamp(x, 0, 1) * 65535): NaN goes to 0 with one
                # max against 0 and the rest converts plainly, no saturation.
                v = self.float_max(self.expr(e.value), self.const(src, 0.0))
                i32 = llvm_type(Type(TypeCode.INT, 32, src.lanes))
                r = self.builder.fptosi(v, i32)
                return r if dst.bits == 32 else self.builder.trunc(r, llvm_type(dst))
        if self.x86_scalar_conversion(src, dst):
            return self.reused_conversion(e)
        return self.convert(self.expr(e.value), src, dst)

    def x86_scalar_conversion(self, src: Type, dst: Type) -> bool:
        """Whether a float scalar converts to dst with x86_scalar_float_to_int (dst int64 only
        on x86-64)."""
        return self.clamp_float_to_int and src.lanes == 1 and src.is_float() and \
            src.bits in (32, 64) and dst.is_int() and \
            (dst.bits == 32 or dst.bits == 64 and self.x86_64)

    def reused_conversion(self, e: ir.Cast) -> ll.Value:
        """x86_scalar_float_to_int's value of e, the one made before where it is still valid:
        each conversion ends its basic block (its rare branch), so LLVM's CSE, which runs
        before the blocks are merged, would keep a copy of everything computed from each
        (the histogram's index is converted for its load and for its store). Valid while the
        code runs on in the block the last conversion ended in, with the same values bound to
        e's variables and no store since to a buffer e reads, nor a runtime call
        (forget_conversions)."""
        found = [n for n in walk(e.value) if isinstance(n, (ir.Variable, ir.Load, ir.Call,
                                                              ir.Let))]
        if any(isinstance(n, (ir.Call, ir.Let)) for n in found):
            return self.convert(self.expr(e.value), e.value.type, e.type)
        names = tuple(sorted({n.name for n in found if isinstance(n, ir.Variable)}))
        key = (e, tuple(id(self.symbols.get(n)) for n in names))
        if self.builder.basic_block is not self.conversions_block:
            self.conversions.clear()
        hit = self.conversions.get(key)
        if hit is not None:
            return hit[0]
        v = self.convert(self.expr(e.value), e.value.type, e.type)
        self.conversions[key] = (v, {n.name for n in found if isinstance(n, ir.Load)})
        self.conversions_block = self.builder.basic_block
        return v

    def forget_conversions(self, stored: str | None = None) -> None:
        """Drop the reusable conversions reading buffer `stored` (all of them: None)."""
        if stored is None:
            self.conversions.clear()
        else:
            self.conversions = {k: v for k, v in self.conversions.items() if stored not in v[1]}

    def float_max(self, a: ll.Value, c: ll.Value) -> ll.Value:
        """a > c ? a : c (NaN a gives c) on float vectors: x86's max instruction a native
        vector at a time where there is one for the width, else a compare and a select."""
        b = self.builder
        lanes = a.type.count
        bits = 32 if isinstance(a.type.element, ll.FloatType) else 64
        name, width = self.x86_fmax.get(bits, (None, 0))
        if name is None or lanes % width:
            return b.select(b.fcmp_ordered(">", a, c), a, c)
        native = ll.VectorType(a.type.element, width)
        fn = self.intrinsic(name, native, [native, native], [])
        undef = ll.Constant(a.type, ll.Undefined)
        parts = []
        for i in range(0, lanes, width):
            mask = ll.Constant(ll.VectorType(I32, width), list(range(i, i + width)))
            parts.append(b.call(fn, [b.shuffle_vector(a, undef, mask),
                                     b.shuffle_vector(c, undef, mask)]))
        while len(parts) > 1:
            n = parts[0].type.count
            mask = ll.Constant(ll.VectorType(I32, 2 * n), list(range(2 * n)))
            parts = [b.shuffle_vector(x, y, mask) for x, y in zip(parts[::2], parts[1::2])]
        return parts[0]

    def convert(self, v: ll.Value, src: Type, dst: Type) -> ll.Value:
        b, dt = self.builder, llvm_type(dst)
        if src == dst:
            return v
        if dst.is_bool():
            if src.is_float():
                return b.fcmp_unordered("!=", v, self.const(src, 0))
            return b.icmp_unsigned("!=", v, self.const(src, 0))
        if src.is_float() and dst.is_float():
            return b.fpext(v, dt) if dst.bits > src.bits else b.fptrunc(v, dt)
        lanes_in_simd = self.wasm_simd128 and src.lanes > 1
        if src.is_float():
            if lanes_in_simd and src.bits == 32 and dst.bits < 32:
                return self.wasm_float_to_int(v, src, dst)
            if self.clamp_float_to_int and src.lanes > 1:
                return self.clamped_float_to_int(v, src, dst)
            if self.x86_scalar_conversion(src, dst):
                return self.x86_scalar_float_to_int(v, src, dst)
            name = "llvm.fptosi.sat" if dst.is_int() else "llvm.fptoui.sat"
            fn = self.intrinsic(name, dt, [v.type], [dt, v.type])
            return b.call(fn, [v])
        if dst.is_float():
            if lanes_in_simd and src.bits < 32 and not src.is_bool() and dst.bits in (32, 64):
                return self.convert(self.wasm_small_int_to_float32(v, src), src.with_code(
                    TypeCode.FLOAT).with_bits(32), dst)
            if src.is_int():
                return b.sitofp(v, dt)
            return b.uitofp(v, dt)
        if dst.bits > src.bits:
            return b.sext(v, dt) if src.is_int() else b.zext(v, dt)
        if dst.bits < src.bits:
            return b.trunc(v, dt)
        return v

    def _Reinterpret(self, e):
        return self.builder.bitcast(self.expr(e.value), llvm_type(e.type))

    def index(self, e: ir.Expr) -> ll.Value:
        """A buffer index. A scalar int32 index on a 64-bit target is computed in 64 bits
        (wide_index), as Halide's code generator does; others as they are."""
        if self.index_bits == 64 and e.type == Int(32):
            return self.wide_index(e)
        return self.expr(e)

    def wide_index(self, e: ir.Expr) -> ll.Value:
        """An int32 index expression evaluated in int64: its sums, differences, products, mins
        and maxes are taken in 64 bits, and only their other operands (variables, loads, lets)
        are sign-extended. Since int32 arithmetic never overflows (nsw, _flags), the value is
        the same. LLVM's reassociation drops the nsw of the int32 operations it reorders, and
        an index computed in 32 bits then needs a sign extension at every load and store of an
        unrolled loop (x86: lea + movslq per access, and registers spilled around them); in 64
        bits the loop counter's extension is hoisted and addresses step by constants."""
        b = self.builder
        if isinstance(e, ir.IntImm):
            return ll.Constant(I64, e.value)
        if isinstance(e, ir.Mul) and not isinstance(e.b, ir.IntImm) and \
                isinstance(e.a, (ir.Add, ir.Sub)) and isinstance(e.a.b, ir.IntImm):
            # (a + k) * y as a * y + k * y, the second term frozen: LLVM folds a * y + k * y
            # back into (a + k) * y, and then the loads at (z + k) * stride for k = -2..2 (a
            # stencil along a loop's outer dimension) have no common part Loop Strength
            # Reduction can see: it gave each load its own pointer, incremented every
            # iteration (the bilateral grid's blur along z: 10, spilled to the stack; Halide's
            # index is z * stride plus a constant offset per load). k * y fits in 64 bits, so
            # the frozen value is never poison.
            y = self.wide_index(e.b)
            k = e.a.b.value if isinstance(e.a, ir.Add) else -e.a.b.value
            offset = self.freeze(b.mul(y, ll.Constant(I64, k), flags=("nsw",)))
            return b.add(b.mul(self.wide_index(e.a.a), y, flags=("nsw",)), offset,
                         flags=("nsw",))
        if isinstance(e, (ir.Add, ir.Sub, ir.Mul)):
            a, c = self.wide_index(e.a), self.wide_index(e.b)
            op = {ir.Add: b.add, ir.Sub: b.sub, ir.Mul: b.mul}[type(e)]
            return op(a, c, flags=("nsw",))
        if isinstance(e, (ir.Min, ir.Max)):
            a, c = self.wide_index(e.a), self.wide_index(e.b)
            name = "llvm.smin" if isinstance(e, ir.Min) else "llvm.smax"
            return b.call(self.intrinsic(name, I64, [I64, I64]), [a, c])
        return b.sext(self.expr(e), I64)

    def freeze(self, v: ll.Value) -> ll.Value:
        """LLVM's freeze of v (llvmlite's builder has none): v itself where it is not poison,
        and opaque to the folds of InstCombine."""
        instr = ll.instructions.Instruction(self.builder.block, v.type, "freeze", [v])
        self.builder._insert(instr)
        return instr

    def _flags(self, t: Type) -> tuple[str, ...]:
        """Signed 32/64-bit +, - and * never overflow (Halide leaves that undefined and marks
        them so): `nsw` lets LLVM widen the index arithmetic of every load, inside index() or
        in a let computed before it, to pointer width without a sign extension. Narrower and
        unsigned types wrap, so they take no flag."""
        return ("nsw",) if t.is_int() and t.bits >= 32 else ()

    def _float_flags(self) -> tuple[str, ...]:
        return ("contract",) if self.contract_floats else ()

    def _Add(self, e):
        a, c = self.expr(e.a), self.expr(e.b)
        if e.type.is_float():
            return self.builder.fadd(a, c, flags=self._float_flags())
        return self.builder.add(a, c, flags=self._flags(e.type))

    def _Sub(self, e):
        a, c = self.expr(e.a), self.expr(e.b)
        if e.type.is_float():
            return self.builder.fsub(a, c, flags=self._float_flags())
        return self.builder.sub(a, c, flags=self._flags(e.type))

    def _Mul(self, e):
        a, c = self.expr(e.a), self.expr(e.b)
        if e.type.is_float():
            return self.builder.fmul(a, c, flags=self._float_flags())
        return self.builder.mul(a, c, flags=self._flags(e.type))

    def _Div(self, e):
        return self.division(e, want_quotient=True)

    def _Mod(self, e):
        return self.division(e, want_quotient=False)

    def division(self, e, want_quotient: bool) -> ll.Value:
        b, t = self.builder, e.type
        a, d = self.expr(e.a), self.expr(e.b)
        if t.is_float():
            r = float_reciprocal(ops.as_const(e.b), t) if self.reciprocal_divisions else None
            if want_quotient and r is not None:  # x / c is x * (1/c), as in Halide
                return b.fmul(a, self.const(t, float(r)), flags=self._float_flags())
            if want_quotient:
                return b.fdiv(a, d)
            q = b.fdiv(a, d)
            fl = b.call(self.intrinsic("llvm.floor", q.type, [q.type]), [q])
            return b.fsub(a, b.fmul(d, fl, flags=self._float_flags()), flags=self._float_flags())
        k = ops.as_const(e.b)
        if k is not None and k > 0 and k & (k - 1) == 0:  # powers of two: shifts and masks
            shift = int(math.log2(k))
            if want_quotient:
                amount = self.const(t, shift)
                return b.ashr(a, amount) if t.is_int() else b.lshr(a, amount)
            return b.and_(a, self.const(t, k - 1))
        if k is not None and k > 0 and t.lanes > 1 and t.bits <= 32:
            fast = self.divide_by_constant(a, k, t, want_quotient)
            if fast is not None:
                return fast
        if t.lanes > 1 and t.bits <= 32 and self.vector_registers:
            return self.divide_in_floats(a, d, t, want_quotient)
        zero = self.const(t, 0)
        one = self.const(t, 1)
        is_zero = b.icmp_unsigned("==", d, zero)
        safe = b.select(is_zero, one, d)
        if t.is_uint():
            r = b.udiv(a, safe) if want_quotient else b.urem(a, safe)
            return b.select(is_zero, zero, r)
        # INT_MIN / -1 overflows (and traps in wasm): divide by 1 instead, which gives the
        # wrapped quotient INT_MIN and remainder 0.
        overflow = b.and_(b.icmp_signed("==", a, self.const(t, t.min())),
                          b.icmp_signed("==", d, self.const(t, -1)))
        safe = b.select(overflow, one, safe)
        q, r = b.sdiv(a, safe), b.srem(a, safe)
        negative_r = b.icmp_signed("<", r, zero)
        positive_d = b.icmp_signed(">", safe, zero)
        if want_quotient:
            step = b.select(positive_d, self.const(t, -1), one)
            result = b.select(negative_r, b.add(q, step), q)
        else:
            magnitude = b.select(positive_d, safe, b.sub(zero, safe))
            result = b.select(negative_r, b.add(r, magnitude), r)
        return b.select(is_zero, zero, result)

    def divide_by_constant(self, a, k: int, t: Type, want_quotient: bool):
        """Vector a / k (k > 0) as a widening multiply and shift, so it stays in vector
        registers (wasm has no vector division). Signed values divide their bitwise
        complement when negative: floor(a / k) == ~(~a / k) for a < 0."""
        b = self.builder
        domain = t.bits - 1 if t.is_int() else t.bits
        magic = _magic(k, domain, 2 * t.bits)
        if magic is None:
            return None
        m, shift = magic
        wide = Type(t.code, 2 * t.bits, t.lanes)
        x = a
        if t.is_int():
            sign = b.ashr(a, self.const(t, t.bits - 1))
            x = b.xor(a, sign)
        pmulhuw = self.pmulhuw.get(t.lanes) if t.bits == 16 else None
        if pmulhuw and shift >= 16 and m < 1 << 16:  # the product's high half, shifted further
            lt = llvm_type(t)
            high = b.call(self.intrinsic(pmulhuw, lt, [lt, lt], overload=[]),
                          [x, self.const(t, m)])
            q = b.lshr(high, self.const(t, shift - 16))
        else:
            xw = b.zext(x, llvm_type(wide))
            q = b.trunc(b.lshr(b.mul(xw, self.const(wide, m)), self.const(wide, shift)),
                        llvm_type(t))
        if t.is_int():
            q = b.xor(q, sign)
        if want_quotient:
            return q
        return b.sub(a, b.mul(q, self.const(t, k)))

    def divide_in_floats(self, a, d, t: Type, want_quotient: bool):
        """Vector Euclidean a / d and a % d through a float division: wasm and SSE have no
        vector integer division, and dividing lane by lane costs an extract, a trapping
        scalar divide and an insert per lane. The quotient is exact: with |a| < 2**n and
        0 < |d| < 2**n, a / |d| lies at least 1 / |d| from the next integer unless it is one,
        and the rounding error is below 2**n / |d| * 2**-p, so float32 (p = 24) serves n <= 16
        and float64 (p = 53) serves n <= 32."""
        b = self.builder
        ft = t.with_code(TypeCode.FLOAT).with_bits(64 if t.bits == 32 else 32)
        lft = llvm_type(ft)
        zero = self.const(t, 0)
        is_zero = b.icmp_unsigned("==", d, zero)
        # Dividing by 1 where d == 0 keeps every quotient finite and in range; the select at
        # the end gives those lanes their 0.
        safe = b.select(is_zero, self.const(t, 1), d)
        fa, fd = self.convert(a, t, ft), self.convert(safe, t, ft)
        if t.is_int():
            # Euclidean: q = sign(d) * floor(a / |d|). floor(a / |d|) always fits in t, and
            # negating it in integers wraps INT_MIN / -1 to INT_MIN, as the scalar path does.
            fd = b.call(self.intrinsic("llvm.fabs", lft, [lft]), [fd])
        fq = b.call(self.intrinsic("llvm.floor", lft, [lft]), [b.fdiv(fa, fd)])
        q = self.whole_float_to_int(fq, ft, t)
        if t.is_int():
            q = b.select(b.icmp_signed("<", d, zero), b.sub(zero, q), q)
        result = q if want_quotient else b.sub(a, b.mul(q, d))
        return b.select(is_zero, zero, result)

    def whole_float_to_int(self, v, src: Type, dst: Type):
        """Float lanes holding whole numbers that dst represents, to dst. Once 1.5 * 2**52 is
        added, a float64's low 32 bits hold v in two's complement, which wasm computes in
        vector registers; LLVM converts float64 vectors to int32 lane by lane, and folds the
        pattern its vector conversion is selected from away before instruction selection."""
        b = self.builder
        if not (self.wasm_simd128 and src.bits == 64 and dst.bits == 32):
            return self.convert(v, src, dst)
        biased = b.fadd(v, self.const(src, 1.5 * 2.0 ** 52))
        words = b.bitcast(biased, ll.VectorType(I32, 2 * src.lanes))
        low = ll.Constant(ll.VectorType(I32, src.lanes), list(range(0, 2 * src.lanes, 2)))
        return b.shuffle_vector(words, words, low)

    # wasm SIMD converts between float and int only in 32-bit lanes (and int32 to float64);
    # LLVM 20 scalarizes the other vector conversions lane by lane.

    def wasm_small_int_to_float32(self, v, src: Type):
        """8- and 16-bit lanes to float32 through the float's bits: 2**23 + u has u in its
        mantissa (signed lanes add 2**22 more), so an or (an add) and a subtraction convert
        exactly. A sitofp of the extended lanes would be folded back into the scalarized one."""
        b = self.builder
        wide = src.with_bits(32)
        f32 = ll.VectorType(ll.FloatType(), src.lanes)
        v = self.convert(v, src, wide)
        if src.is_uint():
            bits, bias = b.or_(v, self.const(wide, 0x4B000000)), 2.0 ** 23
        else:
            bits, bias = b.add(v, self.const(wide, 0x4B400000)), 1.5 * 2.0 ** 23
        return b.fsub(b.bitcast(bits, f32), ll.Constant(f32, [ll.Constant(ll.FloatType(), bias)]
                                                         * src.lanes))

    def clamped_float_to_int(self, v, src: Type, dst: Type):
        """Float lanes to int lanes with llvm.fpto[su]i.sat's values (NaN to 0, the rest
        clamped to dst's range), as a plain conversion and three selects over its result
        (a lane out of range converts to poison, which a select that does not pick it drops):
        x86 has no saturating vector conversion, and LLVM expands the intrinsic lane by lane
        with compares and branches (the local Laplacian's 16 remap indices per vector spent
        most of its time there)."""
        import numpy as np
        b = self.builder
        lo = self.const(src, float(src.dtype.type(dst.min())))  # 0 or -2**(bits-1): exact
        top = src.dtype.type(dst.max())
        if float(top) > dst.max():  # rounded up, out of dst's range: the float below it
            top = np.nextafter(top, src.dtype.type(0))
        hi = self.const(src, float(top))
        r = b.fptosi(v, llvm_type(dst)) if dst.is_int() else b.fptoui(v, llvm_type(dst))
        r = b.select(b.fcmp_ordered("<", v, lo), self.const(dst, dst.min()), r)
        r = b.select(b.fcmp_ordered(">", v, hi), self.const(dst, dst.max()), r)
        return b.select(b.fcmp_unordered("uno", v, v), self.const(dst, 0), r)

    def x86_scalar_float_to_int(self, v, src: Type, dst: Type):
        """A float scalar to int32/int64 with llvm.fptosi.sat's values, as x86's truncating
        conversion (cvttss2si/cvttsd2si), which gives the type's minimum for NaN and values out
        of range, and a rarely taken branch that corrects those: one compare and a branch
        predicted not taken where LLVM's expansion of the intrinsic has two compares and
        branches (or selects) on every value (the bilateral grid's histogram index)."""
        b = self.builder
        vt = ll.VectorType(v.type, 128 // src.bits)
        name = {32: "llvm.x86.sse.cvttss2si", 64: "llvm.x86.sse2.cvttsd2si"}[src.bits]
        dt = llvm_type(dst)
        fn = self.intrinsic(name + ("64" if dst.bits == 64 else ""), dt, [vt], [])
        r = b.call(fn, [b.insert_element(ll.Constant(vt, ll.Undefined), v, ll.Constant(I32, 0))])
        lowest = self.const(dst, dst.min())
        before = b.basic_block
        fix = b.append_basic_block("f2i.saturate")
        done = b.append_basic_block("f2i.done")
        b.cbranch(b.icmp_signed("==", r, lowest), fix, done).set_weights([1, 1 << 20])
        b.position_at_end(fix)
        big = b.select(b.fcmp_ordered(">", v, self.const(src, 0.0)), self.const(dst, dst.max()),
                       lowest)
        fixed = b.select(b.fcmp_unordered("uno", v, v), self.const(dst, 0), big)
        b.branch(done)
        b.position_at_end(done)
        phi = b.phi(dt)
        phi.add_incoming(r, before)
        phi.add_incoming(fixed, fix)
        return phi

    def wasm_float_to_int(self, v, src: Type, dst: Type):
        """float32 lanes to 8- or 16-bit int lanes, saturating (NaN to 0): to int32 lanes
        (wasm's trunc_sat), then narrowed with saturation."""
        i32 = Type(TypeCode.INT, 32, src.lanes)  # unsigned lanes too: narrow clamps below 0
        lt = llvm_type(i32)
        fn = self.intrinsic("llvm.fptosi.sat", lt, [v.type], [lt, v.type])
        return simd_idioms.wasm_narrow(self, self.builder.call(fn, [v]), i32, dst)

    def _min_max(self, e, is_min: bool):
        clamped = self.clamped_conversion(e)
        if clamped is not None:
            return clamped
        a, c = self.expr(e.a), self.expr(e.b)
        t = e.type
        if t.is_float():
            # One comparison and a select, b when it is smaller (larger), else a: wasm's pmin and
            # pmax, x86's minps and maxps. llvm.minimum's NaN rules cost V8 six instructions.
            b = self.builder
            take_b = b.fcmp_ordered("<", c, a) if is_min else b.fcmp_ordered("<", a, c)
            return b.select(take_b, c, a)
        elif t.is_int():
            name = "llvm.smin" if is_min else "llvm.smax"
        else:
            name = "llvm.umin" if is_min else "llvm.umax"
        return self.builder.call(self.intrinsic(name, a.type, [a.type, a.type]), [a, c])

    def clamped_conversion(self, e) -> ll.Value | None:
        """clamp(int(f), lo, hi) with constants 0 <= lo <= hi (max(min(...)) or min(max(...)))
        for a float f, clamped in floats and converted without saturation: the float clamp
        already keeps the value in range, and it sends NaN to lo as int's saturation (NaN to 0)
        then the clamp do, so the value is the same. On x86 a vector's saturating conversion
        costs three compares and blends (clamped_float_to_int), a scalar's two branches; the
        index of a lookup table (clamp(i32(v * n), 0, n)) was paying that for every lane."""
        outer_min = isinstance(e, ir.Min)
        inner = e.a
        if not isinstance(inner, ir.Max if outer_min else ir.Min):
            return None
        cast = inner.a
        lo, hi = (ops.as_const(inner.b), ops.as_const(e.b)) if outer_min else \
            (ops.as_const(e.b), ops.as_const(inner.b))
        if not isinstance(cast, ir.Cast) or not cast.value.type.is_float() or \
                not (cast.type.is_int() or cast.type.is_uint()) or cast.type.is_bool() or \
                not isinstance(lo, int) or not isinstance(hi, int) or \
                not 0 <= lo <= hi <= cast.type.max() or \
                hi > 1 << _MANTISSA_BITS.get(cast.value.type.bits, 0):  # exact in the float
            return None
        src = cast.value.type
        b = self.builder
        f = self.expr(cast.value)
        flo, fhi = self.const(src, float(lo)), self.const(src, float(hi))
        f = b.select(b.fcmp_ordered(">", f, fhi), fhi, f)  # NaN stays
        f = self.float_max(f, flo) if src.lanes > 1 else \
            b.select(b.fcmp_ordered(">", f, flo), f, flo)  # NaN becomes lo
        dt = llvm_type(cast.type)
        return b.fptosi(f, dt) if cast.type.is_int() else b.fptoui(f, dt)

    def _Min(self, e):
        return self._min_max(e, True)

    def _Max(self, e):
        return self._min_max(e, False)

    def _compare(self, e):
        a, c = self.expr(e.a), self.expr(e.b)
        t = e.a.type
        if t.is_float():
            op, ordered = _FCMP[type(e)]
            return self.builder.fcmp_ordered(op, a, c) if ordered else \
                self.builder.fcmp_unordered(op, a, c)
        if t.is_int():
            return self.builder.icmp_signed(_ICMP_SIGNED[type(e)], a, c)
        return self.builder.icmp_unsigned(_ICMP_SIGNED[type(e)], a, c)

    _EQ = _NE = _LT = _LE = _GT = _GE = _compare

    def _And(self, e):
        return self.builder.and_(self.expr(e.a), self.expr(e.b))

    def _Or(self, e):
        return self.builder.or_(self.expr(e.a), self.expr(e.b))

    def _Not(self, e):
        return self.builder.not_(self.expr(e.a))

    def _Select(self, e):
        c = self.expr(e.condition)
        return self.builder.select(c, self.expr(e.true_value), self.expr(e.false_value))

    def _Let(self, e):
        old = self.symbols.get(e.name)
        self.symbols[e.name] = self.expr(e.value)
        try:
            return self.expr(e.body)
        finally:
            if old is None:
                del self.symbols[e.name]
            else:
                self.symbols[e.name] = old

    # -- memory --------------------------------------------------------------------------------

    def element_pointer(self, name: str, index: ll.Value, elem: ll.Type) -> ll.Value:
        return self.builder.gep(self.symbols[name], [index], source_etype=elem)

    def tbaa(self, access: ll.Instruction, name: str) -> ll.Instruction:
        """access (a load or store of buffer `name`) tagged with the buffer's own TBAA type:
        accesses to different buffers never alias (as Halide assumes of its buffers), so LLVM
        may keep loads of an input in registers across stores to the output, reuse them
        between unrolled stores, and hoist loop-invariant ones."""
        tags = self.module.__dict__.setdefault("_webhal_tbaa", {})
        tag = tags.get(name)
        if tag is None:
            root = tags.get(None)
            if root is None:
                root = tags[None] = self.module.add_metadata(["webhal buffers"])
            node = self.module.add_metadata([name, root, ll.Constant(I64, 0)])
            tag = tags[name] = self.module.add_metadata([node, node, ll.Constant(I64, 0)])
        access.set_metadata("tbaa", tag)
        if isinstance(access, ll.StoreInstr):
            self.forget_conversions(name)
        return access

    def _Load(self, e):
        t = e.type
        elem = memory_type(t.element_of())
        if t.lanes == 1:
            v = self.tbaa(self.builder.load(
                self.element_pointer(e.name, self.index(e.index), elem), typ=elem,
                align=t.bytes), e.name)
            return self.builder.trunc(v, I1) if t.is_bool() else v
        if isinstance(e.index, ir.Ramp) and ops.is_const(e.index.stride, 1):
            p = self.element_pointer(e.name, self.index(e.index.base), elem)
            vt = memory_type(t)
            v = self.tbaa(self.builder.load(p, typ=vt, align=t.bytes), e.name)
        elif e.predicate is None and (stride := interleave.small_stride(e.index)):
            p = self.element_pointer(e.name, self.index(e.index.base), elem)
            place = self.strided_groups.get((e.name, stride, t.lanes, e.index.base))
            if place is not None:
                v = interleave.grouped_strided_load(self.builder, p, elem, t.lanes, stride,
                                                    place, t.bytes,
                                                    lambda load: self.tbaa(load, e.name))
            else:
                v = interleave.strided_load(self.builder, p, elem, t.lanes, stride, t.bytes,
                                            lambda load: self.tbaa(load, e.name))
        elif e.predicate is None and (phased := interleave.phased_index(e.index)) and \
                (v := self.phased_load(e, phased)) is not None:
            pass
        else:
            def gather():
                idx = self.index(e.index)
                v = ll.Constant(memory_type(t), ll.Undefined)
                for i in range(t.lanes):
                    lane = self.builder.extract_element(idx, ll.Constant(I32, i))
                    x = self.tbaa(self.builder.load(self.element_pointer(e.name, lane, elem),
                                                    typ=elem, align=t.bytes), e.name)
                    v = self.builder.insert_element(v, x, ll.Constant(I32, i))
                return v
            chunks = t.lanes * t.bytes // 16
            clamped = None
            if self.wasm_simd128 and not t.is_bool() and t.lanes * t.bytes % 16 == 0 \
                    and chunks & (chunks - 1) == 0:
                clamped = clamped_loads.match(e.index)
            v = clamped_loads.emit(self, e, clamped, gather) if clamped else gather()
        return self.builder.trunc(v, llvm_type(t)) if t.is_bool() else v

    def phased_load(self, e, phased: interleave.PhasedIndex) -> ll.Value | None:
        """A load at x / d and x % d of a dense ramp x (interleave.phased_load), or None."""
        elem = memory_type(e.type.element_of())
        d = ops.const(phased.divisor)
        start = self.index(ops.add(ops.mul(ops.div(phased.ramp_base, d), ops.const(phased.coef)),
                                   phased.uniform))
        phase = self.expr(ops.mod(phased.ramp_base, d))

        def pointer(offset: ll.Value) -> ll.Value:
            if offset.type != start.type:
                offset = self.builder.sext(offset, start.type)
            return self.element_pointer(e.name, self.builder.add(start, offset, flags=("nsw",)),
                                        elem)
        return interleave.phased_load(self.builder, pointer, phase, elem, phased.patterns,
                                      e.type.bytes, lambda load: self.tbaa(load, e.name))

    # -- calls ---------------------------------------------------------------------------------

    def _Call(self, e):
        match e.call_type:
            case ir.CallType.INTRINSIC:
                return self.call_intrinsic(e)
            case ir.CallType.PURE_EXTERN:
                return self.call_math(e)
            case ir.CallType.RUNTIME:
                return self.call_runtime(e)
        raise CompileError(f"LLVM codegen: unlowered call {to_string(e)}")

    def call_runtime(self, e) -> ll.Value:
        if e.name == abi.PRINT_FUNCTION:
            return self.call_print(e)
        if e.name == abi.REQUIREMENT_FUNCTION:
            return self.call_requirement(e)
        self.forget_conversions()  # (it might write to memory)
        args, types = [self.user_context], [PTR]
        for a in e.args:
            v = self.expr(a)
            args.append(v)
            types.append(PTR if isinstance(a, ir.StringImm) else v.type)
        fn = self.declare(e.name, I32, types)
        return self.builder.call(fn, args)

    def call_print(self, e) -> ll.Value:
        """webhal_print(uc, kinds, values) where the condition (the first argument) holds."""
        b = self.builder
        if e.args[0].type.lanes > 1:
            raise CompileError(f"LLVM codegen: a print under a vector condition {to_string(e)}")
        with b.if_then(self.expr(e.args[0])):
            kinds, values = self.pack_pieces(e.args[1:])
            fn = self.declare(abi.PRINT_FUNCTION, I32, [PTR, PTR, PTR])
            b.call(fn, [self.user_context, kinds, values])
        return ll.Constant(I32, 0)

    def call_print_lanes(self, e) -> ll.Value:
        """hl.print in a vectorized loop: each lane where the condition holds prints its own
        line, lane 0 first."""
        b = self.builder
        cond = self.expr(e.args[0])
        values = {i: self.expr(p) for i, p in enumerate(e.args[1:])
                  if not isinstance(p, ir.StringImm)}
        fn = self.declare(abi.PRINT_FUNCTION, I32, [PTR, PTR, PTR])
        for lane in range(e.args[0].type.lanes):
            with b.if_then(b.extract_element(cond, ll.Constant(I32, lane))):
                pieces = [p if isinstance(p, ir.StringImm) else
                          (p.type.with_lanes(1), b.extract_element(values[i],
                                                                   ll.Constant(I32, lane)))
                          for i, p in enumerate(e.args[1:])]
                kinds, slots = self.pack_pieces(pieces)
                b.call(fn, [self.user_context, kinds, slots])
        return ll.Constant(I32, 0)

    def call_requirement(self, e) -> ll.Value:
        """webhal_error_requirement_failed(uc, condition, kinds, values): its error code."""
        kinds, values = self.pack_pieces(e.args[1:])
        fn = self.declare(abi.REQUIREMENT_FUNCTION, I32, [PTR, PTR, PTR, PTR])
        return self.builder.call(fn, [self.user_context, self.expr(e.args[0]), kinds, values])

    def pack_pieces(self, pieces) -> tuple[ll.Value, ll.Value]:
        """The `kinds` string and `values` array of webhal_print's convention (abi.PRINT_KINDS):
        each piece in one 64-bit slot of a stack array; a vector piece (a trace line in a
        vectorized loop) as `<lane0, lane1, ...>`."""
        b = self.builder
        items: list[tuple[str, ll.Value]] = []
        for p in pieces:
            if isinstance(p, ir.StringImm):
                items.append(("s", self.string(p.value)))
                continue
            if isinstance(p, tuple):  # (type, a value already computed)
                items.append((abi.print_kind(p[0]), p[1]))
                continue
            v, kind = self.expr(p), abi.print_kind(p.type)
            if p.type.lanes == 1:
                items.append((kind, v))
                continue
            items.append(("s", self.string("<")))
            for i in range(p.type.lanes):
                if i:
                    items.append(("s", self.string(", ")))
                items.append((kind, b.extract_element(v, ll.Constant(I32, i))))
            items.append(("s", self.string(">")))
        with b.goto_block(self.entry_block):
            b.position_at_start(self.entry_block)
            slots = b.alloca(ll.ArrayType(I64, max(1, len(items))), name="print.values")
        for i, (kind, v) in enumerate(items):
            match kind:
                case "s":
                    v = b.ptrtoint(v, I64)
                case "f" | "d":
                    v = b.bitcast(v if kind == "d" else b.fpext(v, ll.DoubleType()), I64)
                case "i":
                    v = b.sext(v, I64) if v.type.width < 64 else v
                case _:
                    v = b.zext(v, I64) if v.type.width < 64 else v
            b.store(v, b.gep(slots, [ll.Constant(I32, 0), ll.Constant(I32, i)]))
        start = b.gep(slots, [ll.Constant(I32, 0), ll.Constant(I32, 0)])
        return self.string("".join(k for k, _ in items)), b.bitcast(start, PTR)

    def call_intrinsic(self, e) -> ll.Value:
        b, t = self.builder, e.type
        if e.name == "return_second":
            self.expr(e.args[0])
            return self.expr(e.args[1])
        if e.name == "trace_print":
            return self.call_print(e)
        if e.name == "print_lanes":
            return self.call_print_lanes(e)
        args = [self.expr(a) for a in e.args]
        lt = llvm_type(t)
        match e.name:
            case "bitwise_and":
                return b.and_(*args)
            case "bitwise_or":
                return b.or_(*args)
            case "bitwise_xor":
                return b.xor(*args)
            case "bitwise_not":
                return b.not_(args[0])
            case "shift_left" | "shift_right":
                return self.shift(e, args)
            case "abs":
                src = e.args[0].type
                if src.is_float():
                    return b.call(self.intrinsic("llvm.fabs", lt, [lt]), args)
                if src.is_uint():
                    return args[0]
                return b.call(self.intrinsic("llvm.abs", lt, [lt, I1]),
                              [args[0], ll.Constant(I1, 0)])
            case "popcount":
                return b.call(self.intrinsic("llvm.ctpop", lt, [lt]), args)
            case "count_leading_zeros":
                return b.call(self.intrinsic("llvm.ctlz", lt, [lt, I1]),
                              [args[0], ll.Constant(I1, 0)])
            case "count_trailing_zeros":
                return b.call(self.intrinsic("llvm.cttz", lt, [lt, I1]),
                              [args[0], ll.Constant(I1, 0)])
            case "likely":
                return args[0]
            case "floor" | "ceil" | "trunc" | "round":
                name = {"round": "roundeven"}.get(e.name, e.name)
                return b.call(self.intrinsic(f"llvm.{name}", lt, [lt]), args)
            case "is_nan":
                return b.fcmp_unordered("uno", args[0], args[0])
            case "is_inf" | "is_finite":
                at = args[0].type
                fabs = b.call(self.intrinsic("llvm.fabs", at, [at]), args)
                inf = self.const(e.args[0].type, float("inf"))
                if e.name == "is_inf":
                    return b.fcmp_ordered("==", fabs, inf)
                return b.fcmp_ordered("<", fabs, inf)
            case name if name in simd_idioms.IDIOMS:
                return simd_idioms.emit(self, e, args)
        raise CompileError(f"LLVM codegen has no rule for intrinsic {e.name}")

    def shift(self, e, args) -> ll.Value:
        t, by = e.type, e.args[1].type
        a, amount = args
        k = ops.as_const(e.args[1])
        if self.wasm_simd128 and t.lanes > 1 and t.bits < 32 and not _uniform(e.args[1]):
            return self._shift_by_lane_amounts(e.name, t, by, a, amount)
        return self._shift(e.name, t, by, a, amount, k)

    def _shift_by_lane_amounts(self, name: str, t: Type, by: Type, a: ll.Value,
                               amount: ll.Value) -> ll.Value:
        """A vector of 8- or 16-bit lanes shifted by an amount per lane, for wasm SIMD.

        wasm shifts every lane by one amount, so LLVM 22 splits such a shift into i32 shifts
        per lane, and there it extends 8/16-bit lanes the wrong way (a constant u16(65534) is
        i32 -2, so `>> 1` gives 65535). So the shift is done on 32-bit lanes that webhal
        extends itself, wrapped to t's width there, and narrowed back by wasm's `narrow`
        instructions (exact, since every lane is in t's range). Not by `trunc`: LLVM turns
        trunc(lshr(zext a, n)) back into a 16-bit shift whenever it knows n < 16."""
        b = self.builder
        wide, wide_by = t.with_bits(32), by.with_bits(32)
        v = self._shift(name, wide, wide_by, self.convert(a, t, wide),
                        self.convert(amount, by, wide_by), None)
        if t.is_uint():
            v = b.and_(v, self.const(wide, (1 << t.bits) - 1))
        else:
            spare = self.const(wide, 32 - t.bits)
            v = b.ashr(b.shl(v, spare), spare)
        return simd_idioms.wasm_narrow(self, v, wide, t)

    def _shift(self, name: str, t: Type, by: Type, a: ll.Value, amount: ll.Value,
               k: int | None) -> ll.Value:
        """a (of type t) shifted by `amount` (of type `by`, the constant k if known)."""
        b = self.builder
        left = name == "shift_left"

        def do(left_: bool, x, n):
            if left_:
                return b.shl(x, n)
            return b.ashr(x, n) if t.is_int() else b.lshr(x, n)
        if by.is_int() and k is None:
            # A negative amount shifts the other way.
            zero = self.const(by, 0)
            negative = b.icmp_signed("<", amount, zero)
            magnitude = b.select(negative, b.sub(zero, amount), amount)
            return b.select(negative, do(not left, a, magnitude), do(left, a, magnitude))
        if k is not None and k < 0:
            return do(not left, a, self.const(by, -k))
        return do(left, a, amount)

    def call_math(self, e) -> ll.Value:
        b, t = self.builder, e.type
        args = [self.expr(a) for a in e.args]
        lt = llvm_type(t)
        if e.name == "sqrt":
            return b.call(self.intrinsic("llvm.sqrt", lt, [lt]), args)
        if e.name not in _LIBM:
            raise CompileError(f"LLVM codegen has no math function {e.name}")
        if t.lanes > 1 and t.bits == 32 and e.name in ("exp", "log", "pow") and \
                self.vector_registers:
            from webhal.codegen.llvm.vector_math import VectorMath
            return getattr(VectorMath(self, lt), e.name)(*args)
        # libm works on scalars of 32 or 64 bits: widen half floats, split vectors.
        work = t.element_of() if t.bits != 16 else Type(t.code, 32)
        wt = scalar(work)
        fn = self.declare(e.name + ("f" if work.bits == 32 else ""), wt, [wt] * len(args))

        def one(values):
            values = [self.convert(v, t.element_of(), work) for v in values]
            return self.convert(b.call(fn, values), work, t.element_of())
        if t.lanes == 1:
            return one(args)
        out = ll.Constant(lt, ll.Undefined)
        for i in range(t.lanes):
            lanes = [b.extract_element(a, ll.Constant(I32, i)) for a in args]
            out = b.insert_element(out, one(lanes), ll.Constant(I32, i))
        return out


def _float_range(e: ir.Expr) -> tuple[float, float]:
    """Bounds of a float expression's non-NaN values from its constants, its min/max against
    constants, and products and sums with constants; (-inf, inf) where nothing is known."""
    inf = float("inf")
    c = ops.as_const(e)
    if c is not None:
        return float(c), float(c)
    if isinstance(e, ir.Min | ir.Max):
        (alo, ahi), (blo, bhi) = _float_range(e.a), _float_range(e.b)
        if isinstance(e, ir.Min):
            return min(alo, blo), min(ahi, bhi)
        return max(alo, blo), max(ahi, bhi)
    if isinstance(e, ir.Mul | ir.Add):
        (alo, ahi), (blo, bhi) = _float_range(e.a), _float_range(e.b)
        if not all(map(math.isfinite, (alo, ahi, blo, bhi))):
            return -inf, inf
        if isinstance(e, ir.Add):
            return alo + blo, ahi + bhi
        corners = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return min(corners), max(corners)
    return -inf, inf
