"""Rewrite intrinsics that plain IR can express (absd, saturating_cast, lerp, mux), so that every
backend gets them with one meaning: the reference evaluator's. Inside GPU loops a 32-bit integer
lerp is built from 32-bit operations only (WGSL has no 64-bit integers, SPIR-V's are optional)."""

from __future__ import annotations

import itertools

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType
from webhal.ir.types import Float, Int, Type, UInt
from webhal.ir.visitor import rebuild
from webhal.passes.context import LowerContext


def _c(v, t: Type) -> ir.Expr:
    return ops.const(v, t.element_of()) if t.is_scalar() else \
        ir.Broadcast(ops.const(v, t.element_of()), t.lanes)


def _cast(t: Type, e: ir.Expr) -> ir.Expr:
    return e if e.type == t else ir.Cast(t, e)


def _absd(a: ir.Expr, b: ir.Expr, t: Type) -> ir.Expr:
    if a.type.is_float():
        return ir.Call(t, "abs", (ir.Sub(a, b),), ir.CallType.INTRINSIC)
    ua, ub = _cast(t, a), _cast(t, b)
    return ir.Select(ir.GT(a, b), ir.Sub(ua, ub), ir.Sub(ub, ua))


def _saturating_cast(e: ir.Expr, t: Type) -> ir.Expr:
    src = e.type
    if src.is_float():
        if t.is_float():  # infinities too are pinned to t's finite range, in the wider type
            wide = Float(max(t.bits, src.bits), t.lanes)
            w = _cast(wide, e)
            return _cast(t, ir.Min(ir.Max(w, _c(t.min(), wide)), _c(t.max(), wide)))
        lo, hi = _c(float(t.min()), src), _c(float(t.max()), src)
        return _cast(t, ir.Min(ir.Max(e, lo), hi))
    if t.is_float():
        return _cast(t, e)
    lo = max(t.min(), src.min())
    hi = min(t.max(), src.max())
    if lo > src.min():
        e = ir.Max(e, _c(lo, src))
    if hi < src.max():
        e = ir.Min(e, _c(hi, src))
    return _cast(t, e)


def _intrin(name: str, t: Type, *args: ir.Expr) -> ir.Expr:
    return ir.Call(t, name, args, ir.CallType.INTRINSIC)


def _weight32(w: ir.Expr) -> ir.Expr:
    """An unsigned weight of at most 32 bits as uint32 spanning 0 to 2^32 - 1: its bits
    repeated, so that its max maps to the full scale (the 64-bit path's rule)."""
    u = UInt(32, w.type.lanes)
    acc = w32 = _cast(u, w)
    for _ in range(w.type.bits, 32, w.type.bits):
        acc = _intrin("bitwise_or", u, _intrin("shift_left", u, acc, _c(w.type.bits, u)), w32)
    return acc


def _mul_hi32(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """The high word of the 64-bit product of two uint32s, from four 16-bit partial products
    (none of which overflows 32 bits)."""
    u = a.type
    lo16, sixteen = _c(0xFFFF, u), _c(16, u)
    al, bl = _intrin("bitwise_and", u, a, lo16), _intrin("bitwise_and", u, b, lo16)
    ah, bh = _intrin("shift_right", u, a, sixteen), _intrin("shift_right", u, b, sixteen)
    ll, lh, hl, hh = ir.Mul(al, bl), ir.Mul(al, bh), ir.Mul(ah, bl), ir.Mul(ah, bh)
    # bits 16..31 of the product, from three pieces: what overflows them carries into hi
    mid = ir.Add(ir.Add(_intrin("shift_right", u, ll, sixteen),
                        _intrin("bitwise_and", u, lh, lo16)),
                 _intrin("bitwise_and", u, hl, lo16))
    return ir.Add(ir.Add(hh, ir.Add(_intrin("shift_right", u, lh, sixteen),
                                    _intrin("shift_right", u, hl, sixteen))),
                  _intrin("shift_right", u, mid, sixteen))


_LET_IDS = itertools.count()


class _Lets:
    """Values the 32-bit lerp reads several times, each computed once: written out in full,
    lerps of lerps grow by that factor at each level. `__call__` names a value; `around` wraps
    an expression in Lets of them, the first named outermost."""

    def __init__(self):
        self.pairs: list[tuple[str, ir.Expr]] = []

    def __call__(self, value: ir.Expr) -> ir.Expr:
        if isinstance(value, ir.Variable) or ops.as_const(value) is not None:
            return value
        name = f"lerp.t{next(_LET_IDS)}"
        self.pairs.append((name, value))
        return ir.Variable(value.type, name)

    def around(self, e: ir.Expr) -> ir.Expr:
        for name, value in reversed(self.pairs):
            e = ir.Let(name, value, e)
        return e


def _scaled_round(d: ir.Expr, w: ir.Expr) -> ir.Expr:
    """d * w / (2^32 - 1) rounded to nearest, for uint32 d and w, in 32-bit operations.

    With p = hi * 2^32 + lo and 2^32 = S + 1 (S = 2^32 - 1), p = hi * S + (hi + lo): the
    quotient is hi plus the carry c of hi + lo, and the remainder s = (hi + lo mod 2^32) + c
    (which cannot wrap). Rounding adds s >> 31, which also counts s == S as one more S. S is
    odd, so p / S is never halfway between integers."""
    u = d.type
    let = _Lets()
    d, w = let(d), let(w)
    hi, lo = let(_mul_hi32(d, w)), let(ir.Mul(d, w))
    s = let(ir.Add(hi, lo))
    carry = let(_cast(u, ir.LT(s, lo)))
    rem = ir.Add(s, carry)
    return let.around(ir.Add(ir.Add(hi, carry), _intrin("shift_right", u, rem, _c(31, u))))


def _lerp32(z: ir.Expr, o: ir.Expr, w: ir.Expr, t: Type) -> ir.Expr:
    """lerp of 32-bit values with a uint32 weight w in [0, 2^32 - 1], exactly as the 64-bit
    form rounds (z * (S - w) + o * w) / S: that is z + (o - z) * w / S, and with no ties the
    rounding of the step is the same whichever way it goes, so it is taken on |o - z|."""
    u = UInt(32, t.lanes)
    flip = _c(1 << 31, u) if t.is_int() else None  # signed values move to unsigned order

    def biased(v: ir.Expr) -> ir.Expr:
        v = _cast(u, v)
        return v if flip is None else _intrin("bitwise_xor", u, v, flip)
    let = _Lets()
    zu, ou = let(biased(z)), let(biased(o))
    up = ir.GE(ou, zu)
    step = let(_scaled_round(ir.Select(up, ir.Sub(ou, zu), ir.Sub(zu, ou)), w))
    res = let.around(ir.Select(up, ir.Add(zu, step), ir.Sub(zu, step)))
    return _cast(t, res if flip is None else _intrin("bitwise_xor", u, res, flip))


def _lerp(z: ir.Expr, o: ir.Expr, w: ir.Expr, t: Type, on_gpu: bool = False) -> ir.Expr:
    """Halide's lerp in plain IR; on_gpu: without 64-bit integers where that can be exact."""
    k = ops.as_const(w)
    if k is not None and k == 0:  # a constant end weight needs no arithmetic (nor, for 32-bit
        return z                  # values, the 64-bit kind WGSL does not have)
    if k is not None and k == (1.0 if w.type.is_float() else (1 << w.type.bits) - 1):
        return o
    if t.is_float():
        if w.type.is_float():
            w = _cast(t, w)
        else:  # an unsigned weight spans 0 to its type's max
            w = ir.Div(_cast(t, w), _c(float((1 << w.type.bits) - 1), t))
        return ir.Add(ir.Mul(z, ir.Sub(_c(1.0, t), w)), ir.Mul(o, w))
    bits, lanes = t.bits, t.lanes
    wt = w.type
    if on_gpu and bits == 32 and wt.is_uint() and wt.bits <= 32:
        return _lerp32(z, o, _weight32(w), t)
    # The numerator is at most scale**2: 32 bits hold it for 8- and 16-bit values (and WGSL,
    # which has no 64-bit integers, can run it), 64 bits for 32-bit values.
    narrow = bits <= 16 and (wt.is_float() or wt.bits <= 32)
    wide, signed = (UInt(32, lanes), Int(32, lanes)) if narrow else (UInt(64, lanes),
                                                                     Int(64, lanes))
    scale = (1 << bits) - 1
    if wt.is_float():  # truncated, in the weight's float type (float64 for 32-bit values)
        ft = Float(64, lanes) if bits == 32 else wt
        wf = ir.Mul(_cast(ft, w), _c(float(scale), ft))
        wq = _cast(wide, ir.Min(ir.Max(wf, _c(0.0, ft)), _c(float(scale), ft)))
    elif wt.bits >= bits:  # divided by (2^m - 1) / (2^n - 1), so that only the max maps to max
        wq = ir.Div(_cast(wide, w), _c(((1 << wt.bits) - 1) // scale, wide))
    else:  # replicate the weight's bits so that its max maps to the full scale
        w64 = _cast(wide, w)
        acc, filled = w64, wt.bits
        while filled < bits:
            acc = ir.Call(wide, "bitwise_or", (ir.Call(wide, "shift_left", (acc, _c(wt.bits,
                                                                                   wide)),
                                                       ir.CallType.INTRINSIC), w64),
                          ir.CallType.INTRINSIC)
            filled += wt.bits
        wq = ir.Call(wide, "shift_right", (acc, _c(filled - bits, wide)), ir.CallType.INTRINSIC)
    bias = 1 << (bits - 1) if t.is_int() else 0
    zu = _cast(wide, ir.Add(_cast(signed, z), _c(bias, signed)))
    ou = _cast(wide, ir.Add(_cast(signed, o), _c(bias, signed)))
    num = ir.Add(ir.Mul(zu, ir.Sub(_c(scale, wide), wq)), ir.Mul(ou, wq))
    # num / scale rounded half up, as (2 * num + scale) / (2 * scale) but without overflowing
    # 64 bits when the values are 32-bit (num is below scale**2 < 2**64).
    half_up = ir.GE(ir.Mod(num, _c(scale, wide)), _c((scale + 1) // 2, wide))
    res = ir.Add(ir.Div(num, _c(scale, wide)), _cast(wide, half_up))
    return _cast(t, ir.Sub(_cast(signed, res), _c(bias, signed)))


def _mux(idx: ir.Expr, values: tuple, t: Type) -> ir.Expr:
    result = values[-1]
    for i in range(len(values) - 2, -1, -1):
        result = ir.Select(ir.EQ(idx, _c(i, idx.type)), values[i], result)
    return result


_GPU_LOOPS = (ForType.GPUBlock, ForType.GPUThread)


def run(s, ctx: LowerContext | None = None):
    # Two walkers rather than one with a flag: a lambda per level would double the Python
    # frames per IR level, and deep pipelines (the local Laplacian demo) hit the recursion limit.
    def on_cpu(n):
        if isinstance(n, st.For) and n.for_type in _GPU_LOOPS:
            return on_gpu(n)
        return _lower(rebuild(n, on_cpu), False)

    def on_gpu(n):
        return _lower(rebuild(n, on_gpu), True)
    return on_cpu(s)


def _lower(n, gpu: bool):
    """n with its own intrinsic (not its children's) lowered."""
    if isinstance(n, ir.Call) and n.call_type is ir.CallType.INTRINSIC:
        a = n.args
        match n.name:
            case "absd":
                return _absd(a[0], a[1], n.type)
            case "saturating_cast":
                return _saturating_cast(a[0], n.type)
            case "lerp":
                return _lerp(a[0], a[1], a[2], n.type, gpu)
            case "mux":
                return _mux(a[0], a[1:], n.type)
    return n
