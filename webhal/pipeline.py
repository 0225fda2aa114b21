"""Lowering: the one place where passes are ordered.

`lower(pipeline, target)` runs the passes in sequence on an immutable IR. With HL_DEBUG_CODEGEN
set to 2 or more, the statement is printed after each pass (with "(unchanged)" when a pass
returned the same tree), and with 1 or more the time each pass took.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.printer import stmt_to_string
from webhal.ir.visitor import per_node, walk
from webhal.lang.function import Function
from webhal.passes import (
    add_buffer_checks,
    bounds_inference,
    find_intrinsics,
    lower_intrinsics,
    offload_gpu_loops,
    partition_loops,
    schedule_functions,
    simplify,
    sliding_window,
    storage_flattening,
    unroll,
    vectorize,
)
from webhal.passes.context import LowerContext

# (name, pass) in order. Each takes (stmt, ctx) and returns a stmt.
PASSES = [
    ("bounds inference", bounds_inference.run),
    ("sliding window", sliding_window.run),
    ("buffer checks", add_buffer_checks.run),
    ("storage flattening", storage_flattening.run),
    ("simplify", simplify.run),
    ("partition loops", partition_loops.run),
    ("lower intrinsics", lower_intrinsics.run),
    ("unroll", unroll.run),
    ("vectorize", vectorize.run),
    ("simplify", simplify.run),
    ("find intrinsics", find_intrinsics.run),
    ("offload GPU loops", offload_gpu_loops.run),
]


@dataclass
class Lowered:
    """The result of lowering: the body of the entry function and what it takes."""

    name: str
    body: st.Stmt
    inputs: list[object]    # ImageParams, Buffers and Params, in argument order
    outputs: list[Function]
    ctx: LowerContext


def debug_level() -> int:
    try:
        return int(os.environ.get("HL_DEBUG_CODEGEN", "0"))
    except ValueError:
        return 0


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
    ImageParams' dim() constraints use)."""
    images: dict[str, object] = {}
    params: dict[str, object] = {}

    def visit(node, fn: Function) -> None:
        for kind, name, obj in _inputs_in(node):
            _add_input(images if kind == "image" else params, name, obj, fn)

    for fn in functions:
        for d in fn.definitions:
            nodes = [*d.args, d.value]
            if d.rdom is not None:
                nodes += [*d.rdom.mins, *d.rdom.extents, *d.rdom.predicates]
            for node in nodes:
                visit(node, fn)
            for image in list(images.values()):
                for node in getattr(image, "_constraints", {}).values():
                    visit(node, fn)
    return images, params


def lower(outputs: list[Function], functions: list[Function], target, name: str,
          arguments: list | None = None) -> Lowered:
    images, params = gather_inputs(functions)
    ctx = LowerContext(outputs, functions, target, images, params)
    if arguments is None:
        arguments = [*images.values(), *params.values()]
    level = debug_level()
    start = time.perf_counter()
    s = schedule_functions.run(ctx)
    _log(level, "schedule functions", s, None, time.perf_counter() - start)
    for pass_name, fn in PASSES:
        t0 = time.perf_counter()
        new = fn(s, ctx)
        _log(level, pass_name, new, s, time.perf_counter() - t0)
        s = new
    lowered = Lowered(name, s, list(arguments), outputs, ctx)
    if ctx.kernels:
        _log_wgsl(lowered, level)
    return lowered


def wgsl_of(lowered: Lowered) -> tuple[str, dict]:
    """The pipeline's WGSL module and binding manifest (empty when it has no GPU kernels)."""
    from webhal.codegen.wgsl.module import build_module
    return build_module(lowered.ctx.kernels, lowered.ctx.gpu_buffers)


def _log_wgsl(lowered: Lowered, level: int) -> None:
    path = os.environ.get("HL_WGSL_DUMP_FILE")
    if level >= 1 or path:
        wgsl, _ = wgsl_of(lowered)
        if level >= 1:
            print(f"WGSL of {lowered.name}:\n{wgsl}", file=sys.stderr)
        if path:
            with open(path, "w") as f:
                f.write(wgsl)


def _log(level: int, name: str, s: st.Stmt, before, seconds: float) -> None:
    if level >= 2:
        note = " (unchanged)" if s is before else ""
        print(f"Lowering after {name}{note}:\n{stmt_to_string(s)}", file=sys.stderr)
    elif level >= 1:
        print(f"{name}: {seconds * 1000:.1f} ms", file=sys.stderr)
