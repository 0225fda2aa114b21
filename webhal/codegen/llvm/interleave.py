"""Vector loads and stores of a small constant stride without one scalar access per lane.

A load of stride 2 to 4 is two dense loads covering the span it reads, then a shuffle that
keeps every k-th element: the span lies between two elements the load reads, so it is memory
of the same buffer. k stores of stride k to consecutive bases (an unrolled channel loop writing
interleaved RGB) are one dense store of their values interleaved. Elsewhere a strided vector is
read and written a lane at a time, which made interleaved images 20-40x slower than planar ones.
"""

from __future__ import annotations

from llvmlite import ir as ll

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.visitor import walk

MAX_STRIDE = 4  # beyond this a dense load reads more than it keeps


def small_stride(index: ir.Expr) -> int | None:
    """k when index is a ramp of constant stride 2 <= k <= MAX_STRIDE."""
    if not isinstance(index, ir.Ramp):
        return None
    k = ops.as_const(index.stride)
    return k if isinstance(k, int) and 2 <= k <= MAX_STRIDE else None


def strided_load(b: ll.IRBuilder, base_ptr: ll.Value, elem: ll.Type, lanes: int, stride: int,
                 align: int, tag) -> ll.Value:
    """lanes elements from base_ptr, stride apart: two dense loads of a power-of-two width
    that together cover the span exactly (the first at its start, the second ending at its
    last element; each passed to tag, which marks what it reads), and one shuffle of the two.
    A single load of the span itself (15 floats for 8 lanes of stride 2) is an odd-sized
    vector that x86's backend takes apart into a dozen scalar inserts and shuffles; reading
    past the span instead could fault at the end of a buffer."""
    span = (lanes - 1) * stride + 1
    width = 1 << (-(-span // 2) - 1).bit_length()  # a power of two >= span / 2, <= span
    second_at = span - width
    vt = ll.VectorType(elem, width)
    first = tag(b.load(base_ptr, typ=vt, align=align))
    second_ptr = b.gep(base_ptr, [ll.Constant(ll.IntType(32), second_at)], source_etype=elem)
    second = tag(b.load(second_ptr, typ=vt, align=align))
    picks = (j if j < width else width + j - second_at for j in range(0, span, stride))
    return b.shuffle_vector(first, second, _mask(picks))


def peel_lets(s: st.Stmt) -> tuple[list[st.LetStmt], st.Stmt]:
    """The LetStmts wrapping s, outermost first, and the statement inside them."""
    lets = []
    while isinstance(s, st.LetStmt):
        lets.append(s)
        s = s.body
    return lets, s


def interleaved_group(stmts: tuple[st.Stmt, ...], start: int) -> int:
    """How many statements from `start` are stores that together write a dense run: k stores
    of stride k into one buffer with bases b, b+1, ..., b+k-1, none reading that buffer (so
    their order does not matter); 0 when they are not. Each store may sit under lets (an
    unrolled loop repeats its loop variables' lets before every store) when all k have the
    same lets, none of which reads the buffer: they are then bound once around the group."""
    lets, first = peel_lets(stmts[start])
    k = _plain_vector_store(first) and small_stride(first.index)
    if not k or start + k > len(stmts):
        return 0
    bindings = [(let.name, let.value) for let in lets]
    if any(_reads(let.value, first.name) for let in lets):
        return 0
    for i, s in enumerate(stmts[start:start + k]):
        s_lets, s = peel_lets(s)
        if i and [(let.name, let.value) for let in s_lets] != bindings:
            return 0
        if not _plain_vector_store(s) or s.name != first.name or \
                s.value.type != first.value.type or small_stride(s.index) != k:
            return 0
        if ops.as_const(ops.sub(s.index.base, first.index.base)) != i:
            return 0
        if _reads(s.value, first.name):
            return 0
    return k


def _reads(e: ir.Expr, name: str) -> bool:
    return any(isinstance(n, ir.Load) and n.name == name for n in walk(e))


def interleave(b: ll.IRBuilder, values: list[ll.Value]) -> ll.Value:
    """One vector of the values' lanes in turn: v0[0], v1[0], ..., v0[1], v1[1], ..."""
    lanes, k = values[0].type.count, len(values)
    wide = _concat(b, values)
    return b.shuffle_vector(wide, ll.Constant(wide.type, ll.Undefined),
                            _mask((j % k) * lanes + j // k for j in range(lanes * k)))


def _plain_vector_store(s: st.Stmt) -> bool:
    return isinstance(s, st.Store) and s.predicate is None and s.value.type.lanes > 1 and \
        not s.value.type.is_bool()


def _concat(b: ll.IRBuilder, values: list[ll.Value]) -> ll.Value:
    """The values end to end, then undefined lanes up to a power-of-two count of values."""
    undefined = ll.Constant(values[0].type, ll.Undefined)
    while len(values) & (len(values) - 1):
        values = values + [undefined]
    while len(values) > 1:
        values = [b.shuffle_vector(values[i], values[i + 1],
                                   _mask(range(2 * values[i].type.count)))
                  for i in range(0, len(values), 2)]
    return values[0]


def _mask(indices) -> ll.Constant:
    indices = list(indices)
    return ll.Constant(ll.VectorType(ll.IntType(32), len(indices)), indices)
