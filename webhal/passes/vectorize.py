"""Vectorize loops marked vectorized: the loop variable becomes a Ramp of `extent` lanes and
everything that depends on it becomes a vector. Lets of ramps and broadcasts are substituted so
that indices stay Ramps (dense loads and stores). A loop whose body needs per-lane control flow
(an if on a vector condition, an assertion, an allocation) stays a scalar loop."""

from __future__ import annotations

from webhal.analysis.linear import linear_form
from webhal.errors import ScheduleError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.schedule import ForType
from webhal.ir.visitor import rebuild, walk


class _Scalar(Exception):
    """The loop cannot be vectorized; keep it scalar."""


def _lanes(e: ir.Expr) -> int:
    return e.type.lanes


def broadcast(e: ir.Expr, lanes: int) -> ir.Expr:
    if e.type.lanes == lanes:
        return e
    if e.type.lanes != 1:
        raise _Scalar()
    return ir.Broadcast(e, lanes)


def _combine(op, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """a op b for vectors, keeping Ramp/Broadcast structure where the algebra allows."""
    n = max(_lanes(a), _lanes(b))
    if n == 1:
        return op(a, b)
    a, b = broadcast(a, n), broadcast(b, n)
    ba, bb = isinstance(a, ir.Broadcast), isinstance(b, ir.Broadcast)
    ra, rb = isinstance(a, ir.Ramp), isinstance(b, ir.Ramp)
    if ba and bb and op in _FOLD:
        return ir.Broadcast(_FOLD[op](a.value, b.value), n)
    if bb and op in (ir.Add, ir.Sub):
        merged = _merge_broadcasts(op, a, b.value, n)
        if merged is not None:
            return merged
    if op is ir.Add:
        if ra and bb:
            return ir.Ramp(ops.add(a.base, b.value), a.stride, n)
        if ba and rb:
            return ir.Ramp(ops.add(a.value, b.base), b.stride, n)
        if ra and rb:
            return ir.Ramp(ops.add(a.base, b.base), ops.add(a.stride, b.stride), n)
    if op is ir.Sub:
        if ra and bb:
            return ir.Ramp(ops.sub(a.base, b.value), a.stride, n)
        if ra and rb:
            return ir.Ramp(ops.sub(a.base, b.base), ops.sub(a.stride, b.stride), n)
    if op is ir.Mul:
        if ra and bb:
            return ir.Ramp(ops.mul(a.base, b.value), ops.mul(a.stride, b.value), n)
        if ba and rb:
            return ir.Ramp(ops.mul(a.value, b.base), ops.mul(a.value, b.stride), n)
    if op is ir.Div or op is ir.Mod:  # a ramp over a divisor of its stride stays a ramp
        return _FOLD[op](a, b)
    return op(a, b)


def _merge_broadcasts(op, a: ir.Expr, z: ir.Expr, n: int) -> ir.Expr | None:
    """(x +- broadcast(y)) +- broadcast(z) as x +- one broadcast of a scalar, as Halide's
    simplifier moves broadcasts outwards and merges them: the scalar sum is then computed once
    outside the vector loop instead of a vector add per iteration (a table's index
    `(i - k*256) + 1792` becomes `i + x8(1792 - k*256)`). Integers only: their + and - wrap
    (or, for signed 32 and 64 bits, never overflow), so any grouping gives the same value;
    floats would round differently."""
    if a.type.is_float() or not isinstance(a, ir.Add | ir.Sub) or \
            not isinstance(a.b, ir.Broadcast) or _lanes(a.a) != n:
        return None
    y = a.b.value
    # x + y + z, x + y - z, x - y + z, x - y - z: the sign of y is a's, z's is op's.
    if isinstance(a, ir.Add):
        scalar = ops.add(y, z) if op is ir.Add else ops.sub(y, z)
        return ir.Add(a.a, ir.Broadcast(scalar, n))
    if op is ir.Add:
        return ir.Add(a.a, ir.Broadcast(ops.sub(z, y), n))
    return ir.Sub(a.a, ir.Broadcast(ops.add(y, z), n))


_FOLD = {ir.Add: ops.add, ir.Sub: ops.sub, ir.Mul: ops.mul, ir.Min: ops.minimum,
         ir.Max: ops.maximum, ir.Div: ops.div, ir.Mod: ops.mod}


class _Vectorizer:
    def __init__(self, var: str, base: ir.Expr, lanes: int, stride: int = 1):
        self.lanes = lanes
        self.names: dict[str, ir.Expr] = {var: ir.Ramp(base, ops.const(stride, base.type),
                                                       lanes)}

    def expr(self, e: ir.Expr) -> ir.Expr:
        match e:
            case ir.Variable():
                return self.names.get(e.name, e)
            case ir.IntImm() | ir.UIntImm() | ir.FloatImm() | ir.StringImm():
                return e
            case ir.BinaryOp() | ir.CompareOp():
                return _combine(type(e), self.expr(e.a), self.expr(e.b))
            case ir.Not():
                return ir.Not(self.expr(e.a))
            case ir.Select():
                c, t, f = self.expr(e.condition), self.expr(e.true_value), \
                    self.expr(e.false_value)
                n = max(_lanes(c), _lanes(t), _lanes(f))
                if n == 1:
                    return ir.Select(c, t, f)
                return ir.Select(broadcast(c, n), broadcast(t, n), broadcast(f, n))
            case ir.Cast():
                v = self.expr(e.value)
                return ir.Cast(e.type.with_lanes(_lanes(v)), v)
            case ir.Reinterpret():
                v = self.expr(e.value)
                return ir.Reinterpret(e.type.with_lanes(_lanes(v)), v)
            case ir.Load():
                i = self.expr(e.index)
                return ir.Load(e.type.with_lanes(_lanes(i)), e.name, i)
            case ir.Call(name="trace_print" | "webhal_print"):
                # A trace line prints vectors as <a, b, ...>; hl.print prints a line per
                # lane where its condition holds ("print_lanes"), as Halide does.
                args = [self.expr(a) for a in e.args]
                n = max(_lanes(a) for a in args)
                if n == 1:
                    return e if all(a is b for a, b in zip(args, e.args)) else \
                        ir.Call(e.type, e.name, tuple(args), e.call_type)
                if e.name == "trace_print":
                    return ir.Call(e.type, e.name, tuple(
                        a if isinstance(a, ir.StringImm) or i == 0 else broadcast(a, n)
                        for i, a in enumerate(args)), e.call_type)
                return ir.Call(e.type, "print_lanes", tuple(
                    a if isinstance(a, ir.StringImm) else broadcast(a, n) for a in args),
                    ir.CallType.INTRINSIC)
            case ir.Call():
                args = [self.expr(a) for a in e.args]
                n = max([1, *(_lanes(a) for a in args)])
                if n == 1:
                    return e if all(a is b for a, b in zip(args, e.args)) else \
                        ir.Call(e.type, e.name, tuple(args), e.call_type, e.func, e.value_index)
                if e.call_type is ir.CallType.RUNTIME:
                    raise _Scalar()
                return ir.Call(e.type.with_lanes(n), e.name, tuple(broadcast(a, n) for a in args),
                               e.call_type, e.func, e.value_index)
            case ir.Let():
                v = self.expr(e.value)
                return self._bind(e.name, v, lambda: self.expr(e.body),
                                  lambda body: ir.Let(e.name, v, body))
            case _:
                raise _Scalar()

    def _bind(self, name, value, body_fn, make):
        if isinstance(value, ir.Ramp | ir.Broadcast):
            self.names[name] = value
            try:
                return body_fn()
            finally:
                del self.names[name]
        if value.type.lanes > 1:
            self.names[name] = ir.Variable(value.type, name)
            try:
                return make(body_fn())
            finally:
                del self.names[name]
        return make(body_fn())

    def stmt(self, s: st.Stmt) -> st.Stmt:
        match s:
            case st.Store():
                v, i = self.expr(s.value), self.expr(s.index)
                n = max(_lanes(v), _lanes(i))
                return st.Store(s.name, broadcast(v, n), broadcast(i, n))
            case st.LetStmt():
                v = self.expr(s.value)
                return self._bind(s.name, v, lambda: self.stmt(s.body),
                                  lambda body: st.LetStmt(s.name, v, body))
            case st.Block():
                return st.block(*(self.stmt(x) for x in s.stmts))
            case st.IfThenElse():
                c = self.expr(s.condition)
                if _lanes(c) > 1:
                    raise _Scalar()
                return st.IfThenElse(c, self.stmt(s.then_case),
                                     None if s.else_case is None else self.stmt(s.else_case))
            case st.For():
                lo, ext = self.expr(s.min), self.expr(s.extent)
                if _lanes(lo) > 1 or _lanes(ext) > 1:
                    raise _Scalar()
                return st.For(s.name, lo, ext, s.for_type, self.stmt(s.body), s.device_api)
            case st.ProducerConsumer():
                return st.ProducerConsumer(s.name, s.is_producer, self.stmt(s.body))
            case st.Evaluate():
                return st.Evaluate(self.expr(s.value))
            case _:
                raise _Scalar()


def run(s, ctx=None):
    def go(n):
        if not isinstance(n, st.Stmt):
            return n
        n = rebuild(n, go)
        if isinstance(n, st.For) and n.for_type is ForType.Vectorized:
            lanes = ops.as_const(n.extent)
            if lanes is None:
                raise ScheduleError(f"cannot vectorize loop {n.name}: its extent "
                                    f"{to_string(n.extent)} is not a constant; use "
                                    "vectorize(var, factor) to split off a constant number of "
                                    "lanes")
            if lanes <= 1:
                return st.For(n.name, n.min, n.extent, ForType.Serial, n.body)
            try:
                out = _Vectorizer(n.name, n.min, lanes).stmt(n.body)
            except _Scalar:
                return st.For(n.name, n.min, n.extent, ForType.Serial, n.body)
            if lanes % 2 == 0 and _halves_gather(out):
                return _even_and_odd(n, lanes) or out
            return out
        return n
    return go(s)


def _halves_gather(s: st.Stmt) -> bool:
    """Whether s divides a dense ramp by 2 or takes it modulo 2 (x / 2, x % 2 of the loop
    variable: a gather of each lane, a per-lane select)."""
    return any(isinstance(n, ir.Div | ir.Mod) and isinstance(n.a, ir.Ramp) and
               ops.is_const(n.a.stride, 1) and ops.is_const(n.b, 2) for n in walk(s))


def _stores(s: st.Stmt) -> list[st.Stmt] | None:
    """The stores of a store or a block of stores, else None."""
    if isinstance(s, st.Store):
        return [s]
    if isinstance(s, st.Block) and all(isinstance(x, st.Store) for x in s.stmts):
        return list(s.stmts)
    return None


def _even_and_odd(loop: st.For, lanes: int) -> st.Stmt | None:
    """The loop's body vectorized twice at half width, over its even and its odd lanes, as
    Halide deinterleaves: there x / 2 is dense (ramp(b, 2, n) / 2 = ramp(b / 2, 1, n)) and
    x % 2 uniform, so a demosaic's select(x % 2 == 0, a[x / 2], b[x / 2]) reads whole vectors
    instead of gathering lane by lane. Each store, for the even then the odd lanes, writes
    stride 2 from bases b and b + 1, which codegen merges into one dense store. Statement by
    statement the order is the vector loop's; only bodies of stores (under lets the two halves
    share) whose values read no stored buffer (so lanes of one store do not see each other)
    are split; None otherwise."""
    halves = []
    for offset in (0, 1):
        try:
            body = _Vectorizer(loop.name, ops.add(loop.min, ops.const(offset, loop.min.type)),
                               lanes // 2, 2).stmt(loop.body)
        except _Scalar:
            return None
        lets = []
        while isinstance(body, st.LetStmt):  # uniform lets (a row's y) around the stores
            lets.append((body.name, body.value))
            body = body.body
        stores = _stores(body)
        if stores is None:
            return None
        halves.append((lets, stores))
    (lets, even), (odd_lets, odd) = halves
    if lets != odd_lets:  # a let of the lanes differs between the halves
        return None
    stored = {s.name for s in even}
    pairs = []
    for e, o in zip(even, odd, strict=True):
        if not (isinstance(e.index, ir.Ramp) and ops.is_const(e.index.stride, 2) and
                isinstance(o.index, ir.Ramp) and linear_form(ir.Sub(o.index.base,
                                                                    e.index.base)) == ({}, 1)):
            return None
        if any(isinstance(n, ir.Load) and n.name in stored for n in walk(e.value)):
            return None
        # The odd base spelled as the even one plus 1, as codegen's merge of the two looks for.
        base = ops.add(e.index.base, ops.const(1, e.index.base.type))
        o = st.Store(o.name, o.value, ir.Ramp(base, o.index.stride, o.index.lanes))
        pairs += [e, o]
    out = st.block(*pairs)
    for name, value in reversed(lets):
        out = st.LetStmt(name, value, out)
    return out
