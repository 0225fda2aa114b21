"""Sliding windows and storage folding.

When a Func is stored outside a serial loop but computed inside it (`bx.store_at(by, y)
.compute_at(by, yi)`), consecutive iterations need overlapping regions. Each iteration after the
first then computes only what the previous one did not: the region's min in the dimension that
moves with the loop starts past the previous iteration's max. When the window a single iteration
uses has a constant size, that dimension's storage is folded to the next power of two: a
circular buffer indexed by the coordinate modulo the fold.
"""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType, Split, TailStrategy
from webhal.ir.visitor import children, free_variables, rebuild, substitute, walk
from webhal.passes.context import LowerContext
from webhal.passes.schedule_functions import region_max, region_min
from webhal.passes.simplify import simplify_expr


def _uses(e: ir.Expr, name: str) -> bool:
    return any(v.name == name for v in free_variables(e))


def _constant_step(e: ir.Expr, v: str) -> int | None:
    """e(v) - e(v - 1) when it is a constant."""
    prev = substitute(e, {v: ops.sub(ops.var(v), ops.const(1))})
    return ops.as_const(simplify_expr(ops.sub(e, prev)))


def _accesses_outside(s: st.Stmt, name: str, loop: st.For) -> bool:
    """Whether s reads or writes Func `name` outside `loop` (loop names are unique)."""
    if isinstance(s, st.For) and s.name == loop.name:
        return False
    if isinstance(s, st.Provide) and s.name == name:
        return True
    for n in (s.value, *s.args) if isinstance(s, st.Provide) else ():
        if any(isinstance(c, ir.Call) and c.name == name for c in walk(n)):
            return True
    for c in children(s):
        if isinstance(c, st.Stmt):
            if _accesses_outside(c, name, loop):
                return True
        elif any(isinstance(x, ir.Call) and x.name == name for x in walk(c)):
            return True
    return False


def _overshoot(fn, arg: str) -> int | None:
    """How far the producer's loops may write past the window in `arg`'s dimension, on either
    side (a RoundUp split writes whole tiles, ShiftInwards shifts a short one back): the fold
    must hold that too, or a tile's extra rows land on live ones. None when the splits are
    nested or not constant (no fold then)."""
    derived, factors = {arg}, []
    for sp in fn.definitions[0].schedule.splits:
        if isinstance(sp, Split) and sp.old in derived:
            derived |= {sp.outer, sp.inner}
            if sp.tail is not TailStrategy.GuardWithIf:
                factors.append(ops.as_const(sp.factor))
    if not factors:
        return 0
    if len(factors) > 1 or factors[0] is None:
        return None
    return 2 * (factors[0] - 1)


class _Slider:
    def __init__(self, fn, ctx: LowerContext):
        self.fn, self.ctx = fn, ctx
        self.fold: tuple[int, int] | None = None   # (dimension, factor)
        self.loop: st.For | None = None

    def go(self, s: st.Stmt, loop: st.For | None) -> st.Stmt:
        if isinstance(s, st.For):
            inner = s if s.for_type in (ForType.Serial, ForType.Unrolled) else loop
            return st.For(s.name, s.min, s.extent, s.for_type, self.go(s.body, inner),
                          s.device_api)
        if isinstance(s, st.LetStmt) and loop is not None and isinstance(s.body, st.LetStmt):
            for d, arg in enumerate(self.fn.pure_args):
                if s.name == region_min(self.fn, arg) and s.body.name == region_max(self.fn, arg):
                    slid = self.slide(s, loop, d)
                    if slid is not None:
                        return slid
        if isinstance(s, ir.Expr):
            return s
        return rebuild(s, lambda c: self.go(c, loop) if isinstance(c, st.Stmt) else c)

    def slide(self, let_min: st.LetStmt, loop: st.For, d: int) -> st.Stmt | None:
        v = loop.name
        lo, hi = let_min.value, let_min.body.value
        if not _uses(lo, v) or self.fold is not None:
            return None
        step_lo, step_hi = _constant_step(lo, v), _constant_step(hi, v)
        if step_lo is None or step_hi is None or step_lo < 0 or step_hi < 0:
            return None
        prev_hi = substitute(hi, {v: ops.sub(ops.var(v), ops.const(1))})
        new_lo = ir.Select(ir.GT(ops.var(v), loop.min),
                           ops.maximum(lo, ops.add(prev_hi, ops.const(1))), lo)
        span = ops.as_const(simplify_expr(ops.add(ops.sub(hi, lo), ops.const(1))))
        overshoot = _overshoot(self.fn, self.fn.pure_args[d])
        if span is not None and span > 0 and overshoot is not None:
            self.fold = (d, 1 << (span + overshoot - 1).bit_length())
        self.loop = loop
        return st.LetStmt(let_min.name, new_lo, let_min.body)


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    def go(n):
        if isinstance(n, ir.Expr):
            return n
        n = rebuild(n, go)
        if isinstance(n, st.Realize):
            fn = ctx.function(n.name)
            if fn is None or fn.updates or ctx.is_output(fn):
                return n
            slider = _Slider(fn, ctx)
            body = slider.go(n.body, None)
            if slider.loop is None:
                return n
            if slider.fold is not None and not _accesses_outside(body, n.name, slider.loop):
                d, factor = slider.fold
                bounds = list(n.bounds)
                bounds[d] = (ops.const(0), ops.const(factor))
                return st.Realize(n.name, n.type, tuple(bounds), body, n.memory_type,
                                  slider.fold)
            return st.Realize(n.name, n.type, n.bounds, body, n.memory_type)
        return n

    return go(s)
