"""One legalized kernel (codegen/wgsl/legalize: scalars only, no Let expressions, shifts by
unsigned amounts) as a SPIR-V entry point function.

Values are SSA ids; loop counters live in Function variables, so no phi is needed; control flow
is structured (every `if` has a selection merge, every loop a loop merge), as Vulkan requires.
Each IR operation maps to SPIR-V with Halide's semantics where SPIR-V leaves them open or
undefined, the same choices as the WGSL printer's helpers: Euclidean integer division and
modulo with zero for a zero divisor (and no undefined INT_MIN / -1), the CPU targets' NaN rule
for float min and max, saturating float-to-int conversion with NaN to 0, C's pow, and
round-half-to-even."""

from __future__ import annotations

from dataclasses import dataclass

from webhal.codegen.spirv.builder import ModuleBuilder, instruction
from webhal.codegen.spirv.spec import GLSL, Op, Scope, Semantics, StorageClass
from webhal.codegen.wgsl.legalize.nodes import power_of_two
from webhal.codegen.wgsl.legalize.pack_storage import ATOMIC_AND, ATOMIC_OR
from webhal.codegen.wgsl.legalize.scalarize import MAKE_VECTOR, VECTOR_LANE
from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.printing import is_print
from webhal.ir.schedule import ForType
from webhal.ir.types import Float, Int, Type, UInt
from webhal.ir.visitor import walk
from webhal.passes.offload_gpu_loops import thread_nest

I32, U32, F32 = Int(32), UInt(32), Float(32)

_ARITH = {ir.Add: (Op.IAdd, Op.FAdd), ir.Sub: (Op.ISub, Op.FSub), ir.Mul: (Op.IMul, Op.FMul)}
# (signed, unsigned, float) comparisons
_COMPARE = {ir.LT: (Op.SLessThan, Op.ULessThan, Op.FOrdLessThan),
            ir.LE: (Op.SLessThanEqual, Op.ULessThanEqual, Op.FOrdLessThanEqual),
            ir.GT: (Op.SGreaterThan, Op.UGreaterThan, Op.FOrdGreaterThan),
            ir.GE: (Op.SGreaterThanEqual, Op.UGreaterThanEqual, Op.FOrdGreaterThanEqual),
            ir.EQ: (Op.IEqual, Op.IEqual, Op.FOrdEqual),
            ir.NE: (Op.INotEqual, Op.INotEqual, Op.FUnordNotEqual)}
_LOGICAL = {ir.EQ: Op.LogicalEqual, ir.NE: Op.LogicalNotEqual}
_MATH = {"sqrt": GLSL.Sqrt, "exp": GLSL.Exp, "log": GLSL.Log, "sin": GLSL.Sin, "cos": GLSL.Cos,
         "tan": GLSL.Tan, "asin": GLSL.Asin, "acos": GLSL.Acos, "atan": GLSL.Atan,
         "atan2": GLSL.Atan2, "sinh": GLSL.Sinh, "cosh": GLSL.Cosh, "tanh": GLSL.Tanh,
         "asinh": GLSL.Asinh, "acosh": GLSL.Acosh, "atanh": GLSL.Atanh}
_ROUNDING = {"floor": GLSL.Floor, "ceil": GLSL.Ceil, "round": GLSL.RoundEven,
             "trunc": GLSL.Trunc}
_BITWISE = {"bitwise_and": (Op.BitwiseAnd, Op.LogicalAnd),
            "bitwise_or": (Op.BitwiseOr, Op.LogicalOr),
            "bitwise_xor": (Op.BitwiseXor, Op.LogicalNotEqual)}
_ATOMICS = {ATOMIC_AND: Op.AtomicAnd, ATOMIC_OR: Op.AtomicOr}
_FLOAT_TESTS = {"is_nan": Op.UGreaterThan, "is_inf": Op.IEqual, "is_finite": Op.ULessThan}


@dataclass(frozen=True)
class Memory:
    """How a kernel reaches one buffer or array: its variable, its storage class, the IR type
    of its elements as stored (words for packed buffers), whether they are atomic, and whether
    elements sit in member 0 of a block (buffers) or directly in the variable (arrays)."""

    var: int
    storage: StorageClass
    type: Type
    atomic: bool = False
    in_block: bool = True


class KernelEmitter:
    """Writes one kernel's entry point function into module `m`. `scalars` maps each scalar
    argument to its member index in `push_constants` (a PushConstant block variable);
    `local` lists Function-scope arrays, declared at the function's start."""

    def __init__(self, m: ModuleBuilder, memory: dict[str, Memory],
                 scalars: dict[str, tuple[int, Type]], push_constants: int | None,
                 workgroup: tuple[int, int, int], builtins: tuple[int, int]):
        self.m = m
        self.memory = memory
        self.scalars = scalars
        self.push_constants = push_constants
        self.workgroup = workgroup
        self.workgroup_id, self.local_id = builtins
        self.values: dict[str, int] = {}   # IR name in scope -> SSA id
        self.variables: list[int] = []     # OpVariable instructions of the function
        self.code: list[int] = []          # everything after them
        self.used_globals: set[int] = set()

    # -- the function --------------------------------------------------------------------------

    def function(self, name: str, blocks, body: st.Stmt) -> int:
        """The entry point's OpFunction id; `blocks` are the kernel's GPULoops (x, y, z)."""
        m = self.m
        fn = m.id()
        m.name(fn, name)
        wg = self.load_global(self.workgroup_id, m.vector(m.int(32, False), 3))
        self.local = self.load_global(self.local_id, m.vector(m.int(32, False), 3))
        for axis, g in enumerate(blocks):
            index = self.op(Op.CompositeExtract, U32, wg, axis)
            self.values[g.name] = self.op(Op.IAdd, I32, self.expr(g.min),
                                          self.op(Op.Bitcast, I32, index))
        self.stmt(body)
        self.emit(Op.Return)
        entry = m.id()
        m.functions += instruction(Op.Function, m.void(), fn, 0, m.function_type(m.void()))
        m.functions += instruction(Op.Label, entry)
        m.functions += self.variables + self.code + instruction(Op.FunctionEnd)
        return fn

    def emit(self, op: Op, *operands) -> None:
        self.code += instruction(op, *operands)

    def op(self, op: Op, t: Type | int, *operands) -> int:
        """A value instruction's result id; t is an IR type or a type id."""
        result = self.m.id()
        tid = t if isinstance(t, int) else self.m.type(t)
        self.code += instruction(op, tid, result, *operands)
        return result

    def glsl(self, t: Type, which: GLSL, *args: int) -> int:
        return self.op(Op.ExtInst, t, self.m.glsl(), which, *args)

    def const(self, t: Type, value) -> int:
        return self.m.constant(t, value)

    def load_global(self, var: int, type_id: int) -> int:
        self.used_globals.add(var)
        return self.op(Op.Load, type_id, var)

    def local_variable(self, t: Type | int) -> int:
        tid = t if isinstance(t, int) else self.m.type(t)
        var = self.m.id()
        self.variables += instruction(Op.Variable, self.m.pointer(StorageClass.Function, tid),
                                      var, StorageClass.Function)
        return var

    def label(self, block: int) -> None:
        self.code += instruction(Op.Label, block)

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, e: ir.Expr) -> int:
        if e.type.lanes > 1 and not self.is_vector_access(e):
            raise CompileError(f"internal: a vector reached the SPIR-V backend: {to_string(e)}")
        t = e.type
        match e:
            case ir.IntImm() | ir.UIntImm() | ir.FloatImm():
                return self.const(t, e.value)
            case ir.Variable():
                if e.name in self.values:
                    return self.values[e.name]
                if e.name in self.scalars:
                    return self.scalar(e.name)
                raise CompileError(f"SPIR-V: {e.name} is not available in the kernel")
            case ir.Add() | ir.Sub() | ir.Mul():
                ints, floats = _ARITH[type(e)]
                return self.op(floats if t.is_float() else ints, t, self.expr(e.a),
                               self.expr(e.b))
            case ir.Div() | ir.Mod() if t.is_float():
                a, b = self.expr(e.a), self.expr(e.b)
                q = self.op(Op.FDiv, t, a, b)
                if isinstance(e, ir.Div):
                    return q
                return self.op(Op.FSub, t, a, self.op(Op.FMul, t, b,
                                                      self.glsl(t, GLSL.Floor, q)))
            case ir.Div() | ir.Mod() if (k := power_of_two(e.b)) is not None:
                # by 2^k: a shift (arithmetic for signed: Halide's division rounds down for a
                # positive divisor) and a mask (its modulo is never negative then)
                if isinstance(e, ir.Div):
                    op = Op.ShiftRightArithmetic if t.is_int() else Op.ShiftRightLogical
                    return self.op(op, t, self.expr(e.a), self.const(t, k))
                return self.op(Op.BitwiseAnd, t, self.expr(e.a), self.const(t, (1 << k) - 1))
            case ir.Div() | ir.Mod():
                return self.divide(t, self.expr(e.a), self.expr(e.b), isinstance(e, ir.Div))
            case ir.Min() | ir.Max():
                return self.min_max(t, self.expr(e.a), self.expr(e.b), isinstance(e, ir.Min))
            case ir.CompareOp():
                return self.compare(type(e), e.a.type, self.expr(e.a), self.expr(e.b))
            case ir.And():
                return self.op(Op.LogicalAnd, t, self.expr(e.a), self.expr(e.b))
            case ir.Or():
                return self.op(Op.LogicalOr, t, self.expr(e.a), self.expr(e.b))
            case ir.Not():
                return self.op(Op.LogicalNot, t, self.expr(e.a))
            case ir.Select():
                return self.op(Op.Select, t, self.expr(e.condition), self.expr(e.true_value),
                               self.expr(e.false_value))
            case ir.Cast():
                return self.cast(e.value.type, self.expr(e.value), t)
            case ir.Reinterpret():
                return self.reinterpret(e.value.type, self.expr(e.value), t)
            case ir.Load():
                return self.load(e.name, self.expr(e.index), t)
            case ir.Call():
                return self.call(e)
        raise CompileError(f"SPIR-V codegen cannot handle {to_string(e)}")

    def is_vector_access(self, e: ir.Expr) -> bool:
        """Whether vector e is one a kernel may hold (codegen/wgsl/legalize/scalarize keeps
        them for buffers accessed as whole vectors): a load of a buffer bound as vectors, a
        name bound to one, or a vector to store there (MAKE_VECTOR)."""
        match e:
            case ir.Load():
                return self.memory[e.name].type.lanes == e.type.lanes
            case ir.Variable():
                return True
            case ir.Call():
                return e.name == MAKE_VECTOR
        return False

    def scalar(self, name: str) -> int:
        member, t = self.scalars[name]
        self.used_globals.add(self.push_constants)
        pointer = self.m.pointer(StorageClass.PushConstant, self.m.type(t))
        address = self.op(Op.AccessChain, pointer, self.push_constants, self.const(U32, member))
        return self.op(Op.Load, t, address)

    def divide(self, t: Type, a: int, b: int, quotient: bool) -> int:
        """Halide's integer division and modulo: rounding towards negative infinity for a
        positive divisor (Euclidean), zero for a zero divisor, wrapping for INT_MIN / -1."""
        zero, one = self.const(t, 0), self.const(t, 1)
        is_zero = self.op(Op.IEqual, _BOOL, b, zero)
        if t.is_uint():
            safe = self.op(Op.Select, t, is_zero, one, b)
            if not quotient:
                return self.op(Op.UMod, t, a, safe)  # a % 1 is 0 already
            return self.op(Op.Select, t, is_zero, zero, self.op(Op.UDiv, t, a, safe))
        minus_one = self.op(Op.IEqual, _BOOL, b, self.const(t, -1))
        safe = self.op(Op.Select, t, self.op(Op.LogicalOr, _BOOL, is_zero, minus_one), one, b)
        # r = a - (a / b) * b: Vulkan leaves OpSRem and OpSMod undefined for negative operands
        # (NVIDIA's driver computes them unsigned: -1 % 3 gives 0); OpSDiv is defined.
        q = self.op(Op.SDiv, t, a, safe)
        r = self.op(Op.ISub, t, a, self.op(Op.IMul, t, q, safe))
        negative = self.op(Op.SLessThan, _BOOL, r, zero)
        b_positive = self.op(Op.SGreaterThan, _BOOL, b, zero)
        if not quotient:  # a % 1 is 0 already, as Halide's results for b = 0 and b = -1 are
            up = self.op(Op.Select, t, b_positive, self.op(Op.IAdd, t, r, b),
                         self.op(Op.ISub, t, r, b))
            return self.op(Op.Select, t, negative, up, r)
        step = self.op(Op.Select, t, b_positive, self.const(t, -1), one)
        q = self.op(Op.Select, t, negative, self.op(Op.IAdd, t, q, step), q)
        q = self.op(Op.Select, t, minus_one, self.op(Op.SNegate, t, a), q)
        return self.op(Op.Select, t, is_zero, zero, q)

    def min_max(self, t: Type, a: int, b: int, is_min: bool) -> int:
        if t.is_float():  # b < a ? b : a and a < b ? b : a, the CPU targets' NaN rule
            less = self.op(Op.FOrdLessThan, _BOOL, *((b, a) if is_min else (a, b)))
            return self.op(Op.Select, t, less, b, a)
        which = {(True, True): GLSL.SMin, (True, False): GLSL.UMin,
                 (False, True): GLSL.SMax, (False, False): GLSL.UMax}[is_min, t.is_int()]
        return self.glsl(t, which, a, b)

    def compare(self, kind, t: Type, a: int, b: int) -> int:
        if t.is_bool():
            return self.op(_LOGICAL[kind], _BOOL, a, b)
        signed, unsigned, floating = _COMPARE[kind]
        op = floating if t.is_float() else signed if t.is_int() else unsigned
        return self.op(op, _BOOL, a, b)

    def cast(self, src: Type, v: int, dst: Type) -> int:
        if dst == src:
            return v
        if dst.is_bool():
            if src.is_float():
                return self.op(Op.FUnordNotEqual, _BOOL, v, self.const(src, 0.0))
            return self.op(Op.INotEqual, _BOOL, v, self.const(src, 0))
        if src.is_bool():
            return self.op(Op.Select, dst, v, self.const(dst, 1), self.const(dst, 0))
        if src.is_float() and dst.is_float():
            return self.op(Op.FConvert, dst, v)
        if src.is_float():
            return self.float_to_int(src, v, dst)
        if dst.is_float():
            return self.op(Op.ConvertSToF if src.is_int() else Op.ConvertUToF, dst, v)
        if src.bits != dst.bits:  # the source's signedness decides the extension
            wider = UInt(dst.bits)
            if src.is_int():
                v = self.op(Op.SConvert, wider, v)
            else:
                v = self.op(Op.UConvert, wider, v)
            src = wider
        return v if src == dst else self.op(Op.Bitcast, dst, v)

    def float_to_int(self, src: Type, v: int, dst: Type) -> int:
        """Saturating, NaN to 0, as Halide's CPU targets convert (SPIR-V leaves out-of-range
        conversions undefined)."""
        lo = 0.0 if dst.is_uint() else -float(1 << (dst.bits - 1))
        hi = float(1 << (dst.bits if dst.is_uint() else dst.bits - 1))
        f = Float(max(src.bits, 32)) if src.bits < dst.bits or src.bits == 16 else src
        x = self.op(Op.FConvert, f, v) if f != src else v
        low = self.const(f, lo)
        clamped = self.op(Op.Select, f, self.op(Op.FOrdLessThan, _BOOL, x, low), low, x)
        converted = self.op(Op.ConvertFToS if dst.is_int() else Op.ConvertFToU, dst, clamped)
        top = self.const(dst, (1 << (dst.bits if dst.is_uint() else dst.bits - 1)) - 1)
        high = self.op(Op.FOrdGreaterThanEqual, _BOOL, x, self.const(f, hi))
        result = self.op(Op.Select, dst, high, top, converted)
        nan = self.op(Op.IsNan, _BOOL, x)
        return self.op(Op.Select, dst, nan, self.const(dst, 0), result)

    def reinterpret(self, src: Type, v: int, dst: Type) -> int:
        m = self.m
        if dst.is_float() and dst.bits == 16 and src.bits == 32:  # the low 16 bits' float16
            pair = self.op(Op.ExtInst, m.vector(m.float(32), 2), m.glsl(), GLSL.UnpackHalf2x16,
                           self.as_u32(src, v))
            return self.op(Op.FConvert, dst, self.op(Op.CompositeExtract, F32, pair, 0))
        if src.is_float() and src.bits == 16 and dst.bits == 32:  # a float16's bits, widened
            pair = self.op(Op.CompositeConstruct, m.vector(m.float(32), 2),
                           self.op(Op.FConvert, F32, v), self.const(F32, 0.0))
            bits = self.glsl(U32, GLSL.PackHalf2x16, pair)
            bits = self.op(Op.BitwiseAnd, U32, bits, self.const(U32, 0xFFFF))
            return bits if dst == U32 else self.op(Op.Bitcast, dst, bits)
        return v if src == dst else self.op(Op.Bitcast, dst, v)

    def as_u32(self, t: Type, v: int) -> int:
        return v if t == U32 else self.op(Op.Bitcast, U32, v)

    def element(self, name: str, index: int) -> tuple[int, Memory]:
        """A pointer to element `index` of buffer or array `name`."""
        mem = self.memory[name]
        if mem.storage is not StorageClass.Function:  # entry point interfaces list globals
            self.used_globals.add(mem.var)
        pointer = self.m.pointer(mem.storage, self.m.type(mem.type))
        path = (self.const(U32, 0), index) if mem.in_block else (index,)
        return self.op(Op.AccessChain, pointer, mem.var, *path), mem

    def load(self, name: str, index: int, t: Type) -> int:
        """Element `index` of `name` as a value of type t: an 8/16-bit element stored as it is
        (vk_int8, vk_int16) is extended to the 32-bit register legalization gave it."""
        address, mem = self.element(name, index)
        if mem.atomic:
            return self.op(Op.AtomicLoad, mem.type, address, self.const(U32, Scope.Device),
                           self.const(U32, Semantics.Relaxed))
        return self.cast(mem.type, self.op(Op.Load, mem.type, address), t)

    def call(self, e: ir.Call) -> int:
        t, name = e.type, e.name
        if e.call_type is ir.CallType.PURE_EXTERN:
            args = [self.expr(a) for a in e.args]
            if name == "sqrt" and t.bits == 64:
                return self.glsl(t, GLSL.Sqrt, *args)
            if name == "pow":
                return self.through_f32(t, self.pow, *args)
            if name == "atan2":
                return self.through_f32(t, self.atan2, *args)
            if name not in _MATH:
                raise CompileError(f"SPIR-V has no {name}")
            return self.through_f32(t, lambda *xs: self.glsl(F32, _MATH[name], *xs), *args)
        if name in _ATOMICS:
            address, mem = self.element(e.args[0].value, self.expr(e.args[1]))
            return self.op(_ATOMICS[name], mem.type, address, self.const(U32, Scope.Device),
                           self.const(U32, Semantics.Relaxed), self.expr(e.args[2]))
        if name == VECTOR_LANE:
            return self.op(Op.CompositeExtract, t, self.expr(e.args[0]), e.args[1].value)
        args = [self.expr(a) for a in e.args if not isinstance(a, ir.StringImm)]
        if name == MAKE_VECTOR:
            return self.op(Op.CompositeConstruct, t, *args)
        if name in _BITWISE:
            ints, bools = _BITWISE[name]
            return self.op(bools if t.is_bool() else ints, t, *args)
        match name:
            case "shift_left":
                return self.op(Op.ShiftLeftLogical, t, *args)
            case "shift_right":
                op = Op.ShiftRightArithmetic if t.is_int() else Op.ShiftRightLogical
                return self.op(op, t, *args)
            case "bitwise_not":
                return self.op(Op.LogicalNot if t.is_bool() else Op.Not, t, args[0])
            case "popcount":
                return self.op(Op.BitCount, t, args[0])
            case "count_leading_zeros":  # FindUMsb is -1 for 0, so 31 - msb is 32 then
                msb = self.glsl(t, GLSL.FindUMsb, args[0])
                return self.op(Op.ISub, t, self.const(t, 31), msb)
            case "count_trailing_zeros":
                lsb = self.glsl(t, GLSL.FindILsb, args[0])
                zero = self.op(Op.IEqual, _BOOL, args[0], self.const(e.args[0].type, 0))
                return self.op(Op.Select, t, zero, self.const(t, t.bits), lsb)
            case "abs" if e.args[0].type.is_int():
                return self.op(Op.Bitcast, t, self.glsl(e.args[0].type, GLSL.SAbs, args[0]))
            case "abs" if e.args[0].type.is_float():
                return self.glsl(t, GLSL.FAbs, args[0])
            case "abs":
                return args[0]
            case "likely":
                return args[0]
        if name in _FLOAT_TESTS:  # on the bits: fast-math drivers may fold OpIsNan away
            src = e.args[0].type
            x = self.op(Op.FConvert, F32, args[0]) if src.bits == 16 else args[0]
            word = UInt(64) if src.bits == 64 else U32
            exponent = 0x7FF0000000000000 if src.bits == 64 else 0x7F800000
            magnitude = self.op(Op.BitwiseAnd, word, self.op(Op.Bitcast, word, x),
                                self.const(word, (1 << (word.bits - 1)) - 1))
            return self.op(_FLOAT_TESTS[name], _BOOL, magnitude, self.const(word, exponent))
        if name in _ROUNDING:
            return self.glsl(t, _ROUNDING[name], args[0])
        if is_print(e):
            raise CompileError("hl.print, hl.print_when and Func.trace_* cannot run in a GPU "
                               "kernel (SPIR-V cannot print); print from a Func computed on "
                               "the CPU, or realize on a CPU target to debug", user_location())
        raise CompileError(f"SPIR-V codegen has no rule for {name}")

    def through_f32(self, t: Type, fn, *args: int) -> int:
        """fn (over float32 ids) applied to args of float type t: float16 goes through f32.
        GLSL.std.450 has no 64-bit transcendental functions."""
        if t.bits == 64:
            raise CompileError("a float64 math function (exp, sin, pow, ...) in a GPU kernel: "
                               "Vulkan's GLSL.std.450 has them for float16 and float32 only; "
                               "compute it in float32 or on the CPU", user_location())
        if t.bits == 32:
            return fn(*args)
        return self.op(Op.FConvert, t, fn(*(self.op(Op.FConvert, F32, a) for a in args)))

    def pow(self, x: int, y: int) -> int:
        """C's powf: 1 for y == 0 or x == 1; negative bases with integer exponents; NaN for a
        negative base with any other exponent (GLSL's Pow is undefined for x < 0)."""
        zero, one, half = self.const(F32, 0.0), self.const(F32, 1.0), self.const(F32, 0.5)
        trivial = self.op(Op.LogicalOr, _BOOL, self.op(Op.FOrdEqual, _BOOL, y, zero),
                          self.op(Op.FOrdEqual, _BOOL, x, one))
        negative = self.op(Op.FOrdLessThan, _BOOL, x, zero)
        magnitude = self.glsl(F32, GLSL.Pow, self.glsl(F32, GLSL.FAbs, x), y)
        integral = self.op(Op.FOrdEqual, _BOOL, y, self.glsl(F32, GLSL.Trunc, y))
        halved = self.op(Op.FMul, F32, y, half)
        odd = self.op(Op.FUnordNotEqual, _BOOL, halved, self.glsl(F32, GLSL.Trunc, halved))
        signed = self.op(Op.Select, F32, odd, self.op(Op.FNegate, F32, magnitude), magnitude)
        nan = self.op(Op.Bitcast, F32, self.const(U32, 0x7FC00000))
        of_negative = self.op(Op.Select, F32, integral, signed, nan)
        result = self.op(Op.Select, F32, negative, of_negative, magnitude)
        return self.op(Op.Select, F32, trivial, one, result)

    def atan2(self, y: int, x: int) -> int:
        """C's atan2f: of two zeros +-0 or +-pi by their signs (GLSL's Atan2 is undefined
        there: lavapipe gave 3pi/4 for atan2(0, 0))."""
        zero = self.const(F32, 0.0)
        zeros = self.op(Op.LogicalAnd, _BOOL, self.op(Op.FOrdEqual, _BOOL, y, zero),
                        self.op(Op.FOrdEqual, _BOOL, x, zero))
        sign = lambda v: self.op(Op.SLessThan, _BOOL, self.op(Op.Bitcast, I32, v),  # noqa: E731
                                 self.const(I32, 0))
        m = self.op(Op.Select, F32, sign(x), self.const(F32, 3.141592653589793), zero)
        signed = self.op(Op.Select, F32, sign(y), self.op(Op.FNegate, F32, m), m)
        return self.op(Op.Select, F32, zeros, signed, self.glsl(F32, GLSL.Atan2, y, x))

    # -- statements ----------------------------------------------------------------------------

    def stmt(self, s: st.Stmt) -> None:
        match s:
            case st.Block():
                for i, x in enumerate(s.stmts):
                    self.stmt(x)
                    if i + 1 < len(s.stmts) and _has_threads(x):
                        # Later thread nests read what this one wrote to workgroup memory.
                        workgroup = self.const(U32, Scope.Workgroup)
                        self.emit(Op.ControlBarrier, workgroup, workgroup, self.const(
                            U32, Semantics.AcquireRelease | Semantics.WorkgroupMemory))
            case st.LetStmt():
                saved = self.values.get(s.name)
                self.values[s.name] = self.expr(s.value)
                self.stmt(s.body)
                self._restore(s.name, saved)
            case st.Store():
                index, value = self.expr(s.index), self.expr(s.value)
                address, mem = self.element(s.name, index)
                if mem.atomic:
                    self.emit(Op.AtomicStore, address, self.const(U32, Scope.Device),
                              self.const(U32, Semantics.Relaxed), value)
                else:  # a 32-bit register into an element stored as it is: truncated
                    self.emit(Op.Store, address, self.cast(s.value.type, value, mem.type))
            case st.IfThenElse():
                self.branch(self.expr(s.condition), s.then_case, s.else_case)
            case st.For() if s.for_type is ForType.GPUThread:
                self.thread_nest(s)
            case st.For():
                self.loop(s)
            case st.Allocate() | st.ProducerConsumer():  # arrays are declared up front
                self.stmt(s.body)
            case st.Evaluate() if isinstance(s.value, ir.Call) and s.value.name in _ATOMICS:
                self.expr(s.value)
            case st.Evaluate():
                if not isinstance(s.value, ir.IntImm | ir.UIntImm):
                    self.expr(s.value)
            case _:
                raise CompileError(f"SPIR-V codegen cannot handle statement "
                                   f"{type(s).__name__} inside a kernel")

    def _restore(self, name: str, saved: int | None) -> None:
        if saved is None:
            del self.values[name]
        else:
            self.values[name] = saved

    def branch(self, condition: int, then_case: st.Stmt, else_case: st.Stmt | None) -> None:
        then_block, merge = self.m.id(), self.m.id()
        else_block = self.m.id() if else_case is not None else merge
        self.emit(Op.SelectionMerge, merge, 0)
        self.emit(Op.BranchConditional, condition, then_block, else_block)
        self.label(then_block)
        self.stmt(then_case)
        self.emit(Op.Branch, merge)
        if else_case is not None:
            self.label(else_block)
            self.stmt(else_case)
            self.emit(Op.Branch, merge)
        self.label(merge)

    def loop(self, s: st.For) -> None:
        """A serial loop: the counter lives in a Function variable, read in the header's
        condition block (which dominates the body and the continue block)."""
        lo = self.expr(s.min)
        end = self.op(Op.IAdd, I32, lo, self.expr(s.extent))
        counter = self.local_variable(I32)
        self.emit(Op.Store, counter, lo)
        header, check, body, step, merge = (self.m.id() for _ in range(5))
        self.emit(Op.Branch, header)
        self.label(header)
        self.emit(Op.LoopMerge, merge, step, 0)
        self.emit(Op.Branch, check)
        self.label(check)
        i = self.op(Op.Load, I32, counter)
        self.emit(Op.BranchConditional, self.op(Op.SLessThan, _BOOL, i, end), body, merge)
        self.label(body)
        saved = self.values.get(s.name)
        self.values[s.name] = i
        self.stmt(s.body)
        self._restore(s.name, saved)
        self.emit(Op.Branch, step)
        self.label(step)
        self.emit(Op.Store, counter, self.op(Op.IAdd, I32, i, self.const(I32, 1)))
        self.emit(Op.Branch, header)
        self.label(merge)

    def thread_nest(self, loop: st.For) -> None:
        """GPU thread loops: each loop variable is an invocation id (innermost loop: x); when
        the nest is smaller than the workgroup, the extra invocations skip it."""
        chain = thread_nest(loop)
        guard = None
        for axis, t in enumerate(reversed(chain)):
            index = self.op(Op.CompositeExtract, U32, self.local, axis)
            self.values[t.name] = self.op(Op.IAdd, I32, self.expr(t.min),
                                          self.op(Op.Bitcast, I32, index))
            extent = int(t.extent.value)
            if extent < self.workgroup[axis]:
                inside = self.op(Op.ULessThan, _BOOL, index, self.const(U32, extent))
                guard = inside if guard is None else \
                    self.op(Op.LogicalAnd, _BOOL, guard, inside)
        if guard is None:
            self.stmt(chain[-1].body)
        else:
            self.branch(guard, chain[-1].body, None)
        for t in chain:
            del self.values[t.name]


_BOOL = UInt(1)


def _has_threads(s: st.Stmt) -> bool:
    return any(isinstance(n, st.For) and n.for_type is ForType.GPUThread for n in walk(s))
