"""Sliding windows and storage folding.

When a Func is stored outside a serial loop but computed inside it (`bx.store_at(by, y)
.compute_at(by, yi)`), consecutive iterations need overlapping regions. Each iteration after the
first then computes only what the previous one did not: the region's min in the dimension that
moves with the loop starts past the previous iteration's max. When the window a single iteration
uses has a constant size, that dimension's storage is folded to the next power of two: a
circular buffer indexed by the coordinate modulo the fold.

A producer of a slid consumer slides too (Halide slides such chains): its region is written in
terms of the consumer's region lets (`wide.y.min = min(smooth_v.y.min - 1, smooth_h.y.min)`), so
the loop variable appears only once the enclosing lets are expanded, and the slid consumer's min
is a `select(v > loop.min, steady, first)`. The producer's min is judged on both: its steady
state (each select on the first iteration taken as false) must move by a constant step, and the
fold must hold the larger of the first and the steady windows.
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


def _step_bounds(e: ir.Expr, v: str) -> tuple[int, int] | None:
    """Constant bounds of e(v) - e(v - 1) over every v, or None: sums, constant multiples, and
    min/max (a strip's last rows clamped by `min(..., y.max)` under GuardWithIf step by 0 or 1).
    Lets must be inlined first."""
    if not _uses(e, v):
        return (0, 0)
    if isinstance(e, ir.Variable):
        return (1, 1)
    if isinstance(e, ir.Add | ir.Sub | ir.Min | ir.Max | ir.Mul):
        if isinstance(e, ir.Mul):
            k, other = ops.as_const(e.a), e.b
            if k is None:
                k, other = ops.as_const(e.b), e.a
            sb = _step_bounds(other, v) if isinstance(k, int) else None
            return None if sb is None else (min(k * sb[0], k * sb[1]), max(k * sb[0], k * sb[1]))
        sa, sb = _step_bounds(e.a, v), _step_bounds(e.b, v)
        if sa is None or sb is None:
            return None
        if isinstance(e, ir.Add):
            return (sa[0] + sb[0], sa[1] + sb[1])
        if isinstance(e, ir.Sub):
            return (sa[0] - sb[1], sa[1] - sb[0])
        return (min(sa[0], sb[0]), max(sa[1], sb[1]))
    return None


def _upper_bound(e: ir.Expr) -> int | None:
    """A constant upper bound of e whatever its variables (None if unknown)."""
    c = ops.as_const(e)
    if isinstance(c, int):
        return c
    if isinstance(e, ir.Add):
        a, b = _upper_bound(e.a), _upper_bound(e.b)
        return None if a is None or b is None else a + b
    if isinstance(e, ir.Sub):
        # min(x, y) - z <= x - z and y - z; z - max(x, y) <= z - x and z - y (a strip's clamped
        # end minus its start); else each side's bound
        for m, cls in ((e.a, ir.Min), (e.b, ir.Max)):
            if isinstance(m, cls):
                parts = [ops.sub(arm, e.b) if m is e.a else ops.sub(e.a, arm)
                         for arm in (m.a, m.b)]
                bounds = [b for b in (_upper_bound(simplify_expr(q)) for q in parts)
                          if b is not None]
                return min(bounds) if bounds else None
        if isinstance(e.a, ir.Add) and isinstance(ops.as_const(e.a.b), int):
            inner = _upper_bound(simplify_expr(ops.sub(e.a.a, e.b)))
            return None if inner is None else inner + ops.as_const(e.a.b)
        a, b = _upper_bound(e.a), _lower_bound(e.b)
        return None if a is None or b is None else a - b
    if isinstance(e, ir.Min):
        bounds = [b for b in (_upper_bound(e.a), _upper_bound(e.b)) if b is not None]
        return min(bounds) if bounds else None
    if isinstance(e, ir.Max):
        a, b = _upper_bound(e.a), _upper_bound(e.b)
        return None if a is None or b is None else max(a, b)
    return None


def _lower_bound(e: ir.Expr) -> int | None:
    c = ops.as_const(e)
    if isinstance(c, int):
        return c
    if isinstance(e, ir.Add):
        a, b = _lower_bound(e.a), _lower_bound(e.b)
        return None if a is None or b is None else a + b
    if isinstance(e, ir.Sub):
        a, b = _lower_bound(e.a), _upper_bound(e.b)
        return None if a is None or b is None else a - b
    if isinstance(e, ir.Max):
        bounds = [b for b in (_lower_bound(e.a), _lower_bound(e.b)) if b is not None]
        return max(bounds) if bounds else None
    if isinstance(e, ir.Min):
        a, b = _lower_bound(e.a), _lower_bound(e.b)
        return None if a is None or b is None else min(a, b)
    return None


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


def _is_split(fn, arg: str) -> bool:
    return any(isinstance(sp, Split) and sp.old == arg
               for sp in fn.definitions[0].schedule.splits)


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


def _inline_lets(e: ir.Expr) -> ir.Expr:
    """e with its Let expressions substituted, so that a step or a span simplifies to a
    constant (bounds inference writes a fused strip loop's region as `let yo = t % n in ...`)."""
    def go(n):
        if isinstance(n, ir.Let):
            return go(substitute(n.body, {n.name: go(n.value)}))
        return rebuild(n, go) if isinstance(n, ir.Expr) else n
    return go(e)


def _steady(e: ir.Expr, first: ir.Expr, steady: bool) -> ir.Expr:
    """e with each `select(first, a, b)` (a slid consumer's min) replaced by a (steady) or b."""
    def go(n):
        if isinstance(n, ir.Select) and n.condition == first:
            return go(n.true_value if steady else n.false_value)
        return rebuild(n, go) if isinstance(n, ir.Expr) else n
    return go(e)


class _Slider:
    def __init__(self, fn, ctx: LowerContext):
        self.fn, self.ctx = fn, ctx
        self.fold: tuple[int, int] | None = None   # (dimension, factor)
        self.loop: st.For | None = None
        self.scope: dict[str, ir.Expr] = {}         # enclosing lets inside the realize

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
        if isinstance(s, st.LetStmt):
            outer = self.scope.get(s.name)
            self.scope[s.name] = s.value
            body = self.go(s.body, loop)
            if outer is None:
                del self.scope[s.name]
            else:
                self.scope[s.name] = outer
            return st.LetStmt(s.name, s.value, body)
        return rebuild(s, lambda c: self.go(c, loop) if isinstance(c, st.Stmt) else c)

    def expand(self, e: ir.Expr, depth: int = 0) -> ir.Expr:
        """e with the enclosing lets it names substituted (recursively)."""
        names = {fv.name for fv in free_variables(e)} & self.scope.keys()
        if not names or depth > 16:
            return e
        return substitute(e, {n: self.expand(self.scope[n], depth + 1) for n in names})

    def slide(self, let_min: st.LetStmt, loop: st.For, d: int) -> st.Stmt | None:
        v = loop.name
        lo, hi = let_min.value, let_min.body.value
        lo_named = lo   # what the new min is built from: the lets it names are in scope there
        if self.fold is not None:
            return None
        if not _uses(lo, v):
            # A producer of slid consumers: its bounds name theirs (see the module's doc).
            lo, hi = self.expand(lo), self.expand(hi)
            if not _uses(lo, v):
                return None
        lo, hi = _inline_lets(lo), _inline_lets(hi)
        first = ir.GT(ops.var(v), loop.min)
        lo_steady, hi_steady = _steady(lo, first, True), _steady(hi, first, True)
        # Both ends must never move back: then what earlier iterations computed is
        # [first min, previous max], and this one need only start past it.
        # The min must move by a constant step: a step that varies (a consumer's ShiftInwards
        # tail tile moving back) can leave a region narrower than the producer's own vector
        # or split, which its ShiftInwards would then shift before the region. The max may
        # step by 0 or 1 (a GuardWithIf strip's clamp) only in a dimension the producer does
        # not split: its rows are then a plain loop, possibly empty.
        step_lo, step_hi = _constant_step(lo_steady, v), _constant_step(hi_steady, v)
        if step_hi is None and not _is_split(self.fn, self.fn.pure_args[d]):
            step_hi = (_step_bounds(simplify_expr(hi_steady), v) or (-1, -1))[0]
        if step_lo is None or step_hi is None or step_lo < 0 or step_hi < 0:
            return None
        if any(isinstance(n, ir.Select) and n.condition == first for n in walk(lo)):
            # The first iteration's window must not start past the second's.
            at_first = {v: loop.min}
            lo0 = substitute(_steady(lo, first, False), at_first)
            lo1 = substitute(lo_steady, {v: ops.add(loop.min, ops.const(1))})
            advance = ops.as_const(simplify_expr(ops.sub(lo1, lo0)))
            if advance is None or advance < 0:
                return None
        prev_hi = substitute(hi, {v: ops.sub(ops.var(v), ops.const(1))})
        new_lo = ir.Select(first, ops.maximum(lo_named, ops.add(prev_hi, ops.const(1))),
                           lo_named)
        spans = [_upper_bound(simplify_expr(ops.add(ops.sub(_steady(hi, first, st_),
                                                            _steady(lo, first, st_)),
                                                    ops.const(1))))
                 for st_ in (True, False)]
        span = None if None in spans else max(spans)
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
