"""Lowering one pass at a time, for tests that look at the statement around a given pass."""

from __future__ import annotations

from collections.abc import Iterator

import webhal as hl
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.lower import PASSES, gather_inputs
from webhal.passes.context import LowerContext


def pass_steps(out: hl.Func, target: str) -> Iterator[tuple[str, object, st.Stmt, st.Stmt]]:
    """(name, pass function, statement before, statement after) for each pass of
    webhal.lower.PASSES in order, lowering `out` for `target`."""
    pipeline = hl.Pipeline(out)
    outputs = [f.function() for f in pipeline.outputs()]
    functions = pipeline.functions()
    images, params = gather_inputs(functions)
    ctx = LowerContext(outputs, functions, hl.Target(target), images, params)
    s: st.Stmt = st.Evaluate(ops.const(0))
    for name, fn in PASSES:
        new = fn(s, ctx)
        yield name, fn, s, new
        s = new
