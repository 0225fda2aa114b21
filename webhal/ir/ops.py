"""Constructors that fold as they build: constants, identities, offsets of one variable.

Passes and analyses build IR through these so that bounds expressions stay small. The full
simplifier (passes/simplify.py) applies the same rules to existing trees.
"""

from __future__ import annotations

import math

from webhal.ir import nodes as ir
from webhal.ir.types import Bool, Int, Type

I32 = Int(32)


def make_const(t: Type, value) -> ir.Expr:
    """A constant of type t (integers wrap to t's width)."""
    if t.is_float():
        return ir.FloatImm(t, float(t.dtype.type(value)) if math.isfinite(value) else value)
    if t.is_bool():
        return ir.UIntImm(t, 1 if value else 0)
    value = wrap_int(int(value), t)
    return ir.UIntImm(t, value) if t.is_uint() else ir.IntImm(t, value)


def wrap_int(value: int, t: Type) -> int:
    value &= (1 << t.bits) - 1
    if t.is_int() and value >= 1 << (t.bits - 1):
        value -= 1 << t.bits
    return value


def cast_node(t: Type, e: ir.Expr) -> ir.Expr:
    if e.type == t:
        return e
    if isinstance(e, (ir.IntImm, ir.UIntImm, ir.FloatImm)) and not (
            e.type.is_float() and not t.is_float()):
        return make_const(t, e.value)
    return ir.Cast(t, e)


def const(value, t: Type = I32) -> ir.Expr:
    return make_const(t, value)


def as_const(e: ir.Expr):
    """The value of a constant scalar, else None."""
    if isinstance(e, ir.IntImm | ir.UIntImm | ir.FloatImm):
        return e.value
    if isinstance(e, ir.Broadcast):
        return as_const(e.value)
    return None


def is_const(e: ir.Expr, value=None) -> bool:
    c = as_const(e)
    return c is not None and (value is None or c == value)


def var(name: str, t: Type = I32) -> ir.Variable:
    return ir.Variable(t, name)


def split_offset(e: ir.Expr) -> tuple[ir.Expr | None, int]:
    """e as (base, constant offset) for integer e; base None when e is a constant."""
    c = as_const(e)
    if c is not None and not e.type.is_float():
        return None, c
    if isinstance(e, ir.Add) and not e.type.is_float():
        k = as_const(e.b)
        if k is not None:
            return e.a, k
    if isinstance(e, ir.Sub) and not e.type.is_float():
        k = as_const(e.b)
        if k is not None:
            return e.a, -k
    return e, 0


def _with_offset(base: ir.Expr | None, k: int, t: Type) -> ir.Expr:
    if base is None:
        return const(k, t)
    if k == 0:
        return base
    if k < 0 and not t.is_uint():
        return ir.Sub(base, const(-k, t))
    return ir.Add(base, const(k, t))


def _fits(t: Type, v) -> bool:
    return t.is_float() or t.min() <= v <= t.max()


def add(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    t = a.type
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None and t.is_scalar():
        v = ca + cb
        if _fits(t, v):
            return const(v, t)
    if cb == 0 and not t.is_float():
        return a
    if ca == 0 and not t.is_float():
        return b
    # Offsets order values only where adding them cannot wrap: Halide assumes that signed
    # integers of 32 bits or more never overflow, while narrower and unsigned ones wrap.
    if t.is_int() and t.bits >= 32 and t.is_scalar():
        (ba, ka), (bb, kb) = split_offset(a), split_offset(b)
        if ba is None or bb is None:
            base = bb if ba is None else ba
            if _fits(t, ka + kb):
                return _with_offset(base, ka + kb, t)
        elif (ka or kb) and _fits(t, ka + kb):
            return _with_offset(add(ba, bb), ka + kb, t)
        if isinstance(b, ir.Sub) and b.b == a:  # a + (c - a) -> c
            return b.a
        if isinstance(a, ir.Sub) and a.b == b:  # (c - b) + b -> c
            return a.a
    return ir.Add(a, b)


def sub(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    t = a.type
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None and t.is_scalar():
        v = ca - cb
        if _fits(t, v):
            return const(v, t)
    if cb == 0 and not t.is_float():
        return a
    if a == b and not t.is_float():
        return const(0, t)
    if not t.is_float() and t.is_scalar() and not t.is_uint():
        (ba, ka), (bb, kb) = split_offset(a), split_offset(b)
        if ba is not None and ba == bb:
            return const(ka - kb, t)
        if bb is None:
            return _with_offset(ba, ka - kb, t)
        if ba is None:
            return ir.Sub(const(ka - kb, t), bb)
        if ka or kb:
            return _with_offset(ir.Sub(ba, bb), ka - kb, t)
        if isinstance(a, ir.Add) and a.a == b:  # (b + c) - b -> c
            return a.b
        if isinstance(a, ir.Add) and a.b == b:
            return a.a
    return ir.Sub(a, b)


def mul(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    t = a.type
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None and t.is_scalar():
        v = ca * cb
        if _fits(t, v):
            return const(v, t)
    if ca is not None and cb is None:
        a, b, ca, cb = b, a, cb, ca
    if cb == 1:
        return a
    if cb == 0 and not t.is_float():
        return b
    if cb is not None and not t.is_float() and t.is_scalar():
        base, k = split_offset(a)
        if base is not None and k and _fits(t, k * cb):  # (x + k) * c -> x * c + k * c
            return add(ir.Mul(base, b), const(k * cb, t))
        inner = as_const(a.b) if isinstance(a, ir.Mul) else None
        # (x * c0) * c1 -> x * (c0 * c1): exact in wrap-around arithmetic, so for the types
        # that wrap the product wraps too; a signed product of 32 bits or more must fit.
        if inner is not None and (_wraps(t) or _fits(t, inner * cb)):
            return mul(a.a, const(inner * cb, t))
    return ir.Mul(a, b)


def _wraps(t: Type) -> bool:
    """Whether Halide's arithmetic of integer type t wraps: unsigned and narrower than 32 bits
    (signed integers of 32 bits or more are assumed never to overflow)."""
    return t.is_int_or_uint() and not t.is_bool() and not (t.is_int() and t.bits >= 32)


def _no_overflow_int(t: Type) -> bool:
    return t.is_int() and t.bits >= 32 and t.is_scalar()


def _split_multiple(e: ir.Expr, c: int, depth: int = 6) -> tuple[ir.Expr | None, ir.Expr]:
    """(q, r) with e == q * c + r, q the terms of e (a sum or difference, looked into `depth`
    deep) that are a variable times a multiple of c, divided by c (None if there are none), r
    the rest."""
    if isinstance(e, ir.Mul):
        k = as_const(e.b)
        if k is not None and k % c == 0:
            return mul(e.a, const(k // c, e.type)), _zero(e.type)
    if isinstance(e, ir.Add | ir.Sub) and depth:
        (qa, ra), (qb, rb) = _split_multiple(e.a, c, depth - 1), _split_multiple(e.b, c, depth - 1)
        if qa is None and qb is None:
            return None, e
        combine = add if isinstance(e, ir.Add) else sub
        zero = _zero(e.type)
        return combine(qa or zero, qb or zero), combine(ra, rb)
    return None, e


def div(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    t = a.type
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None and t.is_scalar() and not t.is_float():
        if cb == 0:
            return const(0, t)
        q = ca // cb if cb > 0 else -(ca // -cb)
        return const(q, t)
    if cb == 1:
        return a
    if cb == 0 and not t.is_float():  # Halide's x / 0 is 0
        return _zero(t)
    k = _ramp_multiple(a, b)
    if k is not None:  # ramp(x, k * c, n) / c -> ramp(x / c, k, n): dense, not a gather
        return ir.Ramp(div(a.base, b.value), const(k, a.base.type), a.lanes)
    if cb is not None and cb > 0 and _no_overflow_int(t):
        # (x * (k * c) + y) / c -> x * k + y / c: division rounds down, so whole multiples of
        # c come out exactly (and likewise for any sum or difference of such terms)
        q, r = _split_multiple(a, cb)
        if q is not None and isinstance(q, ir.Sub) and is_const(q.a, 0):
            return sub(div(r, b), q.b)  # (y - x * (k * c)) / c -> y / c - x * k
        if q is not None:
            return add(q, div(r, b))
    return ir.Div(a, b)


def mod(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    t = a.type
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None and t.is_scalar() and not t.is_float():
        return const(0 if cb == 0 else ca % abs(cb), t)
    if (cb in (0, 1) or a == b) and not t.is_float():  # Halide's x % 0 is 0; so is x % x
        return _zero(t)
    if _ramp_multiple(a, b) is not None:  # ramp(x, k * c, n) % c -> broadcast(x % c)
        return ir.Broadcast(mod(a.base, b.value), a.lanes)
    if cb is not None and cb > 0 and _no_overflow_int(t):
        q, r = _split_multiple(a, cb)  # (x * (k * c) + y) % c -> y % c
        if q is not None:
            return mod(r, b)
    return ir.Mod(a, b)


def _ramp_multiple(a: ir.Expr, b: ir.Expr) -> int | None:
    """k where a is a ramp of a signed integer type of 32 bits or more (values that do not
    wrap, as Halide assumes) whose constant stride is k times b, a broadcast constant c > 0:
    then every lane of a / c is a.base / c plus k times the lane (division rounds down), and
    every lane of a % c is a.base % c."""
    if not (isinstance(a, ir.Ramp) and isinstance(b, ir.Broadcast)):
        return None
    t = a.type
    s, c = as_const(a.stride), as_const(b.value)
    if not (t.is_int() and t.bits >= 32) or s is None or c is None or c <= 0 or s % c:
        return None
    return s // c


def _zero(t: Type) -> ir.Expr:
    """0 of t, a Broadcast for a vector type."""
    return const(0, t) if t.is_scalar() else ir.Broadcast(const(0, t.element_of()), t.lanes)


def _min_max(a: ir.Expr, b: ir.Expr, pick, node):
    t = a.type
    if a == b:
        return a
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None and t.is_scalar():
        # min is b < a ? b : a, max is a < b ? b : a (the float rules for NaN; see numeric.py)
        return (b if cb < ca else a) if node is ir.Min else (b if ca < cb else a)
    # Offsets order values only where adding them cannot wrap: Halide assumes that signed
    # integers of 32 bits or more never overflow, while narrower and unsigned ones wrap.
    if t.is_int() and t.bits >= 32 and t.is_scalar():
        (ba, ka), (bb, kb) = split_offset(a), split_offset(b)
        if ba is not None and ba == bb:
            return a if pick(ka, kb) == ka else b
        # ((a + c - 1) / c) * c lies in [a, a + c - 1]: against a + k2 the order is known.
        for x, y in ((a, b), (b, a)):
            rx, kx = split_offset(x)
            ry, ky = split_offset(y)
            if ry is not None and _rounds_up(rx, ry) and kx >= ky:  # so x >= y
                return y if node is ir.Min else x
    if not t.is_float():
        # max(min(x, c1), c2) -> c2 where c2 >= c1, and min(max(x, c1), c2) -> c2 where
        # c2 <= c1 (a clamp whose lower bound is above its upper one)
        other = ir.Max if node is ir.Min else ir.Min
        for x, c in ((a, cb), (b, ca)):
            inner = as_const(x.b) if isinstance(x, other) else None
            if c is not None and inner is not None and pick(inner, c) == c:
                return b if x is a else a
    if not t.is_float() and t.is_scalar():
        # min(min(x, c1), c2) -> min(x, min(c1, c2))
        if isinstance(a, node) and cb is not None and as_const(a.b) is not None:
            return node(a.a, const(pick(as_const(a.b), cb), t))
        # min(min(x, y), x) -> min(x, y)
        if isinstance(a, node) and (a.a == b or a.b == b):
            return a
        if isinstance(b, node) and (b.a == a or b.b == a):
            return b
    if ca is not None and cb is None and not t.is_float():
        a, b = b, a  # constants on the right (float operands keep their order: NaN rules)
    return node(a, b)


def _rounds_up(x: ir.Expr | None, a: ir.Expr) -> bool:
    """Whether x is ((a + (c - 1)) / c) * c for a positive constant c."""
    if not isinstance(x, ir.Mul) or not isinstance(x.a, ir.Div):
        return False
    c = as_const(x.b)
    if c is None or c <= 0 or as_const(x.a.b) != c:
        return False
    base, k = split_offset(x.a.a)
    return base == a and k == c - 1


def minimum(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return _min_max(a, b, min, ir.Min)


def maximum(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return _min_max(a, b, max, ir.Max)


def promise_clamped(value: ir.Expr, lo: ir.Expr, hi: ir.Expr) -> ir.Expr:
    """value, with the promise (for bounds inference) that it lies in [lo, hi]. The simplify
    pass replaces it by value; a constant value needs no promise."""
    if as_const(value) is not None:
        return value
    return ir.Call(value.type, "promise_clamped", (value, lo, hi), ir.CallType.INTRINSIC)


_BITWISE = {"bitwise_and": lambda a, b: a & b, "bitwise_or": lambda a, b: a | b,
            "bitwise_xor": lambda a, b: a ^ b}
_SHIFTS = {"shift_left": "shift_right", "shift_right": "shift_left"}


def bitwise(e: ir.Call) -> ir.Expr:
    """A bitwise intrinsic (and, or, xor, not, shifts) folded where its operands are constants,
    with Halide's semantics: a negative amount shifts the other way; a shift by 0 is its
    operand; a right shift of a signed value is arithmetic; results wrap to the type. Halide
    refuses a constant amount at least the type's width (LLVM's result would be poison)."""
    t, args = e.type, e.args
    if not t.is_int_or_uint() or t.is_bool():
        return e
    consts = [as_const(a) for a in args]
    scalar = t.is_scalar()
    if e.name == "bitwise_not":
        return const(~consts[0], t) if consts[0] is not None and scalar else e
    if e.name in _BITWISE:
        if None in consts or not scalar:
            return e
        return const(_BITWISE[e.name](*consts), t)
    if e.name not in _SHIFTS or consts[1] is None:
        return e
    name, amount = e.name, consts[1]
    if amount < 0:  # only a signed amount can be negative
        name, amount = _SHIFTS[name], -amount
    if amount >= t.bits:
        from webhal.errors import CompileError
        raise CompileError(f"{e.name}({args[0]}, {args[1]}) shifts a {t} by {consts[1]}, at "
                           f"least its {t.bits} bits; Halide refuses such a constant shift (the "
                           "result is undefined): shift by less, or widen the value first")
    if amount == 0:
        return args[0]
    if consts[0] is not None and scalar:
        v = consts[0]
        return const(v << amount if name == "shift_left" else v >> amount, t)
    if name != e.name:
        return ir.Call(t, name, (args[0], const(amount, args[1].type)), e.call_type)
    return e


def lt(a, b):
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None:
        return const(ca < cb, Bool())
    return ir.LT(a, b)


def le(a, b):
    ca, cb = as_const(a), as_const(b)
    if ca is not None and cb is not None:
        return const(ca <= cb, Bool())
    return ir.LE(a, b)


def and_(a, b):
    if is_const(a, 1):
        return b
    if is_const(b, 1):
        return a
    if is_const(a, 0) or is_const(b, 0):
        return const(0, Bool())
    return ir.And(a, b)


def select(c, t, f):
    cc = as_const(c)
    if cc is not None and c.type.is_scalar():
        return t if cc else f
    if t == f:
        return t
    return ir.Select(c, t, f)


def cast(t: Type, e: ir.Expr) -> ir.Expr:
    return cast_node(t, e)
