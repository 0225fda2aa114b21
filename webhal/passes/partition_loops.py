"""Loop partitioning: split a loop into a prologue, a steady state and an epilogue so that the
steady state has no clamps. Boundary conditions clamp coordinates (min(max(x - 1, lo), hi));
inside the image those clamps change nothing, but they turn dense vector loads into gathers.
For each loop, the clamps whose argument moves with the loop variable give linear conditions on
it; where all of them hold, the clamps are dropped. The conditions are solved when the loop
starts, so any image size works; the prologue and epilogue keep the clamped code.

A GuardWithIf split guards its body with `if (likely(v <= max))`; inside a vectorized loop that
if tests each lane, so the vectorize pass would leave the loop scalar. Such guards give linear
conditions as clamps do (each comparison bounded over all values of the loops inside, the vector
lanes among them), and the steady state, where the guard holds for every lane, drops the if: its
inner loop is vectorized as usual, and only the epilogue (the last partial vector) stays scalar.
Guards bounded only above (a tail's) need no prologue. (Clamps keep theirs, even when empty:
without it LLVM allocates the x86-64 registers of some steady states worse.)
"""

from __future__ import annotations

import re

from webhal.analysis.intervals import Interval, bounds_of
from webhal.analysis.linear import linear_form
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType, Partition
from webhal.ir.visitor import free_variables, rebuild, walk
from webhal.passes.context import LowerContext
from webhal.passes.schedule_functions import qualified_names

_PARTITIONABLE = (ForType.Serial, ForType.Parallel)


def _names_defined(s: st.Stmt) -> set[str]:
    return {n.name for n in walk(s) if isinstance(n, st.For | st.LetStmt | ir.Let | st.Allocate)}


def _uses(e: ir.Expr, names: set[str]) -> bool:
    return any(v.name in names for v in free_variables(e))


def _linear(e: ir.Expr, v: str, extra: list):
    """e as k * v + c for a constant k and a c free of v, or None. min/max whose v-free side
    only matters outside the steady state are replaced by their v side, with that as a further
    condition."""
    terms, const = linear_form(e)
    k, c = 0, ops.const(const, e.type if e.type.is_int() else ops.I32)
    for atom, coef in terms.items():
        if isinstance(atom, ir.Variable) and atom.name == v:
            k += coef
            continue
        if isinstance(atom, ir.Min | ir.Max) and _uses(atom, {v}):
            a_dep, b_dep = _uses(atom.a, {v}), _uses(atom.b, {v})
            if a_dep and b_dep:
                return None
            moving, fixed = (atom.a, atom.b) if a_dep else (atom.b, atom.a)
            extra.append((moving, "<=" if isinstance(atom, ir.Min) else ">=", fixed))
            inner = _linear(moving, v, extra)
            if inner is None:
                return None
            k += coef * inner[0]
            atom = inner[1]
        elif not atom.type.is_int() or _uses(atom, {v}):
            return None
        c = ops.add(c, ops.mul(atom, ops.const(coef, atom.type))) if coef > 0 else \
            ops.sub(c, ops.mul(atom, ops.const(-coef, atom.type)))
    return k, c


def _solve(conditions, v: str):
    """Lower and upper bounds on v (lists of expressions) from `lhs op rhs` conditions, or None
    when one cannot be put in linear form."""
    lowers, uppers, pending = [], [], list(conditions)
    while pending:
        lhs, op, rhs = pending.pop()
        extra: list = []
        lin = _linear(lhs, v, extra)
        if lin is None or _uses(rhs, {v}):
            return None
        pending.extend(extra)
        k, c = lin
        if k == 0:
            return None
        bound = ops.sub(rhs, c)
        if (op == ">=") == (k > 0):  # v >= ceil(bound / k)
            kk = abs(k)
            num = bound if k > 0 else ops.sub(ops.const(0), bound)
            lowers.append(ops.div(ops.add(num, ops.const(kk - 1)), ops.const(kk)))
        else:  # v <= floor(bound / k)
            num = bound if k > 0 else ops.sub(ops.const(0), bound)
            uppers.append(ops.div(num, ops.const(abs(k))))
    return lowers, uppers


class _Clamps:
    """The clamps in a loop body that its variable moves, with their conditions."""

    def __init__(self, v: str, inner: set[str]):
        self.v, self.moving = v, inner | {v}
        self.nodes: list[ir.Expr] = []
        self.conditions: list[tuple] = []
        self.guards: list[tuple] = []  # (a likely() condition, the conditions it holds under)
        self.unsolved: set[ir.Expr] = set()  # guards that stay wherever they are
        self.lanes: set[str] = set()  # vector loops' variables and the lets that vary with them
        self.gpu = 0  # the depth of GPU loops around the statement visited

    def visit_stmt(self, s: st.Stmt, scope: dict) -> None:
        match s:
            case st.For():
                self.visit_expr(s.min, scope)
                self.visit_expr(s.extent, scope)
                lo = bounds_of(s.min, scope)
                hi = bounds_of(ops.sub(ops.add(s.min, s.extent), ops.const(1)), scope)
                if s.for_type is ForType.Vectorized:
                    self.lanes.add(s.name)
                gpu = s.for_type in (ForType.GPUBlock, ForType.GPUThread)
                self.gpu += gpu
                self.visit_stmt(s.body, {**scope, s.name: Interval(lo.min, hi.max)})
                self.gpu -= gpu
            case st.LetStmt():
                self.visit_expr(s.value, scope)
                if _uses(s.value, self.lanes):
                    self.lanes.add(s.name)
                self.visit_stmt(s.body, {**scope, s.name: bounds_of(s.value, scope)})
            case st.IfThenElse() if _is_likely(s.condition):
                self.visit_expr(s.condition, scope)
                self.visit_guard(s.condition, scope)
                self.visit_stmt(s.then_case, scope)
                if s.else_case is not None:
                    self.visit_stmt(s.else_case, scope)
            case _:
                for f in ("value", "index", "condition", "predicate"):
                    e = getattr(s, f, None)
                    if isinstance(e, ir.Expr):
                        self.visit_expr(e, scope)
                for f in ("body", "then_case", "else_case"):
                    b = getattr(s, f, None)
                    if isinstance(b, st.Stmt):
                        self.visit_stmt(b, scope)
                for b in getattr(s, "stmts", ()):
                    self.visit_stmt(b, scope)

    def visit_guard(self, condition: ir.Expr, scope: dict) -> None:
        """The conditions under which a likely() guard (a GuardWithIf split's) holds for every
        value of the loops inside this one: each comparison of its conjunction, as a bound on
        the difference of its sides. Only guards that vary with the lanes of a vector loop
        (outside GPU kernels) are dropped: they keep it from vectorizing; a guard uniform across
        the lanes costs a branch per vector, and one with any other part stays."""
        if self.gpu or not _uses(condition, self.lanes):
            self.unsolved.add(condition)
            return
        parts, pending, conditions = [], [condition.args[0]], []
        while pending:
            c = pending.pop()
            if isinstance(c, ir.And):
                pending += [c.a, c.b]
            else:
                parts.append(c)
        for c in parts:
            if not isinstance(c, ir.LT | ir.LE | ir.GT | ir.GE) or not c.a.type.is_int() or \
                    not c.a.type.is_scalar() or not _uses(c, self.moving):
                self.unsolved.add(condition)
                return
            iv = bounds_of(ops.sub(c.a, c.b), scope)
            upper = isinstance(c, ir.LT | ir.LE)
            side = iv.max if upper else iv.min
            if side is None:
                self.unsolved.add(condition)
                return
            op, k = ("<=", -1 if isinstance(c, ir.LT) else 0) if upper else \
                (">=", 1 if isinstance(c, ir.GT) else 0)
            conditions.append((side, op, ops.const(k, side.type)))
        self.guards.append((condition, conditions))

    def visit_expr(self, e: ir.Expr, scope: dict) -> None:
        for n in walk(e):
            if isinstance(n, ir.Min | ir.Max) and n.type.is_int() and n.type.is_scalar():
                for x, fixed in ((n.a, n.b), (n.b, n.a)):
                    if _uses(x, self.moving) and not _uses(fixed, self.moving):
                        iv = bounds_of(_strip(x, self.moving), scope)
                        side = iv.max if isinstance(n, ir.Min) else iv.min
                        if side is not None:
                            op = "<=" if isinstance(n, ir.Min) else ">="
                            self.nodes.append(n)
                            self.conditions.append((side, op, fixed))
                        break


def _strip(x: ir.Expr, moving: set[str]) -> ir.Expr:
    """x without the clamps around its moving part (clamp(clamp(...)) nests)."""
    while isinstance(x, ir.Min | ir.Max):
        a_dep, b_dep = _uses(x.a, moving), _uses(x.b, moving)
        if a_dep == b_dep:
            break
        x = x.a if a_dep else x.b
    return x


def _is_likely(e: ir.Expr) -> bool:
    return isinstance(e, ir.Call) and e.call_type is ir.CallType.INTRINSIC and \
        e.name == "likely"


def _drop(s: st.Stmt, nodes: list[ir.Expr], moving: set[str], guards=frozenset()) -> st.Stmt:
    """s with the given clamps replaced by their moving side, and the ifs on the given guards
    by their then-case (matched by structure: every occurrence was checked)."""
    targets = {_key(n) for n in nodes}

    def go(n):
        if isinstance(n, st.IfThenElse) and n.condition in guards:
            return go(n.then_case)
        drop = isinstance(n, ir.Min | ir.Max) and _key(n) in targets  # before its children change
        n = rebuild(n, go)
        if drop:
            return n.a if _uses(n.a, moving) else n.b
        return n
    return go(s)


def _key(n: ir.Expr):
    return (type(n), n.a, n.b)


def _partition(loop: st.For, with_clamps: bool = True) -> st.Stmt:
    """loop as prologue, steady state and epilogue around the range where its clamps (unless
    not with_clamps) and its vector loops' guards are known to hold, or loop where none is."""
    inner = _names_defined(loop.body)
    clamps = _Clamps(loop.name, inner)
    clamps.visit_stmt(loop.body, {})
    lowers, uppers, dropped = [], [], []
    for node, condition in zip(clamps.nodes, clamps.conditions):
        if not with_clamps:
            break
        solved = _solve([condition], loop.name)
        if solved is None:
            continue  # not linear in this loop's variable: the clamp stays
        lowers += solved[0]
        uppers += solved[1]
        dropped.append(node)
    guards = set()
    for condition, conditions in clamps.guards:
        if condition in clamps.unsolved:
            continue
        solved = _solve(conditions, loop.name)
        if solved is None:
            clamps.unsolved.add(condition)  # every copy of it stays
            continue
        lowers += solved[0]
        uppers += solved[1]
        guards.add(condition)
    guards -= clamps.unsolved
    if not dropped and not guards:
        return loop
    start, end = loop.min, ops.add(loop.min, loop.extent)
    lo = start
    for b in lowers:
        lo = ops.maximum(lo, b)
    lo = ops.minimum(lo, end)
    hi = end
    for b in uppers:
        hi = ops.minimum(hi, ops.add(b, ops.const(1)))
    prologue = bool(lowers or dropped)  # none for guards bounded only above (their tails)
    hi = ops.maximum(hi, lo if prologue else start)
    lo_name, hi_name = f"{loop.name}.steady_min", f"{loop.name}.steady_end"
    lo_v, hi_v = ops.var(lo_name), ops.var(hi_name)
    steady = _drop(loop.body, dropped, clamps.moving, guards)

    def part(a, b, content):
        return st.For(loop.name, a, ops.sub(b, a), loop.for_type, content, loop.device_api)
    if not prologue:
        parts = st.block(part(start, hi_v, steady), part(hi_v, end, loop.body))
        return st.LetStmt(hi_name, hi, parts)
    parts = st.block(part(start, lo_v, loop.body), part(lo_v, hi_v, steady),
                     part(hi_v, end, loop.body))
    return st.LetStmt(lo_name, lo, st.LetStmt(hi_name, hi, parts))


def _encloses_vector_loop(loop: st.For) -> bool:
    """Whether a vectorized loop sits in loop's body with no serial or parallel loop between."""
    def go(s) -> bool:
        if isinstance(s, st.For):
            if s.for_type is ForType.Vectorized:
                return True
            if s.for_type in _PARTITIONABLE:
                return False
        return any(go(c) for c in _stmt_children(s))
    return any(go(c) for c in _stmt_children(loop))


def _innermost_varying(loop: st.For) -> bool:
    """Whether loop is the innermost serial or parallel loop of non-constant extent around a
    scalar body: only loops of constant extent (an RDom's, unrolled ones) inside it. Clamps of
    coordinates that move with it and with those inner loops (a reduction over a window read
    through a boundary condition) are dropped in its steady state, as Halide's partitioning of
    loops under boundary conditions does for any loop, not only one around a vector loop."""
    def go(s) -> bool:
        if isinstance(s, st.For):
            if s.for_type is ForType.Vectorized:
                return False
            if not isinstance(s.extent, ir.IntImm) and s.for_type in _PARTITIONABLE:
                return False
        return all(go(c) for c in _stmt_children(s))
    return not isinstance(loop.extent, ir.IntImm) and all(go(c) for c in _stmt_children(loop))


def _stmt_children(s):
    from webhal.ir.visitor import children
    return [c for c in children(s) if isinstance(c, st.Stmt)]


def _policy(loop: str, ctx: LowerContext | None) -> Partition:
    """The Stage.partition policy of a loop named `<func>.s<stage>.<dim>`."""
    match = _LOOP.fullmatch(loop)
    fn = ctx.function(match.group(1)) if match and ctx is not None else None
    if fn is None or int(match.group(2)) >= len(fn.definitions):
        return Partition.Auto
    d = fn.definitions[int(match.group(2))]
    names = qualified_names(d)
    for dim in d.schedule.dims:
        if names.get(dim.name) == match.group(3):
            return dim.partition
    return Partition.Auto


_LOOP = re.compile(r"([^.]+)\.s(\d+)\.(.+)")


def run(s: st.Stmt, ctx: LowerContext | None = None) -> st.Stmt:
    """Partition each loop directly around a vectorized loop (that is where clamps turn
    vector loads into gathers), each innermost scalar loop of non-constant extent (its clamps
    cost a min and a max per access), every loop marked Partition.Always, and none marked
    Never; any other loop around a vectorized loop is partitioned on the guards of the vector
    loops in it alone."""
    def go(n):
        if isinstance(n, ir.Expr):
            return n
        if isinstance(n, st.For) and n.for_type in (ForType.GPUBlock, ForType.GPUThread):
            return n  # kernels pay for branches more than for clamps
        n = rebuild(n, go)
        if isinstance(n, st.For) and n.for_type in _PARTITIONABLE:
            policy = _policy(n.name, ctx)
            if policy is Partition.Always or \
                    policy is Partition.Auto and (_encloses_vector_loop(n)
                                                  or _innermost_varying(n)):
                return _partition(n)
            if policy is Partition.Auto and _contains_vector_loop(n):
                # A GuardWithIf split's outer loop outside the vector loop's parent (a tile's
                # xo around yi around xi): its guard is dropped, the clamps are not.
                return _partition(n, with_clamps=False)
        return n
    return go(s)


def _contains_vector_loop(s) -> bool:
    """Whether a vectorized loop sits in s, outside GPU kernels."""
    if isinstance(s, st.For) and s.for_type in (ForType.GPUBlock, ForType.GPUThread):
        return False
    return any(isinstance(c, st.For) and c.for_type is ForType.Vectorized or
               _contains_vector_loop(c) for c in _stmt_children(s))
