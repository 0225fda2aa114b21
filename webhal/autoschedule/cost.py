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
- the worker pool: jobs run `threads` at a time, each job costs `job_ns` to hand out;
- on WebGPU: a fixed cost per dispatch and per buffer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from webhal.autoschedule.graph import Node
from webhal.autoschedule.targets import Machine

INLINE, ROOT, STRIP, SLIDE = "inline", "root", "strip", "slide"


@dataclass
class Group:
    """A root Func and the producers fused into it (with their halo rows over a strip)."""

    root: int                     # id of the root Function
    members: dict[int, int]       # fused Function id -> halo rows it needs beyond a strip


def points(region) -> int:
    return math.prod(max(e, 1) for _, e in region)


def vector_lanes(node: Node, machine: Machine) -> int:
    """Lanes to vectorize a Func by: at least one vector of its narrowest type, and two of its
    widest (two independent vectors keep the SIMD unit busy)."""
    if not machine.vector_bits:
        return 1
    return max(machine.lanes(node.narrow_bits), 2 * machine.lanes(node.bits))


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


class CostModel:
    """Costs of choices for one pipeline on one Machine."""

    def __init__(self, nodes: dict[int, Node], regions: dict, machine: Machine):
        self.nodes, self.regions, self.m = nodes, regions, machine
        # (Function id, dimension) whose extent is the same whatever the estimates
        # (regions.fixed_extents): a loop of constant extent
        self.fixed: set[tuple[int, int]] = set()

    # -- per point ---------------------------------------------------------------------------

    def point_cost(self, fid: int, choices: dict[int, str], lanes: int) -> float:
        """ns per point of Func `fid`, with its inlined producers recomputed in it."""
        m, node = self.m, self.nodes[fid]
        vec = (node.ops * m.op_ns + node.widenings * m.widen_ns) / lanes
        for r in node.reads:
            pid = id(r.producer)
            if choices.get(pid) == INLINE:
                vec += r.count * self.point_cost(pid, choices, lanes)
            elif r.gathers:
                vec += r.count * m.gather_ns  # a scalar load and a lane insert per lane
            else:
                vec += r.count * m.op_ns / lanes
        return vec

    def gpu_point_cost(self, fid: int, choices: dict[int, str]) -> float:
        """ns per point of Func `fid` in its own GPU kernel: the ops of every distinct
        instance of its inlined producers (one producer read at the same offsets twice is the
        same value, computed once: the WGSL compiler's and the driver's common subexpressions,
        as in the Sobel magnitude, whose four inlined smoothing passes share the 3x3 input
        taps), and one load per distinct element read from a stored Func or an input. It
        depends only on which Funcs the kernel inlines, so it is computed once per such set."""
        inlined, stack = [], [fid]
        while stack:
            f = stack.pop()
            for r in self.nodes[f].reads:
                pid = id(r.producer)
                if choices.get(pid) == INLINE and pid not in inlined:
                    inlined.append(pid)
                    stack.append(pid)
        key = (fid, frozenset(inlined))
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
                    elif any(c[0] is None for c in tap):
                        cost += m.gather_ns
                    else:
                        cost += m.load_ns
        return cost

    def _plain_taps(self, r) -> list[tuple]:
        cache = self.__dict__.setdefault("_taps", {})
        if id(r) not in cache:
            cache[id(r)] = [_plain(tap) for tap in r.taps]
        return cache[id(r)]

    def bytes_per_point(self, fid: int) -> int:
        return max(1, self.nodes[fid].fn.type.bits // 8) * len(self.nodes[fid].fn.types)

    # -- per group ---------------------------------------------------------------------------

    def group_cost(self, g: Group, choices: dict[int, str], rows: int) -> float:
        """ns for group `g` with strips of `rows` rows (0: the root is not split)."""
        m = self.m
        root = self.nodes[g.root]
        region = self.regions[g.root]
        n = points(region)
        width = region[0][1]
        height = region[1][1] if len(region) > 1 else 1
        outer = n // max(width * height, 1)
        lanes = vector_lanes(root, m)
        work = n * (self.gpu_point_cost(g.root, choices) if m.gpu else
                    self.point_cost(g.root, choices, lanes))
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
        jobs = outer * (math.ceil(height / rows) if rows else 1)
        if m.gpu:
            return m.dispatch_ns + m.realize_ns + work + traffic
        parallel = min(m.threads, jobs) if rows else 1
        spread = (work + traffic) / parallel + (jobs * m.job_ns / m.threads if rows else 0.0)
        return spread + m.realize_ns + self._update_cost(g.root)

    def _update_cost(self, fid: int) -> float:
        """Updates run as their loops say (RDoms serially): the same under every choice, but
        counted so totals compare with other Funcs' costs."""
        node = self.nodes[fid]
        return sum(1000.0 * self.m.op_ns for _ in node.fn.updates)

    def root_read_traffic(self, fid: int) -> float:
        """Reading back a root Func's buffer from memory where it does not fit in cache."""
        size = points(self.regions[fid]) * self.bytes_per_point(fid)
        return size * self.m.byte_ns if size > self.m.cache_bytes else 0.0
