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
from webhal.ir.visitor import rebuild, walk
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
    producers = [n for n in walk(a.body)
                 if isinstance(n, st.ProducerConsumer) and n.is_producer and n.name == a.name]
    if len(producers) != 1:
        return None
    produce = producers[0]
    own = {a.name} | {n.name for n in walk(produce.body) if isinstance(n, st.Allocate)}
    for n in walk(produce.body):
        if isinstance(n, st.Store) and n.name not in own:
            return None
        if isinstance(n, ir.Call) and n.call_type is ir.CallType.RUNTIME:
            return None
    rest = _without_producer(a.body, a.name)
    used = any(isinstance(n, (ir.Load, st.Store)) and n.name == a.name or
               isinstance(n, ir.Variable) and n.name == a.name for n in walk(rest))
    return None if used else rest


def _without_producer(s: st.Stmt, name: str) -> st.Stmt:
    """s with `produce name` gone and `consume name` unwrapped."""
    def go(n):
        if not isinstance(n, st.Stmt):
            return n
        if isinstance(n, st.ProducerConsumer) and n.name == name:
            return go(n.body) if not n.is_producer else st.Evaluate(ops.const(0))
        return rebuild(n, go)
    return go(s)
