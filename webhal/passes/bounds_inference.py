"""Bounds inference: define each Func's region (`f.<var>.min`, `f.<var>.max`) where it is
computed, as the union of what its consumers read there and what its own updates touch, and
size each Realize to what is written and read inside it.

Works from the innermost site outwards, so the regions of consumers are already defined (as lets
inside the consume part) when their producers' regions are derived from them.
"""

from __future__ import annotations

from webhal.analysis.boxes import Box, boxes_required, boxes_touched
from webhal.analysis.intervals import Interval
from webhal.errors import CompileError
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.function import Function
from webhal.ir.printer import short_string
from webhal.ir.visitor import rebuild
from webhal.passes.context import LowerContext
from webhal.passes.schedule_functions import region_max, region_min


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    def go(n):
        if not isinstance(n, st.Stmt):
            return n
        n = rebuild(n, go)
        if isinstance(n, st.Block):
            return _define_regions(n, ctx)
        if isinstance(n, st.Realize):
            return _size_realization(n, ctx)
        return n
    return go(s)


def _define_regions(b: st.Block, ctx: LowerContext) -> st.Stmt:
    stmts = list(b.stmts)
    for i in range(len(stmts) - 1):
        p, c = stmts[i], stmts[i + 1]
        if isinstance(p, st.ProducerConsumer) and p.is_producer and \
                isinstance(c, st.ProducerConsumer) and not c.is_producer and p.name == c.name:
            fn = ctx.function(p.name)
            region = _region(fn, p.body, c.body, ctx)
            pair: st.Stmt = st.block(p, c)
            for arg, iv in reversed(list(zip(fn.pure_args, region))):
                pair = st.LetStmt(region_min(fn, arg), iv.min,
                                  st.LetStmt(region_max(fn, arg), iv.max, pair))
            return st.block(*stmts[:i], pair, *stmts[i + 2:])
    return b


def _region(fn: Function, produce: st.Stmt, consume: st.Stmt, ctx: LowerContext) -> Box:
    if ctx.is_output(fn):
        region = []
        for i, _ in enumerate(fn.pure_args):
            lo = ops.var(f"{fn.name}.min.{i}")
            hi = ops.sub(ops.add(lo, ops.var(f"{fn.name}.extent.{i}")), ops.const(1))
            region.append(Interval(lo, hi))
        return _explicit_bounds(fn, region)
    required = boxes_required(consume, {fn.name}).get(fn.name)
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


def _size_realization(r: st.Realize, ctx: LowerContext) -> st.Stmt:
    fn = ctx.function(r.name)
    box = boxes_touched(r.body, {r.name}).get(r.name)
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
        bounds.append((iv.min, ops.add(ops.sub(iv.max, iv.min), ops.const(1))))
    return st.Realize(r.name, r.type, tuple(bounds), r.body, r.memory_type)
