"""Halide's free functions on expressions: select, min/max/clamp, casts, math, bit counting."""

from __future__ import annotations

import builtins
import math

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Bool, Float, Int, Type, UInt
from webhal.lang.expr import (
    Expr,
    ExprLike,
    _operands,
    cast_node,
    match_types,
    to_node,
)
from webhal.lang.tuple import elements, is_tuple_value


def _intrinsic(t: Type, name: str, *args: ir.Expr) -> Expr:
    return Expr(ir.Call(t, name, tuple(args), ir.CallType.INTRINSIC))


def cast(t: Type, e) -> Expr:
    """Convert e to type t: floats to ints truncate toward zero, ints wrap to narrower ints
    (a Python int too: hl.cast(hl.UInt(8), 300) is 44)."""
    if isinstance(e, int | float) and not isinstance(e, bool):
        # As Halide's bindings: a Python float is a float32 first (with the precision warning),
        # even in hl.cast(hl.Float(64), 0.1); hl.f64(0.1) keeps every bit
        return Expr(cast_node(t, to_node(e)))
    return Expr(cast_node(t, to_node(e, like=t)))


def reinterpret(t: Type, e) -> Expr:
    """The bits of e read as type t (same total width)."""
    n = to_node(e)
    if n.type.bits * n.type.lanes != t.bits * t.lanes:
        raise CompileError(f"reinterpret from {n.type} to {t} changes the width", user_location())
    return Expr(ir.Reinterpret(t, n))


def select(*args) -> Expr:
    """select(c, a, b), or select(c1, v1, c2, v2, ..., default): the first value whose condition
    holds. Values are matched to one type; conditions must be Bool."""
    if len(args) < 3 or len(args) % 2 == 0:
        raise CompileError("select takes (condition, true_value, false_value) or "
                           "(c1, v1, c2, v2, ..., default)", user_location())
    values = [*args[1:-1:2], args[-1]]
    if any(is_tuple_value(v) for v in values):
        return _select_tuples(args, values)
    if any(isinstance(c, (tuple, list)) for c in args[0:-1:2]):
        raise CompileError("select with a Tuple of conditions needs Tuples of values, one "
                           "element per condition", user_location())
    result = args[-1]
    for i in range(len(args) - 3, -1, -2):
        cond, value = to_node(args[i]), args[i + 1]
        if not cond.type.is_bool():
            raise CompileError(f"the condition of select must be bool, not {cond.type}: "
                               f"{Expr(cond)}", user_location())
        tv, fv = _select_values(value, result)
        if tv.type != fv.type:  # Halide refuses to pick a type for the answer
            raise CompileError(f"the values of select have different types: {Expr(tv)} is "
                               f"{tv.type} and {Expr(fv)} is {fv.type}; cast one with hl.cast",
                               user_location())
        result = Expr(ir.Select(cond, tv, fv))
    return result if isinstance(result, Expr) else Expr(result)


def _select_tuples(args, values) -> tuple:
    """select of Tuples, element by element (every value a Tuple of one size): a tuple. A
    condition is one Expr for every element or a Tuple of one per element."""
    if not all(is_tuple_value(v) for v in values):
        raise CompileError("select mixes Tuples and single values: give every value as a "
                           "Tuple of the same size", user_location())
    parts = [elements(v) for v in values]
    if len({len(p) for p in parts}) > 1:
        raise CompileError("select() on Tuples requires all Tuples to have identical sizes. "
                           f"These have {', '.join(str(len(p)) for p in parts)} elements",
                           user_location())
    size = len(parts[0])
    given = args[0:-1:2]
    if len({isinstance(c, (tuple, list)) for c in given}) > 1:
        raise CompileError("select() on Tuples may not mix Expr and Tuple for the condition "
                           "elements. Give every condition as one Expr, or every one as a "
                           "Tuple", user_location())
    conditions = []
    for c in given:
        if isinstance(c, (tuple, list)) and len(c) != size:
            raise CompileError("select() on Tuples requires all Tuples to have identical "
                               f"sizes. Here {len(c)} conditions for {size} values",
                               user_location())
        conditions.append(list(c) if isinstance(c, (tuple, list)) else [c] * size)
    return tuple(select(*[x for c, p in zip(conditions, parts) for x in (c[i], p[i])],
                        parts[-1][i]) for i in range(size))


tuple_select = select  # Halide's C++ name; select takes Tuples too


def _select_values(a, b) -> tuple[ir.Expr, ir.Expr]:
    """An int literal beside an Expr is cast (wrapping) to its type, as Halide's select does;
    a float literal beside a float Expr takes its type."""
    for lit, other in ((a, b), (b, a)):
        if isinstance(other, ExprLike | ir.Expr) and not isinstance(lit, ExprLike | ir.Expr):
            o = to_node(other)
            if isinstance(lit, int) and not isinstance(lit, bool):
                pair = (cast_node(o.type, to_node(lit)), o)
                return pair if lit is a else pair[::-1]
            if isinstance(lit, float) and o.type.is_float():
                pair = (to_node(lit, like=o.type), o)
                return pair if lit is a else pair[::-1]
    if isinstance(a, ExprLike | ir.Expr) and isinstance(b, ExprLike | ir.Expr):
        return to_node(a), to_node(b)
    return _operands(a, b)


def _plain(a, b) -> tuple[ir.Expr, ir.Expr]:
    """Halide's Python min/max/absd take Python numbers as Exprs (int32, float32) first."""
    return match_types(to_node(a), to_node(b))


def min(a, b, *rest) -> Expr:  # noqa: A001 - Halide's name
    """The smaller of the values; Python ints are int32 here (hl.min(u8, 3) is int32)."""
    result = Expr(ir.Min(*_plain(a, b)))
    for c in rest:
        result = min(result, c)
    return result


def max(a, b, *rest) -> Expr:  # noqa: A001
    """The larger of the values; Python ints are int32 here (hl.max(u8, 3) is int32)."""
    result = Expr(ir.Max(*_plain(a, b)))
    for c in rest:
        result = max(result, c)
    return result


def clamp(a, lo, hi) -> Expr:
    """max(min(a, hi), lo), as Halide defines it (so lo wins when lo > hi), with lo and hi
    converted to a's type (a Python float is a float32 first, as everywhere in Halide's
    bindings)."""
    an = to_node(a)
    lo_n, hi_n = _clamp_bound(an, lo, "lower"), _clamp_bound(an, hi, "upper")
    return Expr(ir.Max(ir.Min(an, hi_n), lo_n))


def _clamp_bound(a: ir.Expr, bound, which: str) -> ir.Expr:
    """A bound of clamp in a's type: a constant a's type holds, or a value of a type that
    converts to a's without loss (Halide refuses the others rather than wrap them)."""
    if isinstance(bound, int | float) and not isinstance(bound, bool) and a.type.is_float():
        return to_node(bound, like=a.type)
    if isinstance(bound, int) and not isinstance(bound, bool) and \
            a.type.is_int_or_uint() and a.type.can_represent(bound):
        return to_node(bound, like=a.type)
    b = to_node(bound)
    converted = _lossless(a.type, b)
    if converted is None:
        raise CompileError(f"the {which} bound of clamp, {Expr(b)}, has type {b.type}, but the "
                           f"value clamped, {Expr(a)}, has type {a.type}; cast the bound with "
                           f"hl.cast({a.type!r}, ...)", user_location())
    return converted


def _lossless(t: Type, e: ir.Expr) -> ir.Expr | None:
    """e as an expression of type t with e's value, or None where a value could change (what
    Halide's lossless_cast finds for clamp's bounds): e itself, a cast from a type t holds, a
    constant t represents exactly, or a widening cast of one of these."""
    if e.type == t:
        return e
    if _widens_to(e.type, t):
        return cast_node(t, e)
    if isinstance(e, ir.IntImm | ir.UIntImm | ir.FloatImm) and _represents(t, e.value):
        return ops.make_const(t, e.value)
    if isinstance(e, ir.Cast) and _widens_to(e.value.type, e.type):
        return _lossless(t, e.value)
    return None


def _represents(t: Type, value: int | float) -> bool:
    """Whether t holds the constant exactly."""
    if t.is_float():
        return math.isnan(value) or float(t.dtype.type(value)) == value
    if t.is_int_or_uint() and not t.is_bool():
        return float(value).is_integer() and t.min() <= value <= t.max()
    return False


def _widens_to(src: Type, dst: Type) -> bool:
    """Whether every value of src is a value of dst."""
    if dst.is_float():
        return not src.is_float() and src.bits < dst.bits or src.is_float() and \
            src.bits <= dst.bits
    if src.is_float() or not dst.is_int_or_uint():
        return False
    if src.is_uint():
        return src.bits < dst.bits or (dst.is_uint() and src.bits <= dst.bits)
    return dst.is_int() and src.bits <= dst.bits


def abs(a) -> Expr:  # noqa: A001
    """|a|; for signed integers the result is the unsigned type of the same width."""
    an = to_node(a)
    t = UInt(an.type.bits) if an.type.is_int() else an.type
    return _intrinsic(t, "abs", an)


def absd(a, b) -> Expr:
    """|a - b| without overflow; unsigned for integer operands."""
    an, bn = _plain(a, b)
    t = UInt(an.type.bits) if an.type.is_int() else an.type
    return _intrinsic(t, "absd", an, bn)


def saturating_cast(t: Type, e) -> Expr:
    """Convert e to t, clamping to t's range instead of wrapping."""
    return _intrinsic(t, "saturating_cast", to_node(e))


def lerp(zero_val, one_val, weight) -> Expr:
    """zero_val * (1 - weight) + one_val * weight. For integer values an unsigned integer weight
    spans 0 to its type's max, a float weight 0.0 to 1.0; integer results round to nearest."""
    if all(isinstance(v, ExprLike | ir.Expr) for v in (zero_val, one_val)):
        # As Halide: a signed integer constant (hl.cast(hl.Int(16), -32767) is one) takes the
        # other value's type, wrapping; zero_val first. lerp(i16 constant, i32 x, w) is int32.
        if isinstance(to_node(zero_val), ir.IntImm):
            zero_val = cast(to_node(one_val).type, zero_val)
        if isinstance(to_node(one_val), ir.IntImm):
            one_val = cast(to_node(zero_val).type, one_val)
    zn, on = match_types(*_operands(zero_val, one_val))
    z0, o0 = to_node(zero_val), to_node(one_val)
    exprs = [isinstance(v, ExprLike | ir.Expr) for v in (zero_val, one_val)]
    if (all(exprs) and z0.type != o0.type) or (any(exprs) and zn.type != (
            z0 if exprs[0] else o0).type):  # (a float literal beside an integer Expr)
        raise CompileError(f"lerp between {Expr(z0)} of type {z0.type} and {Expr(o0)} of type "
                           f"{o0.type}: cast them to one type, as Halide asks",
                           user_location())
    wn = to_node(weight, like=Float(32) if isinstance(weight, float) else None)
    if wn.type.is_int():
        raise CompileError("the weight of lerp must be unsigned or float, not "
                           f"{wn.type}", user_location())
    if zn.type.is_int_or_uint() and zn.type.bits == 64:
        # the exact product needs 128 bits; Halide refuses it too
        raise CompileError(f"lerp between 64-bit integers ({Expr(zn)}, {Expr(on)}) is not "
                           "supported; lerp in float64 or a narrower type", user_location())
    return _intrinsic(zn.type, "lerp", zn, on, wn)


def mux(index, values) -> Expr:
    """values[index]; an index outside the list gives the last value."""
    if not values:
        raise CompileError("mux needs at least one value", user_location())
    exprs = [to_node(v) for v in values if isinstance(v, ExprLike | ir.Expr)]
    t = exprs[0].type if exprs else to_node(values[0]).type
    # Python numbers take the values' type; values of two types are refused, as in Halide
    nodes = [to_node(v, like=t) if not isinstance(v, ExprLike | ir.Expr) else to_node(v)
             for v in values]
    for v in nodes:
        if v.type != t:
            raise CompileError(f"the values of mux have different types: {Expr(nodes[0])} is "
                               f"{t} and {Expr(v)} is {v.type}; cast them to one type",
                               user_location())
    idx = to_node(index)
    return _intrinsic(t, "mux", idx, *(cast_node(t, v) for v in nodes))


def likely(e) -> Expr:
    """e, with a hint that it is usually true (used to pick loop partitions)."""
    n = to_node(e)
    return _intrinsic(n.type, "likely", n)


def popcount(e) -> Expr:
    n = _integer(e, "popcount")
    return _intrinsic(n.type, "popcount", n)


def count_leading_zeros(e) -> Expr:
    n = _integer(e, "count_leading_zeros")
    return _intrinsic(n.type, "count_leading_zeros", n)


def count_trailing_zeros(e) -> Expr:
    n = _integer(e, "count_trailing_zeros")
    return _intrinsic(n.type, "count_trailing_zeros", n)


def _integer(e, what: str) -> ir.Expr:
    n = to_node(e)
    if not n.type.is_int_or_uint() or n.type.is_bool():
        raise CompileError(f"{what} needs an integer, not {n.type}", user_location())
    return n


def _as_float(e) -> ir.Expr:
    n = to_node(e)
    return n if n.type.is_float() else cast_node(Float(32), n)


def _math(name: str, *args) -> Expr:
    nodes = [_as_float(a) for a in args]
    if len(nodes) == 2:
        nodes = list(match_types(*nodes))
    t = nodes[0].type
    return Expr(ir.Call(t, name, tuple(nodes), ir.CallType.PURE_EXTERN))


def _rounding(name: str, e) -> Expr:
    n = _as_float(e)
    return _intrinsic(n.type, name, n)


def fast_inverse(e) -> Expr:
    """1 / e for float16/float32 (Halide's approximation; webhal divides exactly, which is at
    least as close)."""
    n = _fast_operand("fast_inverse", e)
    return Expr(ir.Div(ops.const(1.0, n.type), n))


def fast_inverse_sqrt(e) -> Expr:
    """1 / sqrt(e) for float16/float32 (exact here, as fast_inverse)."""
    n = _fast_operand("fast_inverse_sqrt", e)
    return Expr(ir.Div(ops.const(1.0, n.type), sqrt(n).node()))


def _fast_operand(name: str, e) -> ir.Expr:
    n = to_node(e)
    if not n.type.is_float() or n.type.bits > 32:
        raise CompileError(f"{name} takes float16 or float32, not {n.type} ({Expr(n)}), as in "
                           "Halide", user_location())
    return n


def sqrt(e): return _math("sqrt", e)
def exp(e): return _math("exp", e)
def log(e): return _math("log", e)
def pow(a, b) -> Expr:  # noqa: A001
    """a ** b. A constant integer b multiplies a by itself in a's own type (ints stay ints and
    wrap; a negative b gives 1 / a ** -b); otherwise the result is a's float type (float32 for
    a non-float a) with b converted to it."""
    bn = to_node(b)
    if isinstance(bn, ir.IntImm):
        return _integer_power(Expr(to_node(a)), bn.value)
    an = _as_float(a)
    return Expr(ir.Call(an.type, "pow", (an, cast_node(an.type, bn)), ir.CallType.PURE_EXTERN))


def _integer_power(a: Expr, p: int) -> Expr:
    # Squares of halves, as Halide multiplies, so float results round the same way.
    if p == 0:
        return Expr(cast_node(a.type(), to_node(1)))
    if p == 1:
        return a
    if p < 0:
        return Expr(cast_node(a.type(), to_node(1))) / _integer_power(a, -p)
    half = _integer_power(a, p >> 1)
    return half * half * a if p & 1 else half * half
def sin(e): return _math("sin", e)
def cos(e): return _math("cos", e)
def tan(e): return _math("tan", e)
def asin(e): return _math("asin", e)
def acos(e): return _math("acos", e)
def atan(e): return _math("atan", e)
def atan2(y, x): return _math("atan2", y, x)
def sinh(e): return _math("sinh", e)
def cosh(e): return _math("cosh", e)
def tanh(e): return _math("tanh", e)
def asinh(e): return _math("asinh", e)
def acosh(e): return _math("acosh", e)
def atanh(e): return _math("atanh", e)
def erf(e): return _math("erf", e)
def floor(e): return _rounding("floor", e)
def ceil(e): return _rounding("ceil", e)
def round(e): return _rounding("round", e)  # noqa: A001 - halves go to even, as in Halide
def trunc(e): return _rounding("trunc", e)


def fract(e) -> Expr:
    """e - trunc(e): the fractional part, with the sign of e (fract(-1.25) is -0.25)."""
    n = _as_float(e)
    return Expr(n) - trunc(Expr(n))


def is_nan(e) -> Expr:
    return _intrinsic(Bool(), "is_nan", _as_float(e))


def is_inf(e) -> Expr:
    return _intrinsic(Bool(), "is_inf", _as_float(e))


def is_finite(e) -> Expr:
    return _intrinsic(Bool(), "is_finite", _as_float(e))


# Halide's short cast helpers: hl.u8(e), hl.f32(e), ...
def u8(e): return cast(UInt(8), e)
def u16(e): return cast(UInt(16), e)
def u32(e): return cast(UInt(32), e)
def u64(e): return cast(UInt(64), e)
def i8(e): return cast(Int(8), e)
def i16(e): return cast(Int(16), e)
def i32(e): return cast(Int(32), e)
def i64(e): return cast(Int(64), e)
def f16(e): return cast(Float(16), e)
def f32(e):
    """e as float32; a Python float is rounded to float32 without a warning (asked for)."""
    if isinstance(e, float):
        return Expr(to_node(e, like=Float(32)))
    return cast(Float(32), e)
def f64(e):
    """e as float64; a Python float keeps all its bits (unlike hl.cast(hl.Float(64), 0.1))."""
    if isinstance(e, float):
        return Expr(to_node(e, like=Float(64)))
    return cast(Float(64), e)


def logical_not(e) -> Expr:
    """`!e` for a bool Expr, Func reference or Buffer read."""
    return as_expr(e).logical_not()


def as_expr(e) -> Expr:
    return e if isinstance(e, Expr) else Expr(to_node(e))


__all__ = [n for n in dir() if not n.startswith("_") and n not in
           ("annotations", "builtins", "CompileError", "user_location", "ir", "Bool", "Float",
            "Int", "Type", "UInt", "Expr", "ExprLike", "cast_node", "match_types", "to_node")]
_ = builtins
