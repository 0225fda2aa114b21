"""Code generation: `compile(module, purpose)` is the one entry every caller uses (ahead-of-time
output, the host JIT, the wasmtime runner, the web build). It returns the LLVM object of the host
code, with the runtime parts its purpose needs, and each device API's (source, manifest)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import llvmlite.binding as binding

from webhal.codegen.llvm.module import Argument, build_module, compile_module
from webhal.codegen.llvm.runtime import runtime_module
from webhal.codegen.spirv.module import build_module as build_spirv
from webhal.codegen.wgsl.module import build_module as build_wgsl
from webhal.debug import debug_level
from webhal.ir.module import Module
from webhal.ir.schedule import DeviceAPI
from webhal.lower import gc_paused

# What each purpose links in beside the pipeline (see runtime_parts).
PURPOSES = ("library", "jit", "standalone", "code")


@dataclass(frozen=True, eq=False)
class Compiled:
    """A compiled pipeline: `object` is optimized LLVM, ready to emit or to JIT; `arguments`
    describe the entry function's parameters in order; `device` maps each device API to its
    (source, manifest)."""

    module: Module
    object: binding.ModuleRef
    arguments: tuple[Argument, ...]
    device: dict[DeviceAPI, tuple[str, dict]]


def runtime_parts(module: Module, purpose: str) -> tuple[str, ...]:
    """The runtime parts linked in for `purpose`:

    - "library": a static library or object for C callers: allocation, error reporting and
      parallel loops on a pthread pool where the platform has threads (native, or wasm with
      wasm_threads, linked with emcc -pthread), else in order; with profile, the profiler's
      runtime and halide_profiler_report/reset (codegen/llvm/profiler.py); nothing with
      no_runtime.
    - "jit": the host JIT, whose errors and thread pool are the process's own; a pipeline with
      GPU kernels runs its parallel loops in order on the calling thread, which the WebGPU
      calls find their runtime through.
    - "standalone": a wasm module for wasmtime: parallel loops run in order inside wasm (no
      call back into Python per task); allocation and errors are the runner's imports.
    - "code": nothing (assembly and LLVM listings show the pipeline alone).
    """
    target = module.target
    match purpose:
        case "library":
            if target.has_feature("no_runtime"):
                return ()
            threads = not target.is_wasm or target.has_feature("wasm_threads")
            profiler = ("profiler",) if target.has_feature("profile") else ()
            return ("allocation", "thread_pool" if threads else "par_for", "errors", *profiler)
        case "jit":
            return ("allocation", "par_for") if module.has_kernels else ("allocation",)
        case "standalone":
            return ("par_for",)
        case "code":
            return ()
    raise ValueError(f"unknown purpose {purpose!r}; one of {', '.join(PURPOSES)}")


def device_code(module: Module) -> dict[DeviceAPI, tuple[str | bytes, dict]]:
    """Each device API's (source, manifest) for the module's kernels: WGSL text for WebGPU, a
    SPIR-V binary for Vulkan; empty without kernels. HL_DEBUG_CODEGEN >= 1 prints the WGSL
    (>= 3, the SPIR-V disassembled); HL_WGSL_DUMP_FILE and HL_SPIRV_DUMP_FILE write them."""
    out = {}
    for api, kernels in module.kernels.items():
        ids = {b: i for b, i in module.device_buffers().items()
               if any(b in k.buffer_ids for k in kernels)}
        if api is DeviceAPI.WebGPU:
            out[api] = build_wgsl(list(kernels), ids)
            _dump("WGSL", module.name, out[api][0], "HL_WGSL_DUMP_FILE", 1)
        elif api is DeviceAPI.Vulkan:
            out[api] = build_spirv(list(kernels), ids, module.target)
            _dump("SPIR-V", module.name, out[api][0], "HL_SPIRV_DUMP_FILE", 3)
        else:
            raise NotImplementedError(f"no code generator for device API {api.value}")
    return out


@gc_paused
def compile(module: Module, purpose: str = "library",  # noqa: A001 (Halide's word)
            device: dict[DeviceAPI, tuple[str, dict]] | None = None) -> Compiled:
    """Compile a lowered module for `purpose` (see runtime_parts); `device` is the module's
    device_code() when the caller has made it already."""
    parts = runtime_parts(module, purpose)
    ll_module, arguments = build_module(module)
    ref = compile_module(ll_module, module.target, jit=purpose == "jit")
    _release(ll_module)
    if parts:
        ref.link_in(binding.parse_assembly(str(runtime_module(module.target, parts))))
    return Compiled(module, ref, tuple(arguments),
                    device if device is not None else device_code(module))


def _release(module) -> None:
    """Break the reference cycles of llvmlite's IR objects (each instruction names its block,
    each block its function, the module its functions) once LLVM has parsed the module's text,
    so that reference counting frees them: left to the cyclic collector, some 120000 of them
    made its first pass after a camera pipe compile take 0.3 s."""
    for fn in module.functions:
        for block in fn.blocks:
            block.instructions = []
            block.terminator = None
        fn.blocks = []
    module.globals.clear()
    module.metadata = []
    module.namedmetadata = {}
    module._metadatacache = {}


def _dump(language: str, name: str, code: str | bytes, variable: str, level: int) -> None:
    """Print the kernels' code from HL_DEBUG_CODEGEN `level` on (SPIR-V disassembled), and
    write it to the file the environment `variable` names."""
    if debug_level() >= level:
        if isinstance(code, bytes):
            from webhal.toolchain.spirv import disassemble
            text = disassemble(code)
        else:
            text = code
        print(f"{language} of {name}:\n{text}", file=sys.stderr)
    path = os.environ.get(variable)
    if path:
        with open(path, "wb" if isinstance(code, bytes) else "w") as f:
            f.write(code)
