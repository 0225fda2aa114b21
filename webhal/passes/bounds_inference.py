"""Bounds inference: define each Func's region (`f.<var>.min`, `f.<var>.max`) where it is
computed, as the union of what its consumers read there and what its own updates touch, and
size each Realize to what is written and read inside it.

Works from the innermost site outwards, so the regions of consumers are already defined when
their producers' regions are derived from them. The region lets of Funcs computed at one site are
gathered at the top of that site, consumers' outside producers', and a producer's region refers
to its consumers' regions by name (f.x.min = g.x.min / 2) instead of spelling out their values:
a pyramid of N levels, each level's region twice its consumer's expression if written out, so
stays linear in N. Each Realize is sized from inside those lets, by name as well.

As in Halide, a region is what its consumers need at the points they are asked for: a consumer
computed at the root computes its region, and where its loops go beyond that (a split's tail
shifted inwards when the region is smaller than the factor, or rounded up), the points beyond are
nobody's, nor what they read. The storage still covers those reads, whose values go only into
those points. (Counted as needed, the overshoot of each level of a pyramid doubles down to the
finest level: interpolate's 10 levels, split by 8 where the coarsest are 2 or 3 wide, made its
finest level 28 times the size of Halide's.)
"""

from __future__ import annotations

from webhal.analysis.boxes import (
    Box,
    PureRegions,
    boxes_required,
    boxes_required_over_regions,
    boxes_touched,
)
from webhal.analysis.intervals import Interval, is_small
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.function import Function
from webhal.ir.printer import short_string
from webhal.ir.visitor import rebuild
from webhal.passes.context import LowerContext
from webhal.passes.schedule_functions import loop_var, region_max, region_min
from webhal.passes.simplify import simplify_expr


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    regions: set[str] = set()  # the names of the region lets made so far
    # where the consume part of each Func reads it, beyond its region (the storage's share)
    reads: dict[str, Box] = {}
    pure = _pure_regions(ctx)

    def go(n):
        if not isinstance(n, st.Stmt):
            return n
        n = rebuild(n, go)
        if isinstance(n, st.Block):
            return _define_regions(n, ctx, regions, reads, pure)
        if isinstance(n, st.Realize):
            lets, body = _peel(n.body, regions)
            return _wrap(lets, _size_realization(n, lets, body, ctx, reads.pop(n.name, None)))
        return n
    return go(s)


def _pure_regions(ctx: LowerContext) -> PureRegions:
    """The loop variable of each stage's pure Var, with its Func's region lets."""
    found = {}
    for fn in ctx.functions:
        if ctx.is_inlined(fn):
            continue
        for si in range(len(fn.definitions)):
            for arg in fn.pure_args:
                found[loop_var(fn, si, arg)] = (region_min(fn, arg), region_max(fn, arg),
                                                f"{fn.name}.s{si}.")
    return found


def _peel(s: st.Stmt, regions: set[str]) -> tuple[list[tuple[str, ir.Expr]], st.Stmt]:
    """The region lets at the top of s (outermost first), and what they wrap."""
    lets = []
    while isinstance(s, st.LetStmt) and s.name in regions:
        lets.append((s.name, s.value))
        s = s.body
    return lets, s


def _wrap(lets: list[tuple[str, ir.Expr]], s: st.Stmt) -> st.Stmt:
    for name, value in reversed(lets):
        s = st.LetStmt(name, value, s)
    return s


def _define_regions(b: st.Block, ctx: LowerContext, regions: set[str], reads: dict[str, Box],
                    pure: PureRegions) -> st.Stmt:
    stmts = list(b.stmts)
    for i in range(len(stmts) - 1):
        p, c = stmts[i], stmts[i + 1]
        if isinstance(p, st.ProducerConsumer) and p.is_producer and \
                isinstance(c, st.ProducerConsumer) and not c.is_producer and p.name == c.name:
            fn = ctx.function(p.name)
            # the regions of consumers computed at this site move up here, above this one's,
            # which names them
            hoisted, consume = _peel(c.body, regions)
            c = st.ProducerConsumer(c.name, c.is_producer, consume)
            region = _region(fn, p.body, c.body, ctx, reads, pure)
            own = []
            for arg, iv in zip(fn.pure_args, region):
                own += [(region_min(fn, arg), iv.min), (region_max(fn, arg), iv.max)]
            regions.update(name for name, _ in own)
            pair = _wrap(hoisted + own, st.block(p, c))
            return st.block(*stmts[:i], pair, *stmts[i + 2:])
    return b


def _region(fn: Function, produce: st.Stmt, consume: st.Stmt, ctx: LowerContext,
            reads: dict[str, Box], pure: PureRegions) -> Box:
    if ctx.is_output(fn):
        region = []
        for i, _ in enumerate(fn.pure_args):
            lo = ops.var(f"{fn.name}.min.{i}")
            hi = ops.sub(ops.add(lo, ops.var(f"{fn.name}.extent.{i}")), ops.const(1))
            region.append(Interval(lo, hi))
        return _explicit_bounds(fn, region)
    found, narrowed = boxes_required_over_regions(consume, {fn.name}, pure)
    required = found.get(fn.name)
    if narrowed and required is not None:
        # what the consumers' loops read, beyond their regions too: the storage covers it
        read = boxes_required(consume, {fn.name}).get(fn.name)
        if read is not None:
            earlier = reads.get(fn.name)  # (computed at another site too)
            reads[fn.name] = read if earlier is None else \
                [a.union(b) for a, b in zip(earlier, read)]
    if required is None:  # computed but never read here: an empty region
        required = [Interval(ops.const(0), ops.const(-1)) for _ in fn.pure_args]
    if fn.updates:
        scope = {}
        for arg, iv in zip(fn.pure_args, required):
            if iv.is_bounded():
                scope[region_min(fn, arg)] = Interval.point(iv.min)
                scope[region_max(fn, arg)] = Interval.point(iv.max)
        # What the updates touch, not the pure stage: its own loops may overshoot the region
        # (a RoundUp split), which sizes the storage but is no part of the updates' region.
        touched = boxes_touched(_updates_only(produce, fn), {fn.name}, scope).get(fn.name)
        if touched is not None:
            required = [a.union(t) for a, t in zip(required, touched)]
    required = _explicit_bounds(fn, required)
    for i, iv in enumerate(required):
        if not iv.is_bounded():
            side = "below" if iv.min is None else "above"
            raise CompileError(
                f"cannot infer the bounds of Func {fn.name}: it is read without a bound {side} "
                f"in dimension {i} ({fn.pure_args[i]}); clamp the coordinates where it is read "
                "(hl.clamp or a BoundaryConditions function) or give it a bound()",
                fn.definitions[0].where)
    return required


def _updates_only(produce: st.Stmt, fn: Function) -> st.Stmt:
    """produce without the pure stage's loops (named `<fn>.s0.<var>`)."""
    prefix = f"{fn.name}.s0."

    def go(n):
        if isinstance(n, st.For) and n.name.startswith(prefix):
            return st.Evaluate(ops.const(0))
        return n if not isinstance(n, st.Stmt) else rebuild(n, go)
    return go(produce)


def _explicit_bounds(fn: Function, region: Box) -> Box:
    """The region with bound() replacing it where given (outputs too: their loops then have the
    bound's extent, which vectorize() and unroll() of the whole loop need)."""
    region = list(region)
    for arg, (lo, extent) in fn.schedule.bounds.items():
        i = fn.pure_args.index(arg)
        lo = ops.cast(ops.I32, lo)
        region[i] = Interval(lo, ops.sub(ops.add(lo, ops.cast(ops.I32, extent)), ops.const(1)))
    return region


def _size_realization(r: st.Realize, lets: list[tuple[str, ir.Expr]], body: st.Stmt,
                      ctx: LowerContext, read: Box | None) -> st.Stmt:
    """r around body (its own body less the region `lets` above it), sized to what body reads
    and writes of it; `read`, where given, is where its consume part reads it (beyond its
    region)."""
    fn = ctx.function(r.name)
    # its own region by value, so that what its producer writes and its consumers read, written
    # alike, merge; where the union is that region, it is named again
    own = {n: v for n, v in lets if n.startswith(f"{fn.name}.") and
           n in {f(fn, a) for a in fn.pure_args for f in (region_min, region_max)}}
    # (where small: a large value, a pyramid's region, would be spelled out in every bound of
    # the storage, and is not a tile's, whose extent folds to a constant)
    scope = {n: Interval.point(v) for n, v in own.items() if is_small(v)}
    names = {v: ops.var(n) for n, v in own.items()}
    # Its consumers read within its region (that is how the region is made), so the region
    # stands for the consume part, which for a Func computed at the root is all the rest of
    # the pipeline: visited for each Func, quadratic, and the union of every read written out
    # (unless bound() set the region, which the reads might exceed).
    # Where its consumers' loops overshoot their regions, they read beyond its region: `read`.
    regions = None if fn.schedule.bounds else {fn.name: read or [
        Interval(ops.var(region_min(fn, a)), ops.var(region_max(fn, a))) for a in fn.pure_args]}
    box = boxes_touched(body, {r.name}, scope, regions).get(r.name)
    if box is None:
        box = [Interval(ops.const(0), ops.const(0)) for _ in fn.pure_args]
    bounds = []
    for i, iv in enumerate(box):
        if not iv.is_bounded():
            lo = short_string(iv.min) if iv.min is not None else "-inf"
            hi = short_string(iv.max) if iv.max is not None else "+inf"
            raise CompileError(f"cannot size the storage of Func {fn.name} in dimension {i} "
                               f"({fn.pure_args[i]}): its accesses are unbounded ({lo} .. {hi})",
                               fn.definitions[0].where)
        # the extent from the values, where they make it a constant (a tile's Func computed
        # inside its consumer's loop: constant-sized storage); else by name
        extent = simplify_expr(ops.add(ops.sub(iv.max, iv.min), ops.const(1)))
        lo, hi = names.get(iv.min, iv.min), names.get(iv.max, iv.max)
        if ops.as_const(extent) is None:
            extent = ops.add(ops.sub(hi, lo), ops.const(1))
        bounds.append((lo, extent))
    return st.Realize(r.name, r.type, tuple(bounds), body, r.memory_type)
