"""Boxes: per dimension, the interval of coordinates at which a statement reads or writes a Func
or buffer, with its inner loops and lets ranging over their intervals."""

from __future__ import annotations

from webhal.analysis.intervals import (
    Constraints,
    Interval,
    Scope,
    bounds_of,
    named_bounds,
    refine,
    wrap_lets,
)
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.visitor import children, variable_names, walk

Box = list[Interval]
# For each loop variable of a stage's pure Var (`f.s0.x`): the names of the Func's region
# lets in that dimension (`f.x.min`, `f.x.max`) and the stage's prefix (`f.s0.`).
PureRegions = dict[str, tuple[str, str, str]]


def _merge(boxes: dict[str, Box], name: str, box: Box) -> None:
    if name in boxes:
        boxes[name] = [a.union(b) for a, b in zip(boxes[name], box)]
    else:
        boxes[name] = box


class _Collector:
    def __init__(self, names: set[str] | None, reads: bool, writes: bool,
                 regions: dict[str, Box] | None = None,
                 pure_regions: PureRegions | None = None):
        self.names, self.reads, self.writes = names, reads, writes
        self.regions = regions or {}
        self.pure_regions = pure_regions or {}
        self.boxes: dict[str, Box] = {}
        # the enclosing LetStmts, outermost first, with their values' offset forms
        self.lets: list[tuple[str, ir.Expr, tuple[ir.Expr | None, int]]] = []
        self.loops: set[str] = set()  # the loops entered
        self.narrowed = False  # whether a stage's Var was taken over its region (pure_regions)

    def wanted(self, name: str) -> bool:
        return self.names is None or name in self.names

    def expr(self, e: ir.Expr, scope: Scope, cons: Constraints) -> None:
        if self.names is not None and self.names.isdisjoint(_expr_mentioned(e)):
            return  # no wanted Func or buffer is read in e (its selects need no refining)
        match e:
            case ir.Call() if e.call_type in (ir.CallType.HALIDE, ir.CallType.IMAGE):
                for a in e.args:
                    self.expr(a, scope, cons)
                if self.reads and self.wanted(e.name):
                    _merge(self.boxes, e.name, [bounds_of(a, scope, cons) for a in e.args])
                return
            case ir.Select():
                self.expr(e.condition, scope, cons)
                self.expr(e.true_value, scope, refine(e.condition, True, scope, cons))
                self.expr(e.false_value, scope, refine(e.condition, False, scope, cons))
                return
            case ir.Let():
                self.expr(e.value, scope, cons)
                inner = dict(scope)
                inner[e.name], bound = named_bounds(e.name, bounds_of(e.value, scope, cons))
                outer, self.boxes = self.boxes, {} if bound else self.boxes
                self.expr(e.body, inner, cons)
                if bound:
                    inside, self.boxes = self.boxes, outer
                    for name, box in inside.items():
                        _merge(self.boxes, name, [wrap_lets(b, bound) for b in box])
                return
        from webhal.ir.visitor import children
        for c in children(e):
            self.expr(c, scope, cons)

    def stmt(self, s: st.Stmt, scope: Scope, cons: Constraints) -> None:
        if self.names is not None and self.names.isdisjoint(_mentioned(s)):
            return  # nothing wanted is read or written in s
        match s:
            case st.For():
                self.expr(s.min, scope, cons)
                self.expr(s.extent, scope, cons)
                lo = bounds_of(s.min, scope, cons)
                last = bounds_of(ops.sub(ops.add(s.min, s.extent), _one(s.min)), scope, cons)
                inner = dict(scope)
                inner[s.name] = Interval(lo.min, last.max)
                self.loops.add(s.name)
                self.stmt(s.body, inner, cons)
                self.loops.discard(s.name)
            case st.LetStmt():
                self.expr(s.value, scope, cons)
                inner = dict(scope)
                region = self.pure_regions.get(s.name)
                if region is not None and self._loops_inside(s.value, region[2]):
                    # The stage computes this Var over its Func's region: where its loops
                    # overshoot that (a split's tail shifted inwards or rounded up), the extra
                    # points are nobody's to consume, and what they read is not required.
                    iv, bound = Interval(bounds_of(ops.var(region[0]), scope, cons).min,
                                         bounds_of(ops.var(region[1]), scope, cons).max), []
                    self.narrowed = True
                else:
                    iv, bound = named_bounds(s.name, bounds_of(s.value, scope, cons))
                inner[s.name] = iv
                self.lets.append((s.name, s.value, _offset_form(s.value)))
                outer, self.boxes = self.boxes, {} if bound else self.boxes
                self.stmt(s.body, inner,
                          _with_let_differences(s.name, s.value, self.lets, scope, cons))
                self.lets.pop()
                if bound:  # the body's boxes name the let's bounds: define them there
                    inside, self.boxes = self.boxes, outer
                    for name, box in inside.items():
                        _merge(self.boxes, name, [wrap_lets(b, bound) for b in box])
            case st.IfThenElse():
                self.expr(s.condition, scope, cons)
                self.stmt(s.then_case, scope, refine(s.condition, True, scope, cons))
                if s.else_case is not None:
                    self.stmt(s.else_case, scope, refine(s.condition, False, scope, cons))
            case st.Provide():
                self.expr(s.value, scope, cons)
                for a in s.args:
                    self.expr(a, scope, cons)
                if self.writes and self.wanted(s.name):
                    _merge(self.boxes, s.name, [bounds_of(a, scope, cons) for a in s.args])
            case st.Block():
                for x in s.stmts:
                    self.stmt(x, scope, cons)
            case st.Realize():
                for lo, ext in s.bounds:
                    self.expr(lo, scope, cons)
                    self.expr(ext, scope, cons)
                self.stmt(s.body, scope, cons)
            case st.ProducerConsumer() if not s.is_producer and s.name in self.regions:
                # what consumes it reads within the box given, written in names defined here
                box = [Interval(bounds_of(iv.min, scope, cons).min,
                                bounds_of(iv.max, scope, cons).max)
                       for iv in self.regions[s.name]]
                _merge(self.boxes, s.name, box)
            case st.ProducerConsumer() | st.Allocate():
                self.stmt(s.body, scope, cons)
            case st.Evaluate():
                self.expr(s.value, scope, cons)
            case st.AssertStmt():
                pass
            case st.GPULaunch():
                for e in (*s.grid, *s.args):
                    self.expr(e, scope, cons)
            case st.Store():
                self.expr(s.value, scope, cons)
                self.expr(s.index, scope, cons)
            case _:
                raise TypeError(f"boxes: unexpected statement {type(s).__name__}")

    def _loops_inside(self, value: ir.Expr, prefix: str) -> bool:
        """Whether every loop of the stage (named with `prefix`) that value depends on, through
        the stage's lets, is one this walk entered: the stage's Var then ranges over all of its
        loops' values, not over those of one iteration of an enclosing loop."""
        lets = {n: v for n, v, _ in self.lets if n.startswith(prefix)}
        todo, seen = [value], set()
        while todo:
            for n in variable_names(todo.pop()):
                if n in seen or not n.startswith(prefix):
                    continue
                seen.add(n)
                if n in lets:
                    todo.append(lets[n])
                elif n not in self.loops:
                    return False
        return True


_MENTIONED: dict[int, tuple[st.Stmt, frozenset]] = {}


def _mentioned(s: st.Stmt) -> frozenset:
    """The Funcs and buffers that s reads or writes, memoized per statement: a Func computed at
    the root has everything after it as its consume part, and the region of each is found there,
    so a walk of each consume part in full would take time quadratic in the Funcs."""
    hit = _MENTIONED.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    names = set()
    for c in children(s):
        if isinstance(c, st.Stmt):
            names |= _mentioned(c)
        else:
            names.update(n.name for n in walk(c) if isinstance(n, ir.Call | ir.Load))
    if isinstance(s, st.Provide | st.Store):
        names.add(s.name)
    if len(_MENTIONED) > 200_000:
        _MENTIONED.clear()
    found = frozenset(names)
    _MENTIONED[id(s)] = (s, found)
    return found


_EXPR_MENTIONED: dict[int, tuple[ir.Expr, frozenset]] = {}


def _expr_mentioned(e: ir.Expr) -> frozenset:
    """The Funcs and buffers that e reads (Calls and Loads), memoized per node."""
    hit = _EXPR_MENTIONED.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    names = frozenset().union(*(_expr_mentioned(c) for c in children(e)))
    if isinstance(e, ir.Call | ir.Load):
        names |= {e.name}
    if len(_EXPR_MENTIONED) > 500_000:
        _EXPR_MENTIONED.clear()
    _EXPR_MENTIONED[id(e)] = (e, names)
    return names


def _with_let_differences(name: str, value: ir.Expr, lets, scope: Scope,
                          cons: Constraints) -> Constraints:
    """Facts about `name - other` for enclosing lets whose values differ by a constant (a
    Func's x.max is its x.min plus the extent - 1) or by a clamp of one (a guarded tail's
    x.max is min(x.min + 2, the output's max)): each side ranges over an interval when the
    lets depend on an outer loop, and their difference would come out as wide as both
    instead of that constant, or of that clamp's range."""
    if not value.type.is_int():
        return cons
    found = {}
    base, k = lets[-1][2]
    for other, other_value, (other_base, other_k) in lets[:-1]:
        if other_value.type != value.type:
            continue
        mine, theirs = ops.var(name, value.type), ops.var(other, value.type)
        if base == other_base:  # the common case, without taking the forms apart again
            found[ir.Sub(mine, theirs)] = Interval.point(ops.const(k - other_k, value.type))
            found[ir.Sub(theirs, mine)] = Interval.point(ops.const(other_k - k, value.type))
            continue
        if not (_composite(base) or _composite(other_base)):
            continue
        for a, b, a_value, b_value in ((mine, theirs, value, other_value),
                                       (theirs, mine, other_value, value)):
            diff = _memo_difference(a_value, b_value)
            if diff is not None:
                found[ir.Sub(a, b)] = Interval.point(diff) if ops.as_const(diff) is not None \
                    else bounds_of(diff, scope, cons)
    return {**cons, **found} if found else cons


# (id(value), id(other)) -> (value, other, their difference): every search for a region or a
# storage size walks the same lets at the top of the pipeline, each against all before it.
_DIFFERENCES: dict[tuple[int, int], tuple[ir.Expr, ir.Expr, ir.Expr | None]] = {}


def _memo_difference(value: ir.Expr, other: ir.Expr) -> ir.Expr | None:
    hit = _DIFFERENCES.get((id(value), id(other)))
    if hit is not None and hit[0] is value and hit[1] is other:
        return hit[2]
    diff = _difference(value, other)
    if len(_DIFFERENCES) > 200_000:
        _DIFFERENCES.clear()
    _DIFFERENCES[(id(value), id(other))] = (value, other, diff)
    return diff


def _composite(e: ir.Expr | None) -> bool:
    """Whether e is a min, max or select, whose parts may differ from another value by a
    constant although e does not."""
    return isinstance(e, ir.Min | ir.Max | ir.Select)


def _difference(value: ir.Expr, other: ir.Expr) -> ir.Expr | None:
    """value - other, written so that it no longer grows with what both follow: a constant
    when they differ by one (x + 2 and (x - 1) + 3), min/max(k, q - other) for a clamp
    min/max(other + k, q) (or other - such a clamp), a select of such differences for a select
    on either side (a sliding window's min). None when no part of the two cancels."""
    for sel, at_value in ((value, True), (other, False)):
        if isinstance(sel, ir.Select):
            parts = [_difference(v, other) if at_value else _difference(value, v)
                     for v in (sel.true_value, sel.false_value)]
            if None in parts:
                return None
            return parts[0] if parts[0] == parts[1] else ops.select(sel.condition, *parts)
    k = _constant_difference(value, other)
    if k is not None:
        return ops.const(k, value.type)
    for at_value in (True, False):
        clamp, offset = _offset_form(value if at_value else other)
        if isinstance(clamp, ir.Min | ir.Max):
            diff = _difference_of_clamp(value, other, clamp, offset, at_value)
            if diff is not None:
                return diff
    return None


def _difference_of_clamp(value: ir.Expr, other: ir.Expr, clamp: ir.Min | ir.Max, k: int,
                         at_value: bool) -> ir.Expr | None:
    """value - other where value (at_value) or other is `clamp` + k, a min or max one of whose
    sides differs from the other expression by a constant: min(p, q) + k - other is
    min(p + k - other, q + k - other), other - max(p, q) - k the min of other - p - k and
    other - q - k, and so on."""
    parts = []
    for p in (clamp.a, clamp.b):
        p = ops.add(p, ops.const(k, p.type)) if k else p
        a, b = (p, other) if at_value else (value, p)
        d = _constant_difference(a, b)
        parts.append(ops.sub(a, b) if d is None else ops.const(d, a.type))
    if all(ops.as_const(d) is None for d in parts):
        return None
    pick = ops.minimum if isinstance(clamp, ir.Min) == at_value else ops.maximum
    return pick(*parts)


def _constant_difference(a: ir.Expr, b: ir.Expr) -> int | None:
    """a - b when a and b are one expression plus two constant offsets."""
    base_a, k_a = _offset_form(a)
    base_b, k_b = _offset_form(b)
    return k_a - k_b if base_a == base_b else None


def _offset_form(e: ir.Expr) -> tuple[ir.Expr | None, int]:
    """e as (base, constant), its constant offsets gathered ((x - 1) + 3 is (x, 2)); base None
    when e is a constant."""
    total = 0
    while True:
        base, k = ops.split_offset(e)
        if base is None or k == 0:
            return base, total + k
        e, total = base, total + k


def _one(e: ir.Expr) -> ir.Expr:
    return ops.const(1, e.type)


def leading_lets(s: st.Stmt) -> tuple[list[tuple[str, ir.Expr]], st.Stmt]:
    """The LetStmts at the top of s that read no Func or buffer (the regions of the Funcs
    computed at the root, each naming its consumers'), outermost first, and what they wrap.
    Boxes of what they wrap refer to them by name; spelled out, a pyramid's regions would double
    with each level."""
    lets = []
    while isinstance(s, st.LetStmt) and not any(
            isinstance(n, ir.Load) or isinstance(n, ir.Call) and n.call_type in (
                ir.CallType.HALIDE, ir.CallType.IMAGE) for n in walk(s.value)):
        lets.append((s.name, s.value))
        s = s.body
    return lets, s


def boxes_required(s: st.Stmt, names: set[str] | None = None, scope: Scope | None = None
                   ) -> dict[str, Box]:
    """Where s reads each named Func or buffer."""
    c = _Collector(names, reads=True, writes=False)
    c.stmt(s, dict(scope or {}), {})
    return c.boxes


def boxes_required_over_regions(s: st.Stmt, names: set[str], pure_regions: PureRegions
                                ) -> tuple[dict[str, Box], bool]:
    """Where s reads each named Func or buffer at the points its stages are asked for, as
    Halide's bounds inference counts them: each stage's pure Var whose loops are all inside s
    ranges over its Func's region (the lets named in pure_regions), not over what the loops
    visit beyond it. Also whether any Var was so narrowed (else the boxes are those of
    boxes_required)."""
    c = _Collector(names, reads=True, writes=False, pure_regions=pure_regions)
    c.stmt(s, {}, {})
    return c.boxes, c.narrowed


def boxes_provided(s: st.Stmt, names: set[str] | None = None, scope: Scope | None = None
                   ) -> dict[str, Box]:
    """Where s writes each named Func."""
    c = _Collector(names, reads=False, writes=True)
    c.stmt(s, dict(scope or {}), {})
    return c.boxes


def boxes_touched(s: st.Stmt, names: set[str] | None = None, scope: Scope | None = None,
                  regions: dict[str, Box] | None = None) -> dict[str, Box]:
    """Where s reads or writes each named Func or buffer. `regions` gives Funcs whose consume
    parts read only within a box known beforehand, written in names defined where the consume
    part is: for those, that box stands for what the consume part reads, unvisited."""
    c = _Collector(names, reads=True, writes=True, regions=regions)
    c.stmt(s, dict(scope or {}), {})
    return c.boxes
