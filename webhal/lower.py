"""Lowering: the one place where passes are ordered.

`lower(outputs, functions, target, name)` checks the target, then runs the passes in sequence on
an immutable IR, starting from an empty statement, and returns an `ir.module.Module`. With
HL_DEBUG_CODEGEN set to 2 or more, the statement is printed after each pass (with "(unchanged)"
when a pass returned the same tree), and with 1 or more the time each pass took.
"""

from __future__ import annotations

import functools
import gc
import sys
import time

from webhal import abi
from webhal.analysis.boxes import boxes_provided
from webhal.debug import debug_level
from webhal.errors import CompileError, ScheduleError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.function import Function
from webhal.ir.module import Module
from webhal.ir.printer import stmt_to_string, to_string
from webhal.ir.schedule import DeviceAPI, ForType
from webhal.ir.types import Int
from webhal.ir.visitor import per_node, substitute, walk
from webhal.passes import (
    add_buffer_checks,
    bounds_inference,
    find_intrinsics,
    lower_intrinsics,
    offload_gpu_loops,
    pack_mask_bits,
    partition_loops,
    profiling,
    remove_dead_producers,
    schedule_functions,
    simplify,
    sliding_window,
    storage_flattening,
    tracing,
    unroll,
    vectorize,
)
from webhal.passes.context import LowerContext

# (name, pass) in order. Each takes (stmt, ctx) and returns a stmt; the first builds the loop
# nest around the empty statement.
PASSES = [
    ("schedule functions", schedule_functions.run),
    ("bounds inference", bounds_inference.run),
    ("sliding window", sliding_window.run),
    ("tracing", tracing.run),
    ("buffer checks", add_buffer_checks.run),
    ("storage flattening", storage_flattening.run),
    ("simplify", simplify.run),
    ("remove dead producers", remove_dead_producers.run),
    ("partition loops", partition_loops.run),
    ("lower intrinsics", lower_intrinsics.run),
    ("unroll", unroll.run),
    ("vectorize", vectorize.run),
    ("simplify", simplify.run),
    ("pack mask bits", pack_mask_bits.run),
    ("find intrinsics", find_intrinsics.run),
    ("profiling", profiling.run),
    ("offload GPU loops", offload_gpu_loops.run),
]

# GPU features of Halide's target strings that webhal has no backend for yet.
_UNSUPPORTED_GPU = ("cuda", "opencl", "metal", "d3d12compute")


def _same_data(a, b) -> bool:
    """Two Buffers over the same memory, shape, strides, type and mins (hl.Buffer(array, "in")
    written twice)."""
    x, y = getattr(a, "_array", None), getattr(b, "_array", None)
    return x is not None and y is not None and x.dtype == y.dtype and x.shape == y.shape and \
        x.strides == y.strides and a._mins == b._mins and \
        x.__array_interface__["data"][0] == y.__array_interface__["data"][0]


def _add_input(found: dict[str, object], name: str, obj, fn: Function) -> None:
    seen = found.setdefault(name, obj)
    if seen is not obj and not _same_data(seen, obj):  # one name, two inputs
        kind = type(obj).__name__
        raise CompileError(f"two different inputs are named '{name}' (a {type(seen).__name__} "
                           f"and a {kind}, the second used by Func {fn.name}); give each "
                           f"{kind} its own name", user_location())


@per_node()
def _inputs_in(node) -> tuple:
    """("image" or "param", name, object) for each input read in node, in walk order."""
    found = []
    for n in walk(node):
        if isinstance(n, ir.Call) and n.call_type is ir.CallType.IMAGE:
            found.append(("image", n.name, n.func))
        elif isinstance(n, ir.Variable) and n.param is not None:
            if hasattr(n.param, "dim"):  # an ImageParam's min/extent/stride
                found.append(("image", n.param.name(), n.param))
            else:
                found.append(("param", n.name, n.param))
    return tuple(found)


def gather_inputs(functions: list[Function]) -> tuple[dict, dict]:
    """Buffers/ImageParams and Params the definitions use, in order of first use (and those the
    dim() constraints of ImageParams and output buffers use)."""
    images: dict[str, object] = {}
    params: dict[str, object] = {}

    def visit(node, fn: Function) -> None:
        for kind, name, obj in _inputs_in(node):
            _add_input(images if kind == "image" else params, name, obj, fn)

    for fn in functions:
        for d in fn.definitions:
            nodes = list(d.nodes())
            if d.rdom is not None:
                nodes += [*d.rdom.mins, *d.rdom.extents]
            for node in nodes:
                visit(node, fn)
            for image in list(images.values()):
                for node in getattr(image, "_constraints", {}).values():
                    if node is not None:  # None: a constraint removed (any stride)
                        visit(node, fn)
        for node in fn.output_constraints.values():
            if node is not None:
                visit(node, fn)
    return images, params


def device_api(target) -> DeviceAPI:
    """The GPU API the target's loops marked gpu_* offload to, checked before lowering."""
    others = [f for f in _UNSUPPORTED_GPU if target.has_feature(f)]
    if others:
        raise CompileError(f"target {target}: webhal's GPU backends are WebGPU and Vulkan; "
                           f"the {others[0]} feature is not supported yet (use -webgpu or "
                           "-vulkan)", user_location())
    return offload_gpu_loops.target_device_api(target)


def check_gpu_loops(functions: list[Function], target) -> None:
    """Loops scheduled on a GPU need a target with a GPU API. As in Halide, they are refused
    elsewhere rather than run on the CPU: a silent CPU run would hide a missing feature."""
    api = device_api(target)
    for fn in functions:
        for i, d in enumerate(fn.definitions):
            for dim in d.schedule.dims:
                if dim.for_type not in (ForType.GPUBlock, ForType.GPUThread):
                    continue
                stage = fn.name if i == 0 else f"{fn.name}.update({i - 1})"
                if api is DeviceAPI.None_:
                    raise ScheduleError(
                        f"Func {stage} runs loop {dim.name} on the GPU (gpu_tile, gpu_blocks "
                        f"or gpu_threads), but target {target} has no GPU feature; add webgpu "
                        "or vulkan to the target (host-webgpu, wasm-32-wasmrt-webgpu, "
                        "host-vulkan), or give this "
                        "target a CPU schedule (`if target.has_gpu_feature(): ...`)",
                        d.schedule.where)
                if dim.device_api not in (DeviceAPI.Default_GPU, api):
                    backend = dim.device_api in (DeviceAPI.WebGPU, DeviceAPI.Vulkan)
                    why = (f"which target {target} does not have (its GPU API is {api.name}; "
                           f"use a -{dim.device_api.value} target for it)" if backend else
                           "which webhal has no backend for")
                    raise ScheduleError(
                        f"Func {stage} runs loop {dim.name} on DeviceAPI."
                        f"{dim.device_api.name}, {why}; or use "
                        f"DeviceAPI.{api.name} or DeviceAPI.Default_GPU", d.schedule.where)


def gc_paused(fn):
    """fn with Python's cyclic garbage collector paused while it runs (the outermost of nested
    calls restores it). Lowering and code generation allocate millions of small objects that
    reference counting frees, while the collector's passes over the growing heap of live IR
    and LLVM IR objects found almost nothing: they were a quarter of a JIT compile's CPU time
    (camera pipe: 0.6-0.8 of 2.7-3.0 s, with 4 full collections). Cycles made meanwhile are
    collected once it runs again."""
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return paused


@gc_paused
def lower(outputs: list[Function], functions: list[Function], target, name: str,
          arguments: list | None = None, requirements: tuple = ()) -> Module:
    """The Module of the pipeline computing `outputs` (Functions in `functions`, producers
    first) for `target`; `arguments` orders the entry function's inputs (by default, the
    images and params the definitions read, in order of first use). `requirements` are
    Pipeline.add_requirement's (condition, message pieces), checked first."""
    _allow_deep_statements(len(functions))
    check_gpu_loops(functions, target)
    images, params = gather_inputs(functions)
    for condition, pieces in requirements:
        for node in (condition, *pieces):
            for kind, n, obj in _inputs_in(node):
                _add_input(images if kind == "image" else params, n, obj, outputs[0])
    ctx = LowerContext(outputs, functions, target, images, params)
    if arguments is None:
        arguments = [*images.values(), *params.values()]
    s = st.block(*(_requirement(c, p) for c, p in requirements), _run_passes(PASSES, ctx))
    return Module(name, target, s, tuple(arguments), tuple(outputs), images, params)


def _allow_deep_statements(n_functions: int) -> None:
    """Room on Python's stack for the statement of n Funcs. The passes and code generators
    recurse once per nested statement, and each Func computed at the root nests its realization
    inside the one before (half a dozen statements deep per Func): a pipeline of 100+ Funcs (a
    local Laplacian of 8 levels) runs past Python's default limit of 1000 frames. The limit is
    raised, never lowered, for code generation after lowering too."""
    needed = 2000 + 200 * n_functions
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def _requirement(condition: ir.Expr, pieces) -> st.Stmt:
    """The check of one Pipeline.add_requirement: the error call names the condition and
    formats the message's pieces at run time (abi.REQUIREMENT_FUNCTION)."""
    text = to_string(condition)
    text = text if text.startswith("(") and text.endswith(")") else f"({text})"
    call = ir.Call(Int(32), abi.REQUIREMENT_FUNCTION, (ir.StringImm(text), *pieces),
                   ir.CallType.RUNTIME)
    return st.AssertStmt(condition, call)


def _run_passes(passes, ctx: LowerContext) -> st.Stmt:
    """`passes` in order from the empty statement, each dumped and timed (HL_DEBUG_CODEGEN)."""
    level = debug_level()
    s: st.Stmt = st.Evaluate(ops.const(0))
    for pass_name, fn in passes:
        t0 = time.perf_counter()
        new = fn(s, ctx)
        _log(level, pass_name, new, s, time.perf_counter() - t0)
        s = new
    return s


def _up_to_buffer_checks(outputs: list[Function], functions: list[Function], target):
    """The statement after the passes before the buffer checks, whose regions are those the
    checks compare with the buffers; and the images and params the definitions read."""
    _allow_deep_statements(len(functions))
    images, params = gather_inputs(functions)
    ctx = LowerContext(outputs, functions, target, images, params)
    s = _run_passes(PASSES[:[n for n, _ in PASSES].index("buffer checks")], ctx)
    return s, images, params


def _value(e: ir.Expr, known: dict[str, ir.Expr]) -> ir.Expr:
    return simplify.simplify_expr(substitute(e, known))


OutputBoxes = dict[str, list[tuple[ir.Expr, ir.Expr] | None]]


@gc_paused
def output_boxes(outputs: list[Function], functions: list[Function], target) -> OutputBoxes:
    """What the compiled pipeline writes of each output: (min, max) per dimension, in terms of
    the buffers' fields (`out.min.0`, `out.extent.0`, an input's) and the Params; None where
    unbounded. Beyond the output's buffer where a split or vector factor exceeds it, a RoundUp
    tail rounds it up, or an update writes further."""
    s, _, _ = _up_to_buffer_checks(outputs, functions, target)
    boxes = boxes_provided(s, {o.name for o in outputs})
    return {name: [(iv.min, iv.max) if iv.is_bounded() else None for iv in box]
            for name, box in boxes.items()}


def output_region(box: list[tuple[ir.Expr, ir.Expr] | None], known: dict[str, ir.Expr]
                  ) -> list[tuple[int, int]] | None:
    """An output_boxes box as (min, max) integers with `known` values for its symbols (None
    where one of them is not known)."""
    out = []
    for dim in box:
        if dim is None:
            return None
        lo, hi = (_value(e, known) for e in dim)
        if not (isinstance(lo, ir.IntImm) and isinstance(hi, ir.IntImm)):
            return None
        out.append((lo.value, hi.value))
    return out


def _log(level: int, name: str, s: st.Stmt, before, seconds: float) -> None:
    if level >= 2:
        note = " (unchanged)" if s is before else ""
        print(f"Lowering after {name}{note}:\n{stmt_to_string(s)}", file=sys.stderr)
    elif level >= 1:
        print(f"{name}: {seconds * 1000:.1f} ms", file=sys.stderr)
