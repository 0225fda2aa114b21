"""The cost model: an estimate of the time a set of choices takes on a Machine.

Each Func is inlined into its consumers, computed at root (its own loop nest: on WebGPU its
own dispatch), or fused into the group of its consumer: computed per strip of rows of the
group's output (`strip`), or stored per strip and computed per row (`slide`, a sliding window
that computes each row once). The model charges, per group:

- arithmetic per point, divided by the vector's lanes (widenings and gathers are charged per
  op and per lane: SIMD128 has no gathers), times the points computed, including the halo rows
  a fused producer recomputes per strip and the recomputation of inlined producers;
- memory traffic for what does not stay in cache: a root Func's buffer is written and read
  back; a fused producer's strip (or its sliding window's rows) costs traffic only beyond the
  cache;
- the worker pool: jobs run `threads` at a time, each job costs `job_ns` to hand out; for a
  pool of run-time size (wasm_threads) the mean over its plausible sizes (Machine.parallel_ns);
- on WebGPU: a fixed cost per dispatch and per buffer; per kernel its arithmetic (each
  distinct instance of an inlined producer once), a load instruction per distinct tap (served
  by cache where neighbouring invocations read the same or adjacent elements), and memory
  traffic for the distinct elements each workgroup's tile reads from a stored Func or an
  input (its footprint: a vertical pass over an inlined horizontal one reads its tile plus a
  halo, not sixteen elements a point) and writes. A producer read by one consumer's
  stencil may be computed per workgroup into workgroup memory (`shared`): no dispatch or buffer
  of its own, its loads from it cheap, at the price of the halo each workgroup recomputes, a
  barrier, and a workgroup that must hold the tile's footprint within the adapter's limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from webhal.autoschedule.graph import Node
from webhal.autoschedule.targets import Machine
from webhal.ir.function import Function

INLINE, ROOT, STRIP, SLIDE, SHARED = "inline", "root", "strip", "slide", "shared"
# A byte moved to and from the second-level cache, as a share of one moved to memory (Machine's
# l1_bytes): enough that a sliding window, whose rows stay in the first level, beats a strip
# that fits only the second.
L2_SHARE = 0.25


@dataclass
class Group:
    """A root Func and the producers fused into it (with their halo rows over a strip)."""

    root: int                     # id of the root Function
    members: dict[int, int]       # fused Function id -> halo rows it needs beyond a strip


def points(region) -> int:
    return math.prod(max(e, 1) for _, e in region)


def vector_lanes(node: Node, machine: Machine) -> int:
    """Lanes to vectorize a Func by: at least one vector of its narrowest type, and two of its
    widest (two independent vectors keep the SIMD unit busy). AVX-512's stop at two of the
    widest type: a uint8 census signed in uint32 at 64 lanes (four registers a value) ran
    1.64x slower on the host than at 32 or 16 (on AVX2, 16 lanes against 32 were not shown
    to differ: 0.92, range 0.70-1.30)."""
    if not machine.vector_bits:
        return 1
    if machine.vector_bits >= 512:
        return 2 * machine.lanes(node.bits)
    return max(machine.lanes(node.narrow_bits), 2 * machine.lanes(node.bits))


# The fewest adjacent x of 8/16-bit values a GPU invocation computes (whole 32-bit words, at least
# one). On a CPU adapter an invocation has a fixed cost besides its work: the u8 blur's uint16
# pass, 4 values an invocation instead of 2, ran 1.6x faster on SwiftShader at 1024^2 (its call
# 1.25x). Wider still pays less there (the uint8 output, 16 values for 4: 1.05-1.1x) and costs a
# GPU its coalescing: the same 4096^2 blur at 4 words an invocation for both passes, 2.2x slower
# on the H200.
GPU_MIN_ELEMENTS_PER_INVOCATION = 4


def gpu_pack(fn) -> int:
    """Adjacent x of `fn` that one invocation of its GPU stages computes: for 8/16-bit values
    whole 32-bit words of them, GPU_MIN_ELEMENTS_PER_INVOCATION at least; 1 otherwise."""
    bits = min(t.bits for t in fn.types) or 32
    return max(32 // bits, GPU_MIN_ELEMENTS_PER_INVOCATION) if bits < 32 else 1


def tile_shape(width: int, height: int, layers: int, tile: tuple[int, int],
               fits=None) -> tuple[int, int]:
    """(x, y) invocations of a GPU stage's workgroup for `width` x `height` (x in words) x
    `layers` points: within `tile`, powers of two, smaller on a small level (so that it still
    spreads over the GPU), and smaller again until `fits(tx, ty)` (a producer in workgroup
    memory needs its footprint within the adapter's limits)."""
    tx = pow2_at_least(width, tile[0])
    ty = pow2_at_least(height, (tile[0] * tile[1]) // tx)
    while tx * ty > MIN_WORKGROUP_INVOCATIONS and \
            -(-width // tx) * -(-height // ty) * layers < MIN_WORKGROUPS:
        if ty >= tx:  # rows first: x stays the wider side, whose loads coalesce
            ty //= 2
        else:
            tx //= 2
    while fits is not None and not fits(tx, ty) and tx * ty > 1:
        if ty >= tx and ty > 1:
            ty //= 2
        else:
            tx //= 2
    return tx, ty


def pow2_at_least(n: int, cap: int) -> int:
    return max(1, min(cap, 1 << max(0, math.ceil(math.log2(max(n, 1))))))


# The most values of a third Var an invocation computes, unrolled (CostModel.layers_inside).
MAX_UNROLLED_LAYERS = 8

# Workgroups a dispatch should have at least (a GPU runs tens of them at once), and the
# invocations a workgroup shrinks to at the least to get them (half an NVIDIA warp).
MIN_WORKGROUPS = 32
MIN_WORKGROUP_INVOCATIONS = 16


def _compose(c: tuple, at: dict, unique) -> tuple:
    """Coordinate `c` (var, coeff, lo, hi: a graph.Coord as plain numbers) of a read by an
    instance of its consumer whose Vars stand at `at` (Var -> (root Var, scale, lo, hi) of the
    kernel's own Vars), as the same kind of tuple; a data-dependent coordinate is its own value
    (`unique`: the read that makes it)."""
    var, coeff, clo, chi = c
    if var is None:
        return ("?", unique)
    if var == "":
        return ("", 0, clo, chi)
    v = at.get(var)
    if v is None or v[0] in ("?", ""):
        return ("?", unique) if v is None or v[0] == "?" else ("", 0, coeff * v[2] + clo,
                                                              coeff * v[3] + chi)
    return (v[0], coeff * v[1], coeff * v[2] + clo, coeff * v[3] + chi)


def _plain(tap) -> tuple:
    """A tap's coordinates as (var, coeff, lo, hi) with a float coefficient (halves and
    doubles are exact), cheaper to compose and hash than Fractions."""
    return tuple((c.var, float(c.coeff), c.lo, c.hi) for c in tap)


def _box(where: tuple, extents: dict[str, int]) -> tuple:
    """The elements a tap at `where` (composed coordinates, see _compose) reads over a
    workgroup's tile of `extents` points per Var: per coordinate an interval, or for a
    data-dependent one its read's tag (one element a point, in no box with another tag)."""
    out = []
    for c in where:
        if c[0] == "?":
            out.append(("?", c[1]))
        elif c[0] == "":
            out.append((c[2], c[3]))
        else:
            span = c[1] * (extents.get(c[0], 1) - 1)
            out.append((c[2] + min(0.0, span), c[3] + max(0.0, span)))
    return tuple(out)


def _footprint(boxes: list[tuple]) -> float:
    """Distinct elements the boxes of one producer's taps cover: the taps of a stencil
    overlap, so the boxes of taps that share their data-dependent coordinates are one box
    (their bounding box); those with other data-dependent reads are apart."""
    groups: dict[tuple, list] = {}
    for b in boxes:
        key = tuple(c[1] if c[0] == "?" else None for c in b)
        g = groups.get(key)
        if g is None:
            groups[key] = [list(c) if c[0] != "?" else None for c in b]
            continue
        for d, c in enumerate(b):
            if c[0] != "?":
                g[d][0], g[d][1] = min(g[d][0], c[0]), max(g[d][1], c[1])
    total = 0.0
    for g in groups.values():
        total += math.prod(max(1, math.floor(c[1]) - math.ceil(c[0]) + 1)
                           for c in g if c is not None)
    return total


class CostModel:
    """Costs of choices for one pipeline on one Machine."""

    def __init__(self, nodes: dict[int, Node], regions: dict, machine: Machine):
        self.nodes, self.regions, self.m = nodes, regions, machine
        # (Function id, dimension) whose extent is the same whatever the estimates
        # (regions.fixed_extents): a loop of constant extent
        self.fixed: set[tuple[int, int]] = set()

    # -- per point ---------------------------------------------------------------------------

    def point_cost(self, fid: int, choices: dict[int, str], lanes: int,
                   indexed: frozenset = frozenset()) -> float:
        """ns per point of Func `fid`, with its inlined producers recomputed in it.

        `indexed`: the Vars of `fid` that stand at data-dependent values where it is inlined
        (its consumer reads it through a coordinate that is a value, as a lookup table is
        read): a read of `fid` with a coordinate in them is a gather too. Inlining a table
        indexed by pixel values does not turn the lookup into vector loads: each pixel then
        gathers what the table reads and computes its arithmetic, where at root the table is
        computed once per entry and gathered once (the histogram equalization's table, 256
        entries inlined into 1.5M pixels: 1.6-2.1x the hand schedule's time on wasm SIMD,
        which computes it at root)."""
        m, node = self.m, self.nodes[fid]
        vec = (node.ops * m.op_ns + node.widenings * m.widen_ns) / lanes
        for r in node.reads:
            pid = id(r.producer)
            dd = [c.var is None or c.var in indexed for c in r.coords]
            if choices.get(pid) == INLINE:
                inner = frozenset(r.producer.pure_args) if self._lookup(r, dd) else frozenset()
                vec += r.count * self.point_cost(pid, choices, lanes, inner)
            elif any(dd):
                vec += r.count * m.gather_ns  # a scalar load and a lane insert per lane
            else:
                vec += r.count * m.op_ns / lanes
        return vec

    def _lookup(self, r, dd: list[bool]) -> bool:
        """Whether read `r` (`dd`: which of its coordinates are values) is a lookup in a table:
        every coordinate a value, in its consumer's pure definition, of a producer whose
        extents are the same whatever the estimates (the range of its index, as the
        histogram's 256 levels). Only then are the producer's Vars values where it is
        inlined (point_cost's `indexed`). Not an update's reads (all data-dependent to the
        graph whatever they are: their loops are serial, charged alike whatever is inlined),
        nor a read indexed in some coordinates only (the local Laplacian's level, x and y its
        consumer's), nor one whose coordinates the graph could not follow through a clamp
        (the local Laplacian's upsampled output levels, which grow with the image): those are
        priced as before, their measured schedules unchanged."""
        fn = r.producer
        return all(dd) and bool(dd) and not r.in_update and \
            isinstance(fn, Function) and id(fn) in self.nodes and \
            all((id(fn), d) in self.fixed for d in range(len(fn.pure_args)))

    def gpu_point_cost(self, fid: int, choices: dict[int, str]) -> float:
        """ns per point of Func `fid` in its own GPU kernel: the ops of every distinct
        instance of its inlined producers (one producer read at the same offsets twice is the
        same value, computed once: the WGSL compiler's and the driver's common subexpressions,
        as in the Sobel magnitude, whose four inlined smoothing passes share the 3x3 input
        taps), a load per distinct tap of a stored Func or an input, and the memory traffic of
        the distinct elements a workgroup's tile reads of each, per point. It depends only
        on which Funcs the kernel inlines, so it is computed once per such set."""
        inlined, shared, stack = [], set(), [fid]
        while stack:
            f = stack.pop()
            for r in self.nodes[f].reads:
                pid = id(r.producer)
                if choices.get(pid) == INLINE and pid not in inlined:
                    inlined.append(pid)
                    stack.append(pid)
                elif choices.get(pid) == SHARED:
                    shared.add(pid)
        key = (fid, frozenset(inlined), frozenset(shared))
        cache = self.__dict__.setdefault("_gpu_cache", {})
        if key not in cache:
            cache[key] = self._gpu_point_cost(fid, choices)
        return cache[key]

    def _gpu_point_cost(self, fid: int, choices: dict[int, str]) -> float:
        m = self.m
        root = self.nodes[fid]
        cost = 0.0
        seen: set = set()
        unique: dict = {}  # a data-dependent coordinate's read, as a small number
        # what the kernel loads from memory: per stored producer, its element's bytes and
        # the boxes of its taps over a workgroup's tile (see _footprint_bytes)
        stored: dict[int, tuple[int, list]] = {}
        extents = self._tile_extents(fid)
        stack = [(fid, {v: (v, 1, 0, 0) for v in root.fn.pure_args})]
        while stack:
            f, at = stack.pop()
            node = self.nodes[f]
            cost += node.ops * m.op_ns + node.widenings * m.widen_ns
            here = tuple(at.items())
            for r in node.reads:
                pid = id(r.producer)
                inlined = choices.get(pid) == INLINE
                for k, tap in enumerate(self._plain_taps(r)):
                    tag = unique.setdefault((f, here, pid, k), len(unique))
                    where = tuple(_compose(c, at, tag) for c in tap)
                    if (pid, where) in seen:
                        continue
                    seen.add((pid, where))
                    if inlined:
                        stack.append((pid, dict(zip(r.producer.pure_args, where))))
                        continue
                    if any(c[0] is None for c in tap):
                        cost += m.gather_ns
                    elif choices.get(pid) == SHARED:
                        cost += m.shared_load_ns
                        continue
                    else:
                        cost += m.load_ns
                    stored.setdefault(pid, (r.bits // 8, []))[1].append(
                        _box(where, extents))
        points_per_tile = math.prod(extents.values())
        for nbytes, boxes in stored.values():
            cost += _footprint(boxes) * nbytes * m.byte_ns / points_per_tile
        return cost

    def _tile_extents(self, fid: int) -> dict[str, int]:
        """Points of Func `fid` per workgroup of its kernel, per pure Var: x and y over the
        invocations as plan._gpu_stage tiles them (x in elements: `gpu_pack` per
        invocation), a third Var a block dimension (one value), further Vars loops inside
        each invocation (all their values)."""
        fn = self.nodes[fid].fn
        region = self.regions[fid]
        args = fn.pure_args
        if not args:
            return {}
        pack = gpu_pack(fn)
        width = region[0][1]
        words = -(-width // pack) if pack > 1 and width >= pack else width
        if len(args) == 1:
            return {args[0]: pow2_at_least(words, 64) * pack}
        inside = self.layers_inside(fid)
        layers = region[2][1] if len(region) >= 3 and not inside else 1
        tx, ty = tile_shape(words, region[1][1], layers, (16, 16))
        out = {args[0]: tx * (pack if words != width else 1), args[1]: ty}
        for d, v in enumerate(args[2:], start=2):
            out[v] = 1 if d == 2 and not inside else max(1, region[d][1])
        return out

    def layers_inside(self, fid: int) -> bool:
        """Whether GPU stage `fid` (x, y and a third Var of a few values whatever the
        estimates: the local Laplacian's eight intensity levels) computes every value of its
        third Var in each invocation, unrolled, rather than one per workgroup (a block
        dimension): what it reads at (x, y) alone is then read once for all of them, not
        once per workgroup of each layer from memory (a buffer larger than the GPU's cache
        is read again for each). The local Laplacian's remapped copies at 4096^2 with k a
        block dimension read the 64 MB luminance once per level: the whole filter at 4096^2 took
        1.30x its hand schedule's time on the H200, 0.94-0.98x with them unrolled."""
        fn = self.nodes[fid].fn
        region = self.regions[fid]
        return len(fn.pure_args) == 3 and not fn.updates and (fid, 2) in self.fixed and \
            region[2][1] <= MAX_UNROLLED_LAYERS

    def _plain_taps(self, r) -> list[tuple]:
        cache = self.__dict__.setdefault("_taps", {})
        if id(r) not in cache:
            cache[id(r)] = [_plain(tap) for tap in r.taps]
        return cache[id(r)]

    def bytes_per_point(self, fid: int) -> int:
        return max(1, self.nodes[fid].fn.type.bits // 8) * len(self.nodes[fid].fn.types)

    # -- per group ---------------------------------------------------------------------------

    def group_cost(self, g: Group, choices: dict[int, str], rows: int) -> float | None:
        """ns for group `g` with strips of `rows` rows (0: the root is not split); None where
        it cannot be (on WebGPU, a footprint in workgroup memory too large)."""
        m = self.m
        if m.gpu:
            return self._gpu_group_cost(g, choices)
        root = self.nodes[g.root]
        region = self.regions[g.root]
        n = points(region)
        width = region[0][1]
        height = region[1][1] if len(region) > 1 else 1
        outer = n // max(width * height, 1)
        lanes = vector_lanes(root, m)
        work = n * self.point_cost(g.root, choices, lanes)
        traffic = n * self.bytes_per_point(g.root) * m.byte_ns  # the root is written once
        for fid, halo in g.members.items():
            node = self.nodes[fid]
            fr = self.regions[fid]
            fn_points = points(fr)
            strip = rows or height
            recompute = 1.0 + halo / strip
            work += fn_points * recompute * self.point_cost(fid, choices, vector_lanes(node, m))
            rows_kept = (halo + 1) if choices[fid] == SLIDE else (strip + halo)
            kept = rows_kept * fr[0][1] * self.bytes_per_point(fid)
            if kept > m.cache_bytes:
                traffic += fn_points * recompute * self.bytes_per_point(fid) * m.byte_ns * 2
            elif m.l1_bytes and kept > m.l1_bytes:  # written to and read from the next level
                traffic += fn_points * recompute * self.bytes_per_point(fid) * m.byte_ns * L2_SHARE
        jobs = outer * (math.ceil(height / rows) if rows else 1)
        spread = m.parallel_ns(work + traffic, jobs) if rows else work + traffic
        return spread + m.realize_ns + self._update_cost(g.root)

    def _gpu_group_cost(self, g: Group, choices: dict[int, str], tile=(16, 16)) -> float | None:
        """ns for GPU group `g`: its root's dispatch, with the producers it computes per
        workgroup in workgroup memory (its members, all `shared`); None where their
        footprint does not fit a workgroup."""
        m = self.m
        region = self.regions[g.root]
        n = points(region)
        work = n * self.gpu_point_cost(g.root, choices)
        traffic = n * self.bytes_per_point(g.root) * m.byte_ns
        if g.members:
            shape = self.shared_tile(g.root, list(g.members), tile)
            if shape is None:
                return None
            inner = math.prod(e for _, e in region[3:])
            per_workgroup = shape[0] * gpu_pack(self.nodes[g.root].fn) * shape[1] * inner
            footprints = {fid: self.shared_footprint(g.root, fid, *shape) for fid in g.members}
            # The workgroup is as large as its largest nest of threads; a smaller nest leaves
            # the rest idle, and idle invocations hold the GPU as working ones do: each nest
            # costs as if it used them all. (A u8 blur's vertical pass, 8x4 invocations of
            # four pixels, in a workgroup of 32x6 for its horizontal pass: 1.6x slower on the
            # H200 than the two passes as two dispatches.)
            size = max([shape[0] * shape[1]] + [inv for _, inv, _ in footprints.values()])
            work *= size / (shape[0] * shape[1])
            for fid, (fp, inv, _) in footprints.items():
                ratio = fp / max(per_workgroup, 1) * size / inv
                work += n * (ratio * self.gpu_point_cost(fid, choices) + m.barrier_ns)
        return m.dispatch_ns + m.realize_ns + work + traffic

    # -- workgroup memory ----------------------------------------------------------------------

    def shared_halo(self, pid: int, cid: int) -> tuple[int, ...] | None:
        """The halo (extra points per dimension) of what consumer `cid` reads of `pid`, where
        every read is a stencil over the consumer's own Vars in order (so a tile of the
        consumer needs a tile of the producer that much larger); None otherwise."""
        p, c = self.nodes[pid], self.nodes[cid]
        if len(p.fn.pure_args) != len(c.fn.pure_args) or len(c.fn.pure_args) < 2:
            return None
        reads = [r for r in c.reads if r.producer is p.fn]
        if not reads:
            return None
        halo = [0] * len(c.fn.pure_args)
        for r in reads:
            if not r.is_stencil or [x.var for x in r.coords] != list(c.fn.pure_args):
                return None
            for d, x in enumerate(r.coords):
                halo[d] = max(halo[d], x.hi - x.lo)
        return tuple(halo)

    def shared_consumer(self, pid: int, choices: dict[int, str]) -> int | None:
        """The one consumer (id) producer `pid` may be computed in per workgroup: a Func at
        root, without updates, that alone reads `pid`, as stencils of its own Vars."""
        node = self.nodes[pid]
        if not self.m.gpu or not node.inlinable or not (2 <= len(node.fn.pure_args) <= 4):
            return None
        ids = {id(c) for c in node.consumers}
        if len(ids) != 1:
            return None
        cid = ids.pop()
        c = self.nodes[cid]
        if choices.get(cid) != ROOT or c.fn.updates or self.shared_halo(pid, cid) is None:
            return None
        return cid

    def shared_footprint(self, cid: int, pid: int, tx: int, ty: int) -> tuple[int, int, int]:
        """(points, invocations, bytes) of producer `pid` per workgroup of consumer `cid`
        with `tx` x `ty` invocations (its x `gpu_pack` elements wide): one invocation per
        point of its x and y (split into vectors, its footprint in tiles shifted inwards has
        no bound lowering can find), one element per 32-bit word of workgroup memory. Past x
        and y, the consumer's third Var is a block loop (one value per workgroup) and the
        rest are loops inside each invocation (all their values)."""
        halo = self.shared_halo(pid, cid)
        pack = gpu_pack(self.nodes[cid].fn)
        wx, wy = tx * pack + halo[0], ty + halo[1]
        threads_x = wx
        rest = 1
        for d in range(2, len(halo)):
            rest *= 1 + halo[d] if d == 2 else self.regions[pid][d][1]
        fn = self.nodes[pid].fn
        word = sum(max(4, t.bits // 8) for t in fn.types)
        return wx * wy * rest, threads_x * wy, wx * wy * rest * word

    def shared_tile(self, cid: int, members: list[int], tile=(16, 16)) -> tuple[int, int] | None:
        """The (x, y) invocations of consumer `cid`'s workgroup with `members` in workgroup
        memory: its usual tile, made smaller until every member's footprint fits the
        adapter's invocations and their storage its workgroup memory; None if none fits."""
        m = self.m
        fn = self.nodes[cid].fn
        region = self.regions[cid]
        pack = gpu_pack(fn)
        width = region[0][1]
        if pack > 1 and width >= pack:
            width = -(-width // pack)
        layers = region[2][1] if len(region) >= 3 else 1

        def fits(tx, ty):
            got = [self.shared_footprint(cid, p, tx, ty) for p in members]
            return all(inv <= m.max_invocations for _, inv, _ in got) and \
                sum(b for _, _, b in got) <= m.workgroup_storage_bytes

        tx, ty = tile_shape(width, region[1][1], layers, tile, fits)
        return (tx, ty) if fits(tx, ty) else None

    def _update_cost(self, fid: int) -> float:
        """Updates run as their loops say (RDoms serially): the same under every choice, but
        counted so totals compare with other Funcs' costs."""
        node = self.nodes[fid]
        return sum(1000.0 * self.m.op_ns for _ in node.fn.updates)

    def root_read_traffic(self, fid: int) -> float:
        """Reading back a root Func's buffer from memory where it does not fit in cache."""
        size = points(self.regions[fid]) * self.bytes_per_point(fid)
        return size * self.m.byte_ns if size > self.m.cache_bytes else 0.0
