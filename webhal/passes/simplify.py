"""The simplifier: constant folding and algebraic identities (through ir.ops), lets of constants
and plain variables substituted, dead branches, empty loops and unused lets removed."""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.types import Bool
from webhal.ir.visitor import rebuild, substitute, variable_names, walk
from webhal.passes.context import LowerContext

_FOLD = {ir.Add: ops.add, ir.Sub: ops.sub, ir.Mul: ops.mul, ir.Div: ops.div, ir.Mod: ops.mod,
         ir.Min: ops.minimum, ir.Max: ops.maximum}
_BITWISE = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left",
                      "shift_right"})
_COMPARE = {ir.EQ: lambda a, b: a == b, ir.NE: lambda a, b: a != b, ir.LT: lambda a, b: a < b,
            ir.LE: lambda a, b: a <= b, ir.GT: lambda a, b: a > b, ir.GE: lambda a, b: a >= b}


def _trivial(e: ir.Expr) -> bool:
    return ops.as_const(e) is not None and not isinstance(e, ir.Broadcast) or \
        isinstance(e, ir.Variable)


def _uses(s, name: str) -> bool:
    return name in variable_names(s)  # memoized: nested lets ask again of the same subtrees


_SIMPLIFIED: dict[int, tuple[ir.Expr, ir.Expr]] = {}  # node id -> (node, simplified)


def simplify_expr(e: ir.Expr) -> ir.Expr:
    """e simplified, memoized by node: bounds inference shares subtrees between the regions
    and checks of many Funcs, and each pass simplifies them again; the result is a function of
    the node alone, which is immutable."""
    hit = _SIMPLIFIED.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    out = _simplify_expr(e)
    if len(_SIMPLIFIED) > 500_000:
        _SIMPLIFIED.clear()
    _SIMPLIFIED[id(e)] = (e, out)
    return out


def _simplify_expr(e: ir.Expr) -> ir.Expr:
    e = rebuild(e, simplify_expr)
    t = type(e)
    if t is ir.Call and e.call_type is ir.CallType.INTRINSIC and e.name == "promise_clamped":
        return e.args[0]  # a promise to bounds inference, which has run
    if t is ir.Call and e.call_type is ir.CallType.INTRINSIC and e.name in _BITWISE:
        return ops.bitwise(e)
    if t in _FOLD and e.type.is_scalar():
        return _FOLD[t](e.a, e.b)
    if t in _COMPARE:
        a, b = ops.as_const(e.a), ops.as_const(e.b)
        if a is not None and b is not None and e.a.type.is_scalar():
            return ops.const(_COMPARE[t](a, b), Bool())
        if e.a == e.b and not e.a.type.is_float() and e.a.type.is_scalar():
            return ops.const(t in (ir.EQ, ir.LE, ir.GE), Bool())
        return e
    if t is ir.And:
        return ops.and_(e.a, e.b)
    if t is ir.Or:
        if ops.is_const(e.a, 1) or ops.is_const(e.b, 1):
            return ops.const(1, Bool())
        if ops.is_const(e.a, 0):
            return e.b
        if ops.is_const(e.b, 0):
            return e.a
        return e
    if t is ir.Not and ops.as_const(e.a) is not None and e.type.is_scalar():
        return ops.const(not ops.as_const(e.a), Bool())
    if t is ir.Select:
        return ops.select(e.condition, e.true_value, e.false_value)
    if t is ir.Cast:
        return ops.cast(e.type, e.value)
    if t is ir.Let and _trivial(e.value):
        return simplify_expr(substitute(e.body, {e.name: e.value}))
    if t is ir.Let and not _uses(e.body, e.name):
        return e.body
    if t is ir.Let and isinstance(e.body, ir.Variable) and e.body.name == e.name:
        return e.value  # `let v = x in v`, as bounds analysis names a let's bound
    return e


def simplify_stmt(s: st.Stmt, lets: dict[str, ir.Expr] | None = None,
                  subs: dict[str, ir.Expr] | None = None) -> st.Stmt:
    """s simplified; `lets` are the values of the LetStmts around it, `subs` the constants and
    variables that the trivial ones among them stand for (substituted as s is simplified: once
    per statement, not once per let over everything the let wraps)."""
    lets = {} if lets is None else lets
    subs = {} if subs is None else subs

    def expr(e: ir.Expr) -> ir.Expr:
        return simplify_expr(substitute(e, subs) if subs else e)

    if isinstance(s, st.LetStmt):
        value = expr(s.value)
        if _trivial(value):
            return simplify_stmt(s.body, lets, {**subs, s.name: value})
        inner = {k: v for k, v in subs.items() if k != s.name} if s.name in subs else subs
        body = simplify_stmt(s.body, {**lets, s.name: value}, inner)
        if not _uses(body, s.name):
            return body
        return st.LetStmt(s.name, value, body)
    if isinstance(s, st.IfThenElse):  # inside, what the condition says of variables holds
        condition = expr(s.condition)
        facts = _facts(condition)
        # The facts join the lets too: a loop extent inside may name a let from outside the
        # branch whose value holds a pinned variable (c.max = min.2 + extent.2 - 1).
        then_case = simplify_stmt(s.then_case, {**lets, **facts}, {**subs, **facts})
        s = st.IfThenElse(condition, then_case,
                          None if s.else_case is None else simplify_stmt(s.else_case, lets, subs))
    else:
        s = rebuild(s, lambda n: expr(n) if isinstance(n, ir.Expr) else
                    simplify_stmt(n, lets, subs))
    match s:
        case st.IfThenElse():
            c = ops.as_const(s.condition)
            if c is None and isinstance(s.condition, ir.Call) and s.condition.name == "likely":
                c = ops.as_const(s.condition.args[0])
            if c is not None:
                return s.then_case if c else (s.else_case or _nop())
        case st.For():
            if ops.as_const(s.extent) is None:
                s = _constant_extent(s, lets)
            if ops.is_const(s.extent, 0) or (ops.as_const(s.extent) is not None and
                                             ops.as_const(s.extent) < 0):
                return _nop()
        case st.Block():
            kept = [x for x in s.stmts if not _is_nop(x)]
            return st.block(*kept) if kept else _nop()
        case st.AssertStmt():
            if ops.is_const(s.condition, 1):
                return _nop()
    return s


_MAX_EXTENT_NODES = 256


def _constant_extent(loop: st.For, lets: dict[str, ir.Expr]) -> st.For:
    """The loop with a constant extent where the lets around it make one: a Func's extent
    `f.x.max - f.x.min + 1` is 8 when f.x.max is f.x.min's value plus 7 (a wrapper or a tile
    computed at a tile of its consumer), which vectorize and unroll need to see."""
    e = loop.extent
    for _ in range(8):  # lets whose values name earlier lets
        # Names that cancel do so within a few small levels; a pyramid's regions, each naming
        # its consumer's twice, would double the expression with every level substituted.
        if _larger_than(e, _MAX_EXTENT_NODES):
            break
        names = variable_names(e) & lets.keys()
        if not names:
            break
        e = simplify_expr(substitute(e, {n: lets[n] for n in names}))
        if ops.as_const(e) is not None:
            return st.For(loop.name, loop.min, e, loop.for_type, loop.body, loop.device_api)
    return loop


def _larger_than(e: ir.Expr, limit: int) -> bool:
    """Whether the tree e (shared subtrees counted each time) has over `limit` nodes; walks
    at most limit + 1 of them."""
    count = 0
    for _ in walk(e):
        count += 1
        if count > limit:
            return True
    return False


def _facts(condition: ir.Expr) -> dict[str, ir.Expr]:
    """Integer variables a condition pins to constants (`v == 3 && ...`), substituted in its
    then-case: a specialize() on `input.dim(0).stride() == 1` makes that branch's loads and
    stores dense, and one on an extent gives its loops constant extents. (Not floats: x == 0.0
    holds for -0.0 too.)"""
    if isinstance(condition, ir.Call) and condition.name == "likely":
        return _facts(condition.args[0])
    if isinstance(condition, ir.And):
        return {**_facts(condition.a), **_facts(condition.b)}
    if isinstance(condition, ir.EQ):
        for v, c in ((condition.a, condition.b), (condition.b, condition.a)):
            if isinstance(v, ir.Variable) and not v.type.is_float() and v.type.is_scalar() \
                    and ops.as_const(c) is not None:
                return {v.name: c}
    return {}


def _nop() -> st.Stmt:
    return st.Evaluate(ops.const(0))


def _is_nop(s: st.Stmt) -> bool:
    return isinstance(s, st.Evaluate) and ops.as_const(s.value) is not None


def run(s: st.Stmt, ctx: LowerContext | None = None) -> st.Stmt:
    return simplify_stmt(s)
