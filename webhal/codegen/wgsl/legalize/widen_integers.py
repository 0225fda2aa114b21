"""8- and 16-bit integer values computed in 32 bits, for a language without narrow integer
types (WGSL; SPIR-V without Int8/Int16).

Afterwards every such value is held in a 32-bit integer of the same signedness, kept in its own
type's range: unsigned ones zero-extended, signed ones sign-extended. Operations that can leave
that range wrap back into it (unsigned: `x & mask`; signed: `((x & mask) ^ sign) - sign`,
which never overflows, so it is safe in a constant expression too). Conversions of floats to a
narrow type clamp to that type's range first (in float32), as webhal's casts saturate.

Two reinterpretations change width here: Reinterpret(Float(16), u32 word) takes the float16 in
the word's low 16 bits (the others zero), and Reinterpret(UInt(32), float16) gives its bits
zero-extended. Narrow buffers must have been packed (pack_storage) or live in memory whose
elements are 32-bit registers (workgroup and local arrays)."""

from __future__ import annotations

import dataclasses

from webhal.codegen.wgsl.legalize.names import Names
from webhal.codegen.wgsl.legalize.nodes import constant, intrinsic, is_narrow
from webhal.codegen.wgsl.legalize.rewriter import Rewriter
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.types import Float, Int, Type, UInt
from webhal.ir.visitor import rebuild, walk

_COUNTS = {"popcount", "count_leading_zeros", "count_trailing_zeros"}


def register_type(t: Type) -> Type:
    """The 32-bit type that holds values of t (t itself unless it is 8/16-bit integer)."""
    return t.with_bits(32) if is_narrow(t) else t


def widen_integers(body: st.Stmt, names: Names | None = None) -> st.Stmt:
    """body with no 8- or 16-bit integer value left."""
    return _Widen(names or Names(body)).stmt(body)


def wrap(e: ir.Expr, t: Type) -> ir.Expr:
    """e (a 32-bit integer) brought back into the range of narrow type t."""
    mask = (1 << t.bits) - 1
    masked = intrinsic(e.type, "bitwise_and", e, constant(mask, e.type))
    if t.is_uint():
        return masked
    sign = constant(1 << (t.bits - 1), e.type)
    return ir.Sub(intrinsic(e.type, "bitwise_xor", masked, sign), sign)


class _Widen(Rewriter):
    def expr(self, e, b):
        if not any(isinstance(n, ir.Expr) and is_narrow(n.type) for n in walk(e)):
            return e
        return self.widen(e)

    def widen(self, e: ir.Expr) -> ir.Expr:
        t = e.type
        match e:
            case ir.IntImm() | ir.UIntImm() | ir.Variable() | ir.Load() if is_narrow(t):
                return _retyped(rebuild(e, self.widen), register_type(t))
            case ir.Add() | ir.Sub() | ir.Mul() | ir.Div() if is_narrow(t):
                value = type(e)(self.widen(e.a), self.widen(e.b))
                # Quotients fit, except the most negative value divided by -1.
                return value if isinstance(e, ir.Div) and t.is_uint() else wrap(value, t)
            case ir.Cast():
                return self.cast(t, e.value)
            case ir.Reinterpret():
                return self.reinterpret(t, e.value)
            case ir.Call() if is_narrow(t) or any(is_narrow(a.type) for a in e.args):
                return self.call(e)
        return rebuild(e, self.widen)

    def cast(self, t: Type, x: ir.Expr) -> ir.Expr:
        src, value = x.type, self.widen(x)
        wide = register_type(t)
        if is_narrow(t) and src.is_float():
            # Clamped to t's range (exact in float32); NaN stays NaN, which converts to 0.
            f32 = Float(32, t.lanes)
            if src.bits != 32:
                value = ir.Cast(f32, value)
            value = ir.Min(ir.Max(value, constant(t.min(), f32)), constant(t.max(), f32))
            return ir.Cast(wide, value)
        out = value if value.type == wide else ir.Cast(wide, value)
        narrows = is_narrow(t) and src.is_int_or_uint() and not src.is_bool() and (
            src.bits > t.bits or src.code != t.code)
        return wrap(out, t) if narrows else out

    def reinterpret(self, t: Type, x: ir.Expr) -> ir.Expr:
        src, value = x.type, self.widen(x)
        if is_narrow(t) and is_narrow(src):
            if src == t:
                return value
            return wrap(ir.Reinterpret(register_type(t), value), t)
        if t.is_float() and is_narrow(src):  # 16 bits of an integer as a float16
            if src.is_int():
                value = wrap(ir.Reinterpret(UInt(32, t.lanes), value), UInt(16, t.lanes))
            return ir.Reinterpret(t, value)
        if is_narrow(t) and src.is_float():  # a float16's bits
            bits = ir.Reinterpret(UInt(32, t.lanes), value)
            return bits if t.is_uint() else wrap(ir.Reinterpret(Int(32, t.lanes), bits), t)
        return ir.Reinterpret(t, value)

    def call(self, e: ir.Call) -> ir.Expr:
        t, wide = e.type, register_type(e.type)
        args = tuple(self.widen(a) for a in e.args)
        if e.name in _COUNTS and is_narrow(t):
            word = args[0]
            if t.is_int():
                word = wrap(ir.Reinterpret(UInt(32, t.lanes), word), UInt(t.bits, t.lanes))
            count: ir.Expr = intrinsic(word.type, e.name, word)
            if e.name == "count_leading_zeros":
                count = ir.Sub(count, constant(32 - t.bits, word.type))
            elif e.name == "count_trailing_zeros":  # 32 for a zero word
                count = ir.Min(count, constant(t.bits, word.type))
            return count if t.is_uint() else ir.Cast(wide, count)
        call = ir.Call(wide, e.name, args, e.call_type, e.func, e.value_index)
        # Shifts may leave t's range; so may ~x of an unsigned x (a signed one stays in it).
        if is_narrow(t) and (e.name in ("shift_left", "shift_right") or
                             t.is_uint() and e.name == "bitwise_not"):
            return wrap(call, t)
        return call


def _retyped(e: ir.Expr, t: Type) -> ir.Expr:
    return dataclasses.replace(e, type=t)
