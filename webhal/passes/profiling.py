"""Profiling (target feature `profile`): calls that let the runtime charge each Func its time.

Halide's profiler samples, from a separate thread, which Func the pipeline is computing. webhal
times exactly instead: the runtime keeps the Func being computed now and the time it started,
and each call below charges the time since the last one to that Func (webhal/runtime/
profiler.py; abi.PROFILER_FUNCTIONS lists the calls):

- the pipeline starts with `webhal_profiler_pipeline_start(name, funcs)` (funcs: the
  comma-separated names of the Funcs it computes; id 0 is "overhead": buffer checks, bounds,
  allocation outside any Func) and ends with `webhal_profiler_pipeline_end()`;
- each Func's production `produce f { body }` becomes `set_current_func(f); body;
  set_current_func(parent)`, parent being the Func whose production encloses it (0 at the top),
  so a Func computed inside another's loops is charged its own time, not its consumer's;
- a parallel loop is wrapped in `parallel_start()` ... `parallel_end()` on the calling thread,
  and each of its tasks in `task_start(f)` ... `task_end()`, f being the Func that runs the loop.
  Tasks charge their time to the Funcs they compute (per thread); at parallel_end the loop's
  wall-clock time is shared among those Funcs in proportion to their tasks' time. So the Funcs'
  times always add up to the run's, and a parallel Func's share is its share of the wall clock.

Nothing is placed inside GPU loops (the kernels' times come from the device runtime) or in
vectorized loops (none remain after vectorize: this pass runs after it). Without `profile`
the statement is returned unchanged.
"""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType
from webhal.ir.types import Int
from webhal.ir.visitor import rebuild, walk
from webhal.passes.context import LowerContext

OVERHEAD = "overhead"  # id 0: time outside every Func's production


def _call(name: str, *args) -> st.Evaluate:
    values = tuple(ir.StringImm(a) if isinstance(a, str) else ir.IntImm(Int(32), a)
                   for a in args)
    return st.Evaluate(ir.Call(Int(32), name, values, ir.CallType.RUNTIME))


def produced_funcs(s: st.Stmt, ctx: LowerContext) -> list[str]:
    """The Funcs with a production in `s` (outside GPU kernels), in the pipeline's order."""
    found = {n.name for n in walk(s) if isinstance(n, st.ProducerConsumer) and n.is_producer}
    return [fn.name for fn in ctx.functions if fn.name in found]


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    if not ctx.target.has_feature("profile"):
        return s
    names = produced_funcs(s, ctx)
    ids = {name: i + 1 for i, name in enumerate(names)}

    def go(n, current: int):
        if isinstance(n, ir.Expr):
            return n
        if isinstance(n, st.For) and n.for_type in (ForType.GPUBlock, ForType.GPUThread):
            return n  # a kernel: timed on the device
        if isinstance(n, st.ProducerConsumer) and n.is_producer and n.name in ids:
            f = ids[n.name]
            body = st.block(_call("webhal_profiler_set_current_func", f), go(n.body, f),
                            _call("webhal_profiler_set_current_func", current))
            return st.ProducerConsumer(n.name, True, body)
        if isinstance(n, st.For) and n.for_type is ForType.Parallel:
            body = st.block(_call("webhal_profiler_task_start", current), go(n.body, current),
                            _call("webhal_profiler_task_end"))
            loop = st.For(n.name, n.min, n.extent, n.for_type, body, n.device_api)
            return st.block(_call("webhal_profiler_parallel_start"), loop,
                            _call("webhal_profiler_parallel_end"))
        return rebuild(n, lambda c: go(c, current))

    body = go(s, 0)
    pipeline = ctx.outputs[0].name
    return st.block(_call("webhal_profiler_pipeline_start", pipeline, ",".join(names)), body,
                    _call("webhal_profiler_pipeline_end"))

