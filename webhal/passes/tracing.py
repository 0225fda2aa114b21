"""Tracing: the lines Halide's Func.trace_stores/trace_loads/trace_realizations print; and
hl.print's values bound once (print_value calls become Lets, ir/printing.py).

Each event becomes a print call (ir/printing.py) in the statement, so every CPU target prints
it through its runtime: `Store f.0(x, y) = v` after each store, `Load f.0(x, y) = v` at each
read, and around each realization of a Func `Begin realization f.0(min, extent, ...)`,
`Produce`/`End produce`, `Consume`/`End consume`, `End realization`. (The reference evaluator
prints the stores, loads and realizations itself: reference/realize.py.) A pipeline with any
tracing starts with `Begin pipeline out.0()` and a `Tag` line per traced Func (its type and the
region the pipeline uses of it), and ends with `End pipeline out.0()`. The ".0" is the value
index of Halide's names (webhal Funcs have one value). In a vectorized loop a store or load
prints once per vector, each coordinate and the value as `<a, b, ...>`, as Halide prints them.
"""

from __future__ import annotations

import itertools

from webhal.analysis.boxes import boxes_provided, boxes_required
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.printing import is_print_value, lower_print_value, return_second, trace_call
from webhal.ir.types import Int, UInt
from webhal.ir.visitor import rebuild, substitute
from webhal.passes.context import LowerContext

_I32 = Int(32)


def _line(*pieces) -> st.Evaluate:
    return st.Evaluate(trace_call([ir.StringImm(p) if isinstance(p, str) else p
                                   for p in pieces]))


def _listed(values) -> list:
    out: list = []
    for i, v in enumerate(values):
        out += [ir.StringImm(", ")] * (i > 0) + [v]
    return out


def _printable(v: ir.Expr) -> ir.Expr:
    return ir.Cast(UInt(8), v) if v.type.is_bool() else v  # traces print bools as 0/1


def _bounds(bounds) -> list:
    return _listed([e for pair in bounds for e in pair])


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    names = itertools.count()
    s = _lower_prints(s, names)
    traced = {fn.name: fn for fn in ctx.functions if fn.schedule.trace}
    if not traced:
        return s
    outputs = {o.name: tuple((ir.Variable(_I32, f"{o.name}.min.{d}"),
                              ir.Variable(_I32, f"{o.name}.extent.{d}"))
                             for d in range(o.dimensions)) for o in ctx.outputs}

    def wants(name: str, what: str) -> bool:
        return name in traced and what in traced[name].schedule.trace

    def expr(e, realized):
        e = rebuild(e, lambda n: go(n, realized))
        if isinstance(e, ir.Call) and e.call_type is ir.CallType.HALIDE and \
                wants(e.name, "loads"):
            v = ir.Variable(e.type, f"{e.name}.trace.{next(names)}")
            # Each coordinate is computed once, for the load and the line (it may print).
            args = [ir.Variable(a.type, f"{v.name}.{i}") for i, a in enumerate(e.args)]
            line = trace_call([ir.StringImm(f"Load {e.name}.{e.value_index}("), *_listed(args),
                               ir.StringImm(") = "), _printable(v)])
            load = ir.Call(e.type, e.name, tuple(args), e.call_type, e.func, e.value_index)
            out = ir.Let(v.name, load, return_second(line, v))
            for a, value in reversed(list(zip(args, e.args))):
                out = ir.Let(a.name, value, out)
            return out
        return e

    def go(n, realized):
        if isinstance(n, ir.Expr):
            return expr(n, realized)
        if isinstance(n, st.Realize) and wants(n.name, "realizations"):
            inner = {**realized, n.name: n.bounds}
            pieces = _bounds(n.bounds)
            body = st.block(_line(f"Begin realization {n.name}.0(", *pieces, ")"),
                            go(n.body, inner),
                            _line(f"End realization {n.name}.0(", *pieces, ")"))
            return st.Realize(n.name, n.type, n.bounds, body, n.memory_type, n.fold)
        if isinstance(n, st.Realize):
            return rebuild(n, lambda c: go(c, {**realized, n.name: n.bounds}))
        if isinstance(n, st.ProducerConsumer) and wants(n.name, "realizations"):
            body = go(n.body, realized)
            if n.name in outputs and not n.is_producer:
                return st.ProducerConsumer(n.name, n.is_producer, body)
            bounds = realized.get(n.name, outputs.get(n.name, ()))
            what = "produce" if n.is_producer else "consume"
            pieces = _bounds(bounds)
            return st.ProducerConsumer(n.name, n.is_producer, st.block(
                _line(f"{what.capitalize()} {n.name}.0(", *pieces, ")"), body,
                _line(f"End {what} {n.name}.0(", *pieces, ")")))
        if isinstance(n, st.Provide) and wants(n.name, "stores"):
            value = go(n.value, realized)
            args = tuple(go(a, realized) for a in n.args)
            v = ir.Variable(value.type, f"{n.name}.trace.{next(names)}")
            return st.LetStmt(v.name, value, st.block(
                _line(f"Store {n.name}.{n.value_index}(", *_listed(args), ") = ",
                      _printable(v)),
                st.Provide(n.name, v, args, n.value_index)))
        return rebuild(n, lambda c: go(c, realized))

    body = go(s, {})
    pipeline = ctx.outputs[0].name
    tags = [_tag(fn, outputs.get(fn.name), s) for fn in ctx.functions if fn.name in traced]
    begin = [_line(f"Begin realization {o}.0(", *_bounds(outputs[o]), ")")
             for o in outputs if wants(o, "realizations")]
    end = [_line(f"End realization {o}.0(", *_bounds(outputs[o]), ")")
           for o in reversed(list(outputs)) if wants(o, "realizations")]
    return st.block(_line(f"Begin pipeline {pipeline}.0()"), *tags, *begin, body, *end,
                    _line(f"End pipeline {pipeline}.0()"))


def _lower_prints(s: st.Stmt, names) -> st.Stmt:
    """hl.print's print_value calls as Lets: the printed value is computed once."""
    def go(n):
        n = rebuild(n, go)
        if is_print_value(n):
            return lower_print_value(n, f"print.{next(names)}")
        return n
    return go(s)


def _tag(fn, output_bounds, s: st.Stmt) -> st.Stmt:
    """`Tag f.0() tag = "func_type_and_dim: ..."`: 1 value, its type code, bits and lanes, the
    dimensions, then min and extent of each over the whole pipeline."""
    t = fn.type
    code = 0 if t.is_int() else 2 if t.is_float() else 1
    head = f'Tag {fn.name}.0() tag = "func_type_and_dim: 1 {code} {t.bits} {t.lanes} ' \
           f"{fn.dimensions}"
    bounds = output_bounds
    lets = {}
    while isinstance(s, st.LetStmt):  # the pipeline's outer lets: the tag comes before them
        lets[s.name] = substitute(s.value, lets)
        s = s.body
    if bounds is None:
        box = boxes_provided(s, {fn.name}).get(fn.name) or \
            boxes_required(s, {fn.name}).get(fn.name)
        if box is not None and all(iv.is_bounded() for iv in box):
            bounds = tuple((substitute(iv.min, lets), substitute(
                ir.Add(ir.Sub(iv.max, iv.min), ir.IntImm(_I32, 1)), lets)) for iv in box)
    if not bounds:
        return _line(head + '"')
    pieces = []
    for lo, extent in bounds:
        pieces += [" ", lo, " ", extent]
    return _line(head, *pieces, '"')
