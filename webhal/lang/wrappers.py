"""Func.in_ and Func.clone_in (Halide lessons 19, 20 and 22): a consumer reads a wrapper Func
(an identity copy, scheduled on its own) or a clone of the producer instead of the producer.

`f.in_(g)` and `f.clone_in(g)` rewrite g's definitions now; `f.in_()` (every consumer) is
applied when the pipeline's Functions are gathered (lang/graph.py), so consumers defined later
read the wrapper too. A Func keeps reading itself in its own updates.
"""

from __future__ import annotations

import copy
import dataclasses

from webhal.ir import nodes as ir
from webhal.ir.function import Definition, Function
from webhal.ir.visitor import rebuild


def redirect(node, old, new: Function):
    """node with every call of `old` (a Function, or an ImageParam) made a call of `new`."""
    def go(n):
        n = rebuild(n, go)
        if isinstance(n, ir.Call) and n.func is old and \
                n.call_type in (ir.CallType.HALIDE, ir.CallType.IMAGE):
            return ir.Call(n.type, new.name, n.args, ir.CallType.HALIDE, new, n.value_index)
        return n
    return go(node)


def redirect_definitions(consumer: Function, old: Function, new: Function) -> None:
    """Make `consumer` read `new` where it read `old` (new Definition objects, so that cached
    callee lists see the change)."""
    changed = []
    for d in consumer.definitions:
        values = tuple(redirect(v, old, new) for v in d.values)
        args = tuple(redirect(a, old, new) for a in d.args)
        if all(a is b for a, b in zip((*values, *args), (*d.values, *d.args))):
            changed.append(d)
        else:
            changed.append(dataclasses.replace(d, values=values, args=args))
    consumer.definitions = changed


def apply_global_wrappers(functions: list[Function]) -> bool:
    """Point every consumer of a Func with a global wrapper (f.in_()) at the wrapper; True if
    anything changed."""
    changed = False
    for fn in functions:
        for callee in fn.callees():
            wrapper = getattr(callee, "schedule", None) and callee.schedule.wrappers.get(None)
            if wrapper is None or fn is callee:
                continue
            if id(fn) in callee.schedule.wrappers or \
                    any(fn is w for w in callee.schedule.wrappers.values()):
                continue  # a wrapper of its own (f.in_(g)), or a wrapper itself
            redirect_definitions(fn, callee, wrapper)
            changed = True
    return changed


def clone_definitions(source: Function, clone: Function) -> None:
    """clone's definitions: source's, reading clone where source reads itself, with copies of
    the stage schedules (and the Func's schedule), scheduled from then on on their own."""
    clone.pure_args = list(source.pure_args)
    clone.definitions = [
        Definition(tuple(redirect(a, source, clone) for a in d.args),
                   tuple(redirect(v, source, clone) for v in d.values),
                   copy.deepcopy(d.schedule), d.rdom, d.where)
        for d in source.definitions]
    clone.schedule = copy.copy(source.schedule)
    clone.schedule.bounds = dict(source.schedule.bounds)
    clone.schedule.trace = set(source.schedule.trace)
    clone.schedule.wrappers = {}
