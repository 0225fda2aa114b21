"""Realizing on compiled targets: host (LLVM's JIT in this process) and wasm (wasmtime).

Compiled pipelines are cached by target and lowered statement, so realizing the same pipeline
again costs only lowering (a few milliseconds), as with Halide's JIT cache.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from webhal.errors import BufferError, HalideError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.printer import to_string
from webhal.ir.visitor import per_node, walk
from webhal.lower import gather_inputs, gc_paused, lower, output_boxes, output_region
from webhal.runtime.host import take_error

_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 64
_BOXES: OrderedDict = OrderedDict()  # fingerprint -> lower.output_boxes


@per_node()
def _typed(e) -> str:
    """e's text and the type of each of its nodes: the text leaves most types out (a
    saturating_cast to uint8 prints as one to int8; a Param's name hides its type)."""
    return to_string(e) + " : " + ",".join(str(getattr(n, "type", "")) for n in walk(e))


def fingerprint(pipeline, target, definitions: tuple | None = None) -> tuple:
    """What a compiled pipeline depends on: definitions, schedules, inputs and the target. Cheap
    to compute (no lowering), so realizing an unchanged pipeline again costs little.
    `definitions` is definitions_fingerprint(pipeline) when the caller has it already."""
    if definitions is None:
        definitions = definitions_fingerprint(pipeline)
    return (str(target), *definitions)


def definitions_fingerprint(pipeline) -> tuple:
    """The target-free part of fingerprint()."""
    parts = ["outputs " + ",".join(f.name() for f in pipeline.outputs())]
    for condition, pieces in requirements_of(pipeline):
        parts.append("require " + ",".join(_typed(e) for e in (condition, *pieces)))
    for fn in pipeline.functions():
        parts.append(f"{fn.name}({','.join(fn.pure_args)})")
        for d in fn.definitions:
            parts.append(",".join(_typed(a) for a in d.args) + "=" +
                         ",".join(_typed(v) for v in d.values))
            if d.rdom is not None:
                r = d.rdom
                parts.append(f"rdom {r.name} {[_typed(e) for e in (*r.mins, *r.extents)]} "
                             f"{[_typed(p) for p in r.predicates]}")
            parts.append(repr(d.schedule))
            for s in d.specializations:
                parts.append(f"specialize {_typed(s.condition)} {s.schedule!r}")
            if d.specialize_fail is not None:
                parts.append(f"specialize_fail {d.specialize_fail!r}")
        sch = fn.schedule
        parts.append(f"{sch.compute_level} {sch.store_level} {sch.memory_type} "
                     f"{[(k, to_string(a), to_string(b)) for k, (a, b) in sch.bounds.items()]} "
                     f"{sch.storage_order} {sorted(sch.trace)}")
        if fn.output_constraints:
            parts.append(f"output constraints {_constraints_text(fn.output_constraints)}")
        for c in fn.callees():
            if not hasattr(c, "definitions"):
                parts.append(f"input {c.name()} {c.type()} {c.dimensions()} "
                             f"{_constraints_text(getattr(c, '_constraints', {}))}")
    return tuple(parts)


def invalidate(pipeline) -> None:
    """Forget the compiled code of `pipeline` for every target, so that the next realize
    compiles it again (Pipeline.invalidate_cache)."""
    parts = definitions_fingerprint(pipeline)
    for cache in (_CACHE, _BOXES):
        for key in [k for k in cache if k[1:] == parts]:
            del cache[key]


def _constraints_text(constraints: dict) -> str:
    return ",".join(f"{k}={'any' if v is None else _typed(v)}"
                    for k, v in sorted(constraints.items()))


def requirements_of(pipeline) -> tuple:
    """Pipeline.add_requirement's (condition, message pieces)."""
    return tuple(getattr(pipeline, "_requirements", ()))


@gc_paused  # lowering and code generation as one stretch (see gc_paused)
def compile_jit(pipeline, target, name: str = "pipeline", definitions: tuple | None = None):
    """The compiled pipeline and its lowered Module (from the cache when unchanged)."""
    key = fingerprint(pipeline, target, definitions)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    outputs = [f.function() for f in pipeline.outputs()]
    lowered = lower(outputs, pipeline.functions(), target, name,
                    requirements=requirements_of(pipeline))
    compiled = runner(lowered)
    _CACHE[key] = (compiled, lowered)
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return compiled, lowered


def argument_values(pipeline, buffers, where) -> list:
    """The values to call the compiled pipeline with, from this pipeline's own inputs (a cached
    compilation may have been made for other, identical, ImageParams and Params)."""
    images, params = gather_inputs(pipeline.functions())
    values = []
    for a in [*images.values(), *params.values()]:
        if hasattr(a, "set") and hasattr(a, "dimensions"):  # ImageParam
            b = a.get()
            if b is None:
                raise BufferError(f"ImageParam {a.name()} has no Buffer bound: call "
                                  f"{a.name()}.set(buffer) before realizing", where)
            values.append(b)
        elif hasattr(a, "dimensions"):  # Buffer
            values.append(a)
        else:  # Param
            v = a.get()
            if a.type().is_float() and a.type().bits == 16:
                v = int(np.float16(v).view(np.uint16))
            values.append(v)
    return values + list(buffers)


def realize_compiled(pipeline, buffers, target, where, definitions: tuple | None = None) -> None:
    compiled, lowered = compile_jit(pipeline, target, definitions=definitions)
    call(compiled, argument_values(pipeline, buffers, where), where)
    if target.has_feature("profile"):
        from webhal.runtime.profiler import print_report
        print_report(lowered.outputs[0].name)


def runner(lowered):
    """A lowered Module compiled and ready to call: wasmtime for wasm targets, else the host
    JIT (compile_to_callable's, which is not cached)."""
    if lowered.target.is_wasm:
        from webhal.runners.wasmtime import WasmPipeline
        return WasmPipeline(lowered)
    from webhal.codegen.llvm.target_machine import is_host
    if not is_host(lowered.target):
        from webhal.target import get_host_target
        raise HalideError(f"cannot run code for {lowered.target} on this machine "
                          f"({get_host_target()}); realize on host or a wasm target, or "
                          "compile for it with compile_to_static_library or compile_to_file")
    from webhal.runners.host import HostPipeline
    return HostPipeline(lowered)


def call(compiled, values, where) -> None:
    """Run a compiled pipeline on argument values in order; a runtime error is raised as the
    exception Halide raises (HalideError, or BufferError for a buffer's mistakes)."""
    code = compiled(values)
    if code != 0:
        call_failed(compiled, code, where)


def call_failed(compiled, code: int, where) -> None:
    """Raise the error a compiled pipeline's call returned `code` for."""
    err = compiled.take_error() if hasattr(compiled, "take_error") else None
    if err is None:
        err = take_error()
    message, cls = err if err else (f"the pipeline failed with error code {code}", HalideError)
    raise cls(message, where)


def outputs_written(pipeline, buffers, target, where,
                    definitions: tuple | None = None) -> list[list[tuple[int, int]] | None]:
    """Halide's output bounds query: the (min, max) per dimension that the compiled pipeline
    writes of each output when realized into `buffers` (with the inputs and Params bound now),
    or None where that is not known before running it. Larger than a buffer where a split or
    vector factor exceeds it, a RoundUp tail rounds it up, or an update writes beyond it."""
    key = fingerprint(pipeline, target, definitions)
    boxes = _BOXES.get(key)
    if boxes is None:
        boxes = output_boxes([f.function() for f in pipeline.outputs()], pipeline.functions(),
                             target)
        _BOXES[key] = boxes
        if len(_BOXES) > _CACHE_SIZE:
            _BOXES.popitem(last=False)
    else:
        _BOXES.move_to_end(key)
    images, params = gather_inputs(pipeline.functions())
    values = argument_values(pipeline, buffers, where)
    known: dict[str, ir.Expr] = {}
    named = [*zip(images, values), *((f.name(), b) for f, b in zip(pipeline.outputs(), buffers))]
    for name, b in named:
        for d in range(b.dimensions()):
            dim = b.dim(d)
            for field, v in (("min", dim.min()), ("extent", dim.extent()),
                             ("stride", dim.stride())):
                known[f"{name}.{field}.{d}"] = ops.const(int(v))
    for name, p in params.items():
        known[name] = ops.const(p.get(), p.type())
    return [None if f.name() not in boxes else output_region(boxes[f.name()], known)
            for f in pipeline.outputs()]
