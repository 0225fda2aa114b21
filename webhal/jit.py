"""Realizing on compiled targets: host (LLVM's JIT in this process) and wasm (wasmtime).

Compiled pipelines are cached by target and lowered statement, so realizing the same pipeline
again costs only lowering (a few milliseconds), as with Halide's JIT cache.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from webhal.errors import BufferError, CompileError, HalideError
from webhal.ir.printer import stmt_to_string
from webhal.pipeline import lower

_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 64


def compile_jit(pipeline, target, name: str = "pipeline"):
    """The compiled pipeline and its lowering (from the cache when unchanged)."""
    outputs = [f.function() for f in pipeline.outputs()]
    lowered = lower(outputs, pipeline.functions(), target, name)
    key = (str(target), stmt_to_string(lowered.body),
           tuple(a.name() for a in lowered.inputs))
    compiled = _CACHE.get(key)
    if compiled is None:
        others = [f for f in ("vulkan", "cuda", "opencl", "metal") if target.has_feature(f)]
        if others:
            raise CompileError(f"target {target}: webhal's GPU backend is WebGPU; the "
                               f"{others[0]} feature is not supported yet (use -webgpu)")
        if target.is_wasm:
            from webhal.runners.wasmtime import WasmPipeline
            compiled = WasmPipeline(lowered, target)
        else:
            from webhal.runners.host import HostPipeline
            compiled = HostPipeline(lowered, target)
        _CACHE[key] = compiled
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return compiled, lowered


def argument_values(lowered, buffers, where) -> list:
    values = []
    for a in lowered.inputs:
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


def realize_compiled(pipeline, buffers, target, where) -> None:
    compiled, lowered = compile_jit(pipeline, target)
    code = compiled(argument_values(lowered, buffers, where))
    if code != 0:
        err = compiled.take_error() if hasattr(compiled, "take_error") else None
        if err is None:
            from webhal.runtime.host import take_error
            err = take_error()
        message, cls = err if err else (f"the pipeline failed with error code {code}",
                                        HalideError)
        raise cls(message, where)
