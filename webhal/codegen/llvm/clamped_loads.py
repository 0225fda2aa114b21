"""Vector loads at clamped indices, as boundary conditions make them, on wasm SIMD.

`repeat_edge` and `clamp` read `buf[clamp(ramp(b, 1, n), lo, hi) + offset]`. Near an edge the
lanes are consecutive except those clamped to lo or hi, so instead of a gather (an extract, an
address and a one-lane load per lane) each 16 bytes are one dense load from a start s moved
inside [lo, hi] and an i8x16.swizzle that repeats the edge element:

    s    = clamp(b, lo, hi - (k - 1))               k lanes fill 16 bytes
    lane = clamp(b + i, lo, hi) - s  in [0, k - 1]  (so computed in byte lanes)

The dense load stays inside [lo, hi] only when that row holds k elements; narrower rows take the
gather, chosen by a branch on loop-invariant values that LLVM hoists out of the loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as ll

from webhal.codegen.llvm.types import I32, memory_type
from webhal.ir import nodes as ir
from webhal.ir import ops

I8 = ll.IntType(8)
V16I8 = ll.VectorType(I8, 16)


@dataclass(frozen=True)
class ClampedRamp:
    """index == clamp(ramp(base, 1, lanes), lo, hi) + offset, all but the ramp uniform."""

    base: ir.Expr
    lo: ir.Expr
    hi: ir.Expr
    offset: ir.Expr


def match(index: ir.Expr) -> ClampedRamp | None:
    terms: list[tuple[int, ir.Expr]] = []

    def flatten(e: ir.Expr, sign: int) -> None:
        if isinstance(e, ir.Add):
            flatten(e.a, sign)
            flatten(e.b, sign)
        elif isinstance(e, ir.Sub):
            flatten(e.a, sign)
            flatten(e.b, -sign)
        else:
            terms.append((sign, e))

    flatten(index, 1)
    varying = [(s, e) for s, e in terms if not isinstance(e, ir.Broadcast)]
    if len(varying) != 1 or varying[0][0] != 1:
        return None
    bounds = _clamp_of_ramp(varying[0][1])
    if bounds is None:
        return None
    offset: ir.Expr = ops.const(0)
    for s, e in terms:
        if isinstance(e, ir.Broadcast):
            offset = ops.add(offset, e.value) if s > 0 else ops.sub(offset, e.value)
    return ClampedRamp(bounds[0], bounds[1], bounds[2], offset)


def _clamp_of_ramp(e: ir.Expr):
    """(base, lo, hi) for max(min(ramp, hi), lo) or min(max(ramp, lo), hi)."""
    match e:
        case ir.Max(ir.Min(ir.Ramp() as r, ir.Broadcast() as hi), ir.Broadcast() as lo) | \
                ir.Min(ir.Max(ir.Ramp() as r, ir.Broadcast() as lo), ir.Broadcast() as hi):
            if ops.is_const(r.stride, 1) and r.base.type.is_int() and r.base.type.bits == 32:
                return r.base, lo.value, hi.value
    return None


def emit(cg, load: ir.Load, clamped: ClampedRamp, gather) -> ll.Value:
    """The load's value: 16-byte swizzled loads where the row is wide enough, else gather()."""
    b = cg.builder
    t = load.type
    per = 16 // t.bytes
    base, lo, hi = (cg.expr(e) for e in (clamped.base, clamped.lo, clamped.hi))
    offset = cg.expr(clamped.offset)
    wide_enough = b.icmp_signed(">=", b.sub(hi, lo), ll.Constant(I32, per - 1))
    fast_block, slow_block = b.append_basic_block("clamped.swizzle"), \
        b.append_basic_block("clamped.gather")
    done = b.append_basic_block("clamped.done")
    b.cbranch(wide_enough, fast_block, slow_block)

    b.position_at_end(fast_block)
    chunks = [_swizzled_chunk(cg, load, b.add(base, ll.Constant(I32, c)), lo, hi, offset, per)
              for c in range(0, t.lanes, per)]
    fast = _concat(b, chunks)
    fast_end = b.block
    b.branch(done)

    b.position_at_end(slow_block)
    slow = gather()
    slow_end = b.block
    b.branch(done)

    b.position_at_end(done)
    phi = b.phi(fast.type)
    phi.add_incoming(fast, fast_end)
    phi.add_incoming(slow, slow_end)
    return phi


def _clamp(b, v, lo, hi):
    return _smax(b, _smin(b, v, hi), lo)


def _smin(b, x, y):
    return b.select(b.icmp_signed("<", x, y), x, y)


def _smax(b, x, y):
    return b.select(b.icmp_signed(">", x, y), x, y)


def _splat8(b, v: ll.Value) -> ll.Value:
    undef = ll.Constant(V16I8, ll.Undefined)
    one = b.insert_element(undef, v, ll.Constant(I32, 0))
    return b.shuffle_vector(one, undef, ll.Constant(ll.VectorType(I32, 16), [0] * 16))


def _swizzled_chunk(cg, load: ir.Load, first, lo, hi, offset, per: int) -> ll.Value:
    b = cg.builder
    t = load.type
    size = t.bytes
    start = _clamp(b, first, lo, b.sub(hi, ll.Constant(I32, per - 1)))
    elem = memory_type(t.element_of())
    vt = memory_type(t.with_lanes(per))
    dense = cg.tbaa(b.load(cg.element_pointer(load.name, b.add(offset, start), elem), typ=vt,
                           align=size), load.name)
    # Lane positions relative to `start`, in bytes lanes: the clamps keep them within int8
    # (a ramp more than 64 lanes outside [lo, hi] has all its lanes clamped to one edge).
    def narrow(v, low, high):
        return b.trunc(_clamp(b, v, ll.Constant(I32, low), ll.Constant(I32, high)), I8)
    shift = narrow(b.sub(first, start), -64, 64)
    low = narrow(b.sub(lo, start), -128, 0)
    high = narrow(b.sub(hi, start), 0, 127)
    lane_of_byte = ll.Constant(V16I8, [j // size for j in range(16)])
    lane = b.add(_splat8(b, shift), lane_of_byte)
    smax = cg.intrinsic("llvm.smax", V16I8, [V16I8, V16I8])
    smin = cg.intrinsic("llvm.smin", V16I8, [V16I8, V16I8])
    lane = b.call(smin, [b.call(smax, [lane, _splat8(b, low)]), _splat8(b, high)])
    if size > 1:
        lane = b.add(b.shl(lane, ll.Constant(V16I8, [(size.bit_length() - 1)] * 16)),
                     ll.Constant(V16I8, [j % size for j in range(16)]))
    swizzle = cg.intrinsic("llvm.wasm.swizzle", V16I8, [V16I8, V16I8], [])
    moved = b.call(swizzle, [b.bitcast(dense, V16I8), lane])
    return b.bitcast(moved, vt)


def _concat(b, chunks: list[ll.Value]) -> ll.Value:
    while len(chunks) > 1:
        n = chunks[0].type.count
        mask = ll.Constant(ll.VectorType(I32, 2 * n), list(range(2 * n)))
        chunks = [b.shuffle_vector(x, y, mask) for x, y in zip(chunks[::2], chunks[1::2])]
    return chunks[0]
