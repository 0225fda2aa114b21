"""Vector loads and stores of a small constant stride without one scalar access per lane.

A load of stride 2 to 4 is two dense loads covering the span it reads, then a shuffle that
keeps every k-th element: the span lies between two elements the load reads, so it is memory
of the same buffer. k stores of stride k to consecutive bases (an unrolled channel loop writing
interleaved RGB) are one dense store of their values interleaved. Elsewhere a strided vector is
read and written a lane at a time, which made interleaved images 20-40x slower than planar ones.

Strided loads of one buffer at consecutive bases b, b+1, ..., b+k-1 (stride k) in one store's
value (a downsample's taps at 2x-1, 2x, 2x+1, 2x+2) together read every element of
[b, b + k * lanes): each is k dense loads of that run and a shuffle, the same loads for all of
them, which LLVM shares, as Halide loads each run once and takes its even and odd lanes.

A load at x / d and x % d of a dense ramp x (an upsample: `f[x / 2]`, `f[x / 2 - 1 + 2 * (x % 2)]`)
reads a short run of elements that depends only on x's phase modulo d: two dense loads inside
that run and a shuffle per phase, chosen by a select, instead of a gather.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as ll

from webhal.analysis.linear import linear_form
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.visitor import children, walk

MAX_STRIDE = 4  # beyond this a dense load reads more than it keeps


def distance(a: ir.Expr, b: ir.Expr) -> int | None:
    """b - a when it is a constant (common terms cancelled), else None."""
    terms, c = linear_form(ir.Sub(b, a))
    return None if terms else c


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


def strided_groups(value: ir.Expr) -> dict[tuple, int]:
    """For each strided load in value that is always evaluated (not under a select or a call)
    and one of k loads of the same buffer, stride k, lanes and type at consecutive bases
    b, ..., b+k-1: (buffer, k, lanes, base) -> its place j in that run (base = b + j). Runs
    are taken in order of base from the lowest, each base in at most one."""
    taps: dict[tuple, list[ir.Expr]] = {}
    stack = [value]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.Select | ir.Call):
            continue
        if isinstance(e, ir.Load) and e.predicate is None and e.type.lanes > 1 and \
                (k := small_stride(e.index)):
            bases = taps.setdefault((e.name, k, e.type.lanes, e.type), [])
            if e.index.base not in bases:
                bases.append(e.index.base)
        stack.extend(c for c in children(e) if isinstance(c, ir.Expr))
    groups: dict[tuple, int] = {}
    for (name, k, lanes, _), bases in taps.items():
        while bases:
            ref = bases[0]
            offsets = {}
            for b in bases:
                o = distance(ref, b)
                if o is not None:
                    offsets[o] = b
            bases = [b for b in bases if b not in offsets.values()]
            ordered = sorted(offsets)
            i = 0
            while i < len(ordered):
                o = ordered[i]
                if all(o + j in offsets for j in range(k)):
                    for j in range(k):
                        groups[(name, k, lanes, offsets[o + j])] = j
                    i = ordered.index(o + k - 1) + 1
                else:
                    i += 1
    return groups


def grouped_strided_load(b: ll.IRBuilder, base_ptr: ll.Value, elem: ll.Type, lanes: int,
                         stride: int, place: int, align: int, tag) -> ll.Value:
    """The load at base_ptr of stride k, lanes n, the place-th of a run of k such loads
    (strided_groups): k dense loads of n from base_ptr - place, and a shuffle."""
    i32 = ll.IntType(32)
    vt = ll.VectorType(elem, lanes)
    start = b.gep(base_ptr, [ll.Constant(i32, -place)], source_etype=elem)
    parts = [tag(b.load(b.gep(start, [ll.Constant(i32, m * lanes)], source_etype=elem),
                        typ=vt, align=align)) for m in range(stride)]
    wide = _concat(b, parts)
    return b.shuffle_vector(wide, ll.Constant(wide.type, ll.Undefined),
                            _mask(place + stride * i for i in range(lanes)))


MAX_PHASES = 4  # x / d and x % d for d up to this


@dataclass(frozen=True)
class PhasedIndex:
    """index == ramp of lanes i: coef * (b / d) + uniform + patterns[b % d][i], where b is the
    base of a dense ramp (floor division and modulus, as Halide's)."""

    ramp_base: ir.Expr
    divisor: int
    coef: int
    uniform: ir.Expr
    patterns: tuple[tuple[int, ...], ...]


def phased_index(index: ir.Expr) -> PhasedIndex | None:
    """index as a PhasedIndex when it is a sum of uniform terms and constant multiples of x,
    x / d and x % d for dense ramps x (one of them plus constants) and one
    2 <= d <= MAX_PHASES, each phase's lanes
    reading a contiguous run of elements; None otherwise."""
    lanes = index.type.lanes
    found: dict[str, object] = {}
    terms: list[tuple[int, str, int]] = []  # (coefficient, "ramp" | "div" | "mod", offset)
    uniform: list[tuple[int, ir.Expr]] = []

    def ramp_of(e: ir.Expr) -> int | None:
        """k when e is the first dense ramp found plus k."""
        if not (isinstance(e, ir.Ramp) and ops.is_const(e.stride, 1)):
            return None
        return distance(found.setdefault("ramp", e).base, e.base)

    def divisor_of(e: ir.Expr) -> bool:
        d = ops.as_const(e.value) if isinstance(e, ir.Broadcast) else None
        if not isinstance(d, int) or not 2 <= d <= MAX_PHASES:
            return False
        return found.setdefault("d", d) == d

    def visit(e: ir.Expr, c: int) -> bool:
        if isinstance(e, ir.Add):
            return visit(e.a, c) and visit(e.b, c)
        if isinstance(e, ir.Sub):
            return visit(e.a, c) and visit(e.b, -c)
        if isinstance(e, ir.Broadcast):
            uniform.append((c, e.value))
            return True
        if isinstance(e, ir.Mul):
            for x, k in ((e.a, e.b), (e.b, e.a)):
                kc = ops.as_const(k.value) if isinstance(k, ir.Broadcast) else None
                if isinstance(kc, int):
                    return visit(x, c * kc)
            return False
        if (k := ramp_of(e)) is not None:
            terms.append((c, "ramp", k))
            return True
        if isinstance(e, (ir.Div, ir.Mod)) and (k := ramp_of(e.a)) is not None and \
                divisor_of(e.b):
            terms.append((c, "div" if isinstance(e, ir.Div) else "mod", k))
            return True
        return False

    if not index.type.is_int() or index.type.bits != 32 or not visit(index, 1) \
            or "d" not in found:
        return None
    d = found["d"]
    coef = sum(c * (d if kind == "ramp" else 1) for c, kind, _ in terms if kind != "mod")
    patterns = []
    for p in range(d):
        def lane(i: int, p: int = p) -> int:
            return sum(c * (v if kind == "ramp" else v // d if kind == "div" else v % d)
                       for c, kind, v in ((c, kind, p + i + k) for c, kind, k in terms))
        pattern = tuple(lane(i) for i in range(lanes))
        if set(pattern) != set(range(min(pattern), max(pattern) + 1)):
            return None
        patterns.append(pattern)
    total: ir.Expr = ops.const(0)
    for c, v in uniform:
        total = ops.add(total, ops.mul(v, ops.const(c)) if c != 1 else v)
    return PhasedIndex(found["ramp"].base, d, coef, total, tuple(patterns))


def phased_load(b: ll.IRBuilder, pointer, phase: ll.Value, elem: ll.Type,
                patterns: tuple[tuple[int, ...], ...], align: int, tag) -> ll.Value | None:
    """The lanes of a PhasedIndex load: pointer(offset) is the element at base + offset,
    phase b % d (i32). Per phase, two dense loads of one power-of-two width inside the run
    that phase reads (so never outside what the gather would read), at offsets chosen by
    phase, and a shuffle; the phases' shuffles are selected by phase. None when the runs are
    too short for a vector or too long for two loads."""
    runs = [(min(q), max(q) - min(q) + 1) for q in patterns]
    shortest = min(n for _, n in runs)
    width = 1 << (shortest.bit_length() - 1)  # a power of two <= every run
    if width < 2 or any(n > 2 * width for _, n in runs):
        return None
    i32 = ll.IntType(32)
    firsts = [lo for lo, _ in runs]
    seconds = [lo + n - width for lo, n in runs]

    def pick(values: list[int]) -> ll.Value:
        v = ll.Constant(i32, values[0])
        for p in range(1, len(values)):
            if values[p] != values[0]:
                v = b.select(b.icmp_signed("==", phase, ll.Constant(i32, p)),
                             ll.Constant(i32, values[p]), v)
        return v

    vt = ll.VectorType(elem, width)
    first = tag(b.load(pointer(pick(firsts)), typ=vt, align=align))
    second = tag(b.load(pointer(pick(seconds)), typ=vt, align=align))
    result = None
    for p, q in enumerate(patterns):
        shuffled = b.shuffle_vector(first, second, _mask(
            v - firsts[p] if v < firsts[p] + width else width + v - seconds[p] for v in q))
        result = shuffled if result is None else b.select(
            b.icmp_signed("==", phase, ll.Constant(i32, p)), shuffled, result)
    return result


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
