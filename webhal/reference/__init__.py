"""The reference evaluator: numpy computes every definition; the oracle for every backend."""

from __future__ import annotations

from webhal import abi
from webhal.errors import HalideError
from webhal.ir import nodes as ir
from webhal.ir.function import Function
from webhal.ir.printer import to_string
from webhal.reference.evaluate import Evaluator
from webhal.reference.realize import Realizer, traced_functions


def realize_into(outputs: list[Function], buffers: list, where=None,
                 requirements: tuple = ()) -> None:
    """Compute each output Function over its buffer's region (an hl.Buffer or anything with
    its mins(), shape() and data()), writing into the buffer; first check `requirements`
    (Pipeline.add_requirement's), as compiled pipelines do."""
    r = Realizer(where)
    for condition, pieces in requirements:
        ev = Evaluator(r, {})
        if not bool(ev.eval(condition)):
            kinds = "".join("s" if isinstance(p, ir.StringImm) else abi.print_kind(p.type)
                            for p in pieces)
            values = [p.value if isinstance(p, ir.StringImm) else ev.eval(p).item()
                      for p in pieces]
            raise HalideError(abi.requirement_message(to_string(condition),
                                                      abi.format_print(kinds, values)), where)
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
