"""Drop the computation of a Func that nothing reads any more.

Simplifying can remove every read of a Func (`f[x] % 0` is 0, `f[x] * 0` is 0 in integers):
its storage and its producer then go too, as Halide drops them. Besides the wasted work, a
producer kept this way could stop a schedule from compiling that Halide compiles (a GPU kernel
of types WebGPU lacks, for values nobody uses). A producer with effects beyond its own storage
(print, tracing, a runtime call, stores to other buffers) stays.
"""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.visitor import children, rebuild, walk
from webhal.passes.context import LowerContext


def run(s: st.Stmt, ctx: LowerContext | None = None) -> st.Stmt:
    def go(n):
        if not isinstance(n, st.Stmt):
            return n
        n = rebuild(n, go)
        if isinstance(n, st.Allocate):
            rest = _rest_if_dead(n)
            if rest is not None:
                return rest
        return n
    return go(s)


def _rest_if_dead(a: st.Allocate) -> st.Stmt | None:
    """a's body without its producer, where a's buffer is written only by that producer, read
    nowhere, and the producer has no other effect; else None."""
    producers = _producers(a.body, a.name)
    if len(producers) != 1:
        return None
    produce = producers[0]
    own = {a.name} | {n.name for n in walk(produce.body) if isinstance(n, st.Allocate)}
    for n in walk(produce.body):
        if isinstance(n, st.Store) and n.name not in own:
            return None
        if isinstance(n, ir.Call) and n.call_type is ir.CallType.RUNTIME:
            return None
    if _used_outside(a.body, a.name, produce):
        return None
    return _without_producer(a.body, a.name)


# Statement id -> (statement, names it loads, stores or reads as variables, Funcs it produces).
# Each Allocate asks of its body; with Funcs computed at the root nested one inside the other,
# fresh walks of each body would take time quadratic in the Funcs.
_SUMMARIES: dict[int, tuple[st.Stmt, frozenset, frozenset]] = {}


def _summary(s: st.Stmt) -> tuple[frozenset, frozenset]:
    hit = _SUMMARIES.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1], hit[2]
    refs, produced = set(), set()
    for c in children(s):
        if isinstance(c, st.Stmt):
            r, p = _summary(c)
            refs |= r
            produced |= p
        else:
            refs |= _expr_refs(c)
    if isinstance(s, st.Store):
        refs.add(s.name)
    if isinstance(s, st.ProducerConsumer) and s.is_producer:
        produced.add(s.name)
    if len(_SUMMARIES) > 200_000:
        _SUMMARIES.clear()
    found = frozenset(refs), frozenset(produced)
    _SUMMARIES[id(s)] = (s, *found)
    return found


def _expr_refs(e: ir.Expr) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, ir.Load | ir.Variable)}


def _producers(s: st.Stmt, name: str) -> list[st.ProducerConsumer]:
    """The `produce name` statements in s, looked for only where the summaries say they are."""
    if name not in _summary(s)[1]:
        return []
    found = [s] if isinstance(s, st.ProducerConsumer) and s.is_producer and s.name == name \
        else []
    for c in children(s):
        if isinstance(c, st.Stmt):
            found += _producers(c, name)
    return found


def _used_outside(s: st.Stmt, name: str, produce: st.Stmt) -> bool:
    """Whether s loads, stores or names buffer `name` outside statement `produce`."""
    if s is produce or name not in _summary(s)[0]:
        return False
    for c in children(s):
        if isinstance(c, st.Stmt):
            if _used_outside(c, name, produce):
                return True
        elif name in _expr_refs(c):
            return True
    return isinstance(s, st.Store) and s.name == name


def _without_producer(s: st.Stmt, name: str) -> st.Stmt:
    """s with `produce name` gone and `consume name` unwrapped."""
    def go(n):
        if not isinstance(n, st.Stmt):
            return n
        if isinstance(n, st.ProducerConsumer) and n.name == name:
            return go(n.body) if not n.is_producer else st.Evaluate(ops.const(0))
        return rebuild(n, go)
    return go(s)
