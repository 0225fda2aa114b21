"""Unroll loops marked unrolled: their extent must be a constant once simplified."""

from __future__ import annotations

from webhal.errors import ScheduleError
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.schedule import ForType
from webhal.ir.visitor import rebuild, substitute


def run(s, ctx=None):
    def go(n):
        if not isinstance(n, st.Stmt):
            return n
        n = rebuild(n, go)
        if isinstance(n, st.For) and n.for_type is ForType.Unrolled:
            extent = ops.as_const(n.extent)
            if extent is None:
                raise ScheduleError(f"cannot unroll loop {n.name}: its extent "
                                    f"{to_string(n.extent)} is not a constant; split it by a "
                                    "constant factor and unroll the inner loop")
            return st.block(*(substitute(n.body, {n.name: ops.add(n.min, ops.const(i))})
                              for i in range(extent))) if extent > 0 else st.Evaluate(ops.const(0))
        return n
    return go(s)
