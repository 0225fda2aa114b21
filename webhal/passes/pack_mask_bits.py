"""Pack mask bits: build a bit field of comparison results in the comparisons' own lane width.

A census transform, local binary patterns and binary descriptors (BRIEF, ORB) OR together
selects of a constant bit and zero, each chosen by a comparison of narrow (8- or 16-bit) values,
into a 32-bit result:

    select(a0 < c, 1 << 23, 0) | select(a1 < c, 1 << 22, 0) | ... | select(a23 < c, 1, 0)

Written as it stands, each of the 24 masks is widened from 16 byte lanes to four vectors of 32-bit
lanes before its AND and OR. Grouped by the byte (16-bit field) its constant lies in, the terms
are the same value computed in narrow lanes and widened once per field:

    u32(select(a0 < c, 128, 0) | ... | select(a7 < c, 1, 0)) << 16 | u32(...) << 8 | u32(...)

which is exact (a select of K or 0 is the select of K's field shifted into place, and OR
distributes over the fields) and about five times fewer vector instructions on wasm SIMD and SSE.
Only vector ORs are rewritten, and only fields with two or more terms; GPU loops are left alone.
"""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType
from webhal.ir.types import Type, UInt
from webhal.ir.visitor import rebuild
from webhal.passes.context import LowerContext

_GPU_LOOPS = (ForType.GPUBlock, ForType.GPUThread)
_FIELD_WIDTHS = (8, 16)


def _or(t: Type, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.Call(t, "bitwise_or", (a, b), ir.CallType.INTRINSIC)


def _leaves(e: ir.Expr, t: Type) -> list[ir.Expr]:
    """The operands of the tree of bitwise_or calls of type t rooted at e."""
    if isinstance(e, ir.Call) and e.name == "bitwise_or" and e.type == t:
        return _leaves(e.args[0], t) + _leaves(e.args[1], t)
    return [e]


def _mask_width(c: ir.Expr) -> int:
    """The lane width a vector condition is computed in: its comparison's operands' bits."""
    match c:
        case ir.Broadcast():
            return 1
        case ir.CompareOp():
            return c.a.type.bits
        case ir.And() | ir.Or():
            return max(_mask_width(c.a), _mask_width(c.b))
        case ir.Not():
            return _mask_width(c.a)
    return 64


def _bit_term(e: ir.Expr) -> tuple[ir.Expr, int] | None:
    """(condition, K) for select(condition, K, 0) with a constant K != 0."""
    if not isinstance(e, ir.Select) or not ops.is_const(e.false_value, 0):
        return None
    k = ops.as_const(e.true_value)
    return (e.condition, k & ((1 << e.type.bits) - 1)) if k else None


def _pack(e: ir.Call) -> ir.Expr:
    t = e.type
    leaves = [run_expr(v) for v in _leaves(e, t)]
    terms = [(v, _bit_term(v)) for v in leaves]
    widths = [_mask_width(bt[0]) for _, bt in terms if bt]
    field = next((w for w in _FIELD_WIDTHS if widths and max(widths) <= w < t.bits), None)
    groups: dict[int, list[int]] = {}  # field -> indices of its terms
    if field is not None:
        for i, (_, bt) in enumerate(terms):
            if bt is not None:
                j = (bt[1].bit_length() - 1) // field
                if bt[1] >> (field * j) < 1 << field:  # K lies within field j
                    groups.setdefault(j, []).append(i)
    groups = {j: g for j, g in groups.items() if len(g) >= 2}
    if not groups:
        return _or_all(t, leaves)
    packed = {i for g in groups.values() for i in g}
    rest = [v for i, (v, _) in enumerate(terms) if i not in packed]
    narrow = UInt(field, t.lanes)
    parts = []
    for j, group in sorted(groups.items()):
        fields = [ir.Select(c, _splat(narrow, k >> (field * j)), _splat(narrow, 0))
                  for c, k in (terms[i][1] for i in group)]
        wide = ir.Cast(t, _or_all(narrow, fields))
        if j:
            amount = _splat(t.with_code(narrow.code), field * j)  # shifts take unsigned amounts
            wide = ir.Call(t, "shift_left", (wide, amount), ir.CallType.INTRINSIC)
        parts.append(wide)
    return _or_all(t, parts + rest)


def _splat(t: Type, value: int) -> ir.Expr:
    return ir.Broadcast(ops.make_const(t.element_of(), value), t.lanes)


def _or_all(t: Type, values: list[ir.Expr]) -> ir.Expr:
    out = values[0]
    for v in values[1:]:
        out = _or(t, out, v)
    return out


def run_expr(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Call) and e.name == "bitwise_or" and e.type.lanes > 1 and \
            e.type.is_int_or_uint():
        return _pack(e)
    return rebuild(e, run_expr)


def run(s: st.Stmt, ctx: LowerContext | None = None) -> st.Stmt:
    def go(n):
        if isinstance(n, ir.Expr):
            return run_expr(n)
        if isinstance(n, st.For) and n.for_type in _GPU_LOOPS:
            return n
        return rebuild(n, go)
    return go(s)
