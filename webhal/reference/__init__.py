"""The reference evaluator: numpy computes every definition; the oracle for every backend."""

from __future__ import annotations

from webhal.ir.function import Function
from webhal.reference.realize import Realizer, traced_functions


def realize_into(outputs: list[Function], buffers: list, where=None) -> None:
    """Compute each output Function over its buffer's region (an hl.Buffer or anything with
    its mins(), shape() and data()), writing into the buffer."""
    r = Realizer(where)
    traced = traced_functions(outputs)
    if traced:  # the events of passes/tracing.py, in the reference's own order (see its doc)
        print(f"Begin pipeline {outputs[0].name}.0()")
    for fn, buf in zip(outputs, buffers):
        region = [(m, e) for m, e in zip(buf.mins(), buf.shape())]
        mins, data = r.realize(fn, region)
        index = tuple(slice(bm - m, bm - m + e) for (bm, e), m in zip(region, mins))
        buf.data()[...] = data[index] if index else data
    if traced:
        print(f"End pipeline {outputs[0].name}.0()")
