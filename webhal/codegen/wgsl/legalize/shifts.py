"""Halide's shifts in terms a GPU language has: shift amounts that are unsigned and, when
constant, below the width.

In Halide a negative amount shifts the other way, and a constant amount of the width or more
shifts every bit out (an arithmetic right shift leaves the sign). WGSL and SPIR-V want an
unsigned amount, and WGSL rejects a constant one of 32 or more even in a select arm that is not
taken; WGSL also rejects a constant expression shifted left past its top bit, so a constant
shifted by a constant amount loses those bits first. Afterwards every shift's amount has type
UInt(32) of the shifted value's lanes, and a constant amount is below 32."""

from __future__ import annotations

from webhal.codegen.wgsl.legalize.names import Bindings, Names
from webhal.codegen.wgsl.legalize.nodes import constant, intrinsic
from webhal.codegen.wgsl.legalize.rewriter import Rewriter
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.types import UInt
from webhal.ir.visitor import rebuild, walk

_OTHER = {"shift_left": "shift_right", "shift_right": "shift_left"}


def legalize_shifts(body: st.Stmt, names: Names | None = None) -> st.Stmt:
    """body with every shift in the form described above."""
    return _Shifts(names or Names(body)).stmt(body)


def _is_shift(n) -> bool:
    return isinstance(n, ir.Call) and n.name in _OTHER and n.call_type is ir.CallType.INTRINSIC


def _is_constant(e: ir.Expr) -> bool:
    return not any(isinstance(n, ir.Variable | ir.Load) for n in walk(e))


class _Shifts(Rewriter):
    def expr(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        return self.rewrite(e, b) if any(_is_shift(n) for n in walk(e)) else e

    def rewrite(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        e = rebuild(e, lambda c: self.rewrite(c, b))
        return self.shift(e, b) if _is_shift(e) else e

    def shift(self, e: ir.Call, b: Bindings) -> ir.Expr:
        a, amount = e.args
        t, u32 = e.type, UInt(32, e.type.lanes)
        bits = UInt(t.bits, t.lanes)
        k = ops.as_const(amount)
        if k is None:
            if not amount.type.is_int():
                return _shift(e.name, a, amount if amount.type == u32 else ir.Cast(u32, amount))
            a, amount = b.bind(a, "shifted"), b.bind(amount, "amount")
            zero = constant(0, amount.type)
            back = _shift(_OTHER[e.name], a, ir.Cast(u32, ir.Sub(zero, amount)))
            return ir.Select(ir.LT(amount, zero), back,
                             _shift(e.name, a, ir.Cast(u32, amount)))
        name, k = (e.name if k >= 0 else _OTHER[e.name]), abs(int(k))
        if k >= t.bits:  # every bit shifted out
            if name == "shift_right" and t.is_int():
                return _shift(name, a, constant(t.bits - 1, u32))
            return constant(0, t)
        if name == "shift_left" and _is_constant(a):
            word = a if t.is_uint() else ir.Reinterpret(bits, a)
            kept = intrinsic(bits, "bitwise_and", word, constant(((1 << t.bits) - 1) >> k, bits))
            shifted = _shift(name, kept, constant(k, u32))
            return shifted if t.is_uint() else ir.Reinterpret(t, shifted)
        return _shift(name, a, constant(k, u32))


def _shift(name: str, a: ir.Expr, amount: ir.Expr) -> ir.Call:
    return intrinsic(a.type, name, a, amount)
