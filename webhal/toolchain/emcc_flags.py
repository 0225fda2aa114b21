"""The one place that chooses emcc's flags for linking a webhal pipeline into JavaScript + wasm.

The target says what is needed (its wasm features, WebGPU); the capability table of the
Emscripten in use (capabilities.py) says how each is spelled in that version, or that the version
cannot do it. Callers add only their inputs, include paths and output.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from webhal.errors import ToolchainError
from webhal.target_features import GPU_FEATURES
from webhal.toolchain.capabilities import NEEDS_NETWORK, EmscriptenCapabilities
from webhal.toolchain.emscripten import find_emscripten
from webhal.toolchain.tool import format_version

if TYPE_CHECKING:
    from webhal.target import Target

SUSPENDERS = ("asyncify", "jspi")


@dataclass(frozen=True)
class JsModule:
    """Link as a factory function for JavaScript (`-sMODULARIZE`) instead of a program that
    runs main(). `functions` are the C functions JavaScript calls (e.g. "malloc"), and
    `runtime_methods` the Emscripten runtime members it uses (e.g. "HEAPU8")."""

    export_name: str
    functions: tuple[str, ...] = ()
    runtime_methods: tuple[str, ...] = ()
    es6: bool = False  # an ES module whose default export is the factory (-sEXPORT_ES6)


def emcc_flags(target: Target, capabilities: EmscriptenCapabilities | None = None, *,
               optimize: int | str = 3, environment: Sequence[str] = (),
               module: JsModule | None = None, initial_memory: int | None = None,
               thread_pool_size: int | None = None, suspend: str = "asyncify",
               allow_network: bool = False, gpu_bindings: bool = True,
               grow_shared_memory: bool = False) -> list[str]:
    """emcc's flags for linking code compiled for the wasm `target`.

    capabilities: of the Emscripten to link with; by default the one find_emscripten() finds.
    optimize: the -O level. environment: where the output runs ("web", "node", "worker"); empty
    lets it run anywhere. module: link as a factory for JavaScript, else as a program with main().
    initial_memory: bytes; without wasm_threads the memory can grow from there, with them it is
    fixed (growing shared memory slows Emscripten's own JavaScript down) unless
    grow_shared_memory (for callers that refresh their views of memory).
    thread_pool_size: workers started before the program runs, for wasm_threads (default:
    this machine's cores).
    suspend: how WebGPU's asynchronous calls wait, "asyncify" or "jspi" (where the version has
    it). allow_network: accept WebGPU bindings that emcc downloads while linking.
    gpu_bindings: for webgpu targets, link Emscripten's webgpu.h bindings and a way to wait
    (`suspend`); without them webhal's JavaScript runtime answers the GPU calls and reads
    results back after the entry returns.

    ToolchainError when the target is not wasm, or the Emscripten version cannot link it.
    """
    if not target.is_wasm:
        raise ToolchainError(f"target {target}: emcc links WebAssembly targets only",
                             hint="use a wasm-32-wasmrt target")
    if capabilities is None:
        capabilities = find_emscripten().capabilities
    threads = target.has_feature("wasm_threads")
    flags = [f"-O{optimize}"]
    if environment:
        places = list(environment)
        if threads and "worker" not in places:
            places.append("worker")  # emcc refuses pthreads without a worker environment
        flags.append(f"-sENVIRONMENT={','.join(places)}")
    if module is not None:
        flags += ["-sMODULARIZE=1", f"-sEXPORT_NAME={module.export_name}"]
        if module.es6:
            flags.append("-sEXPORT_ES6=1")
        if module.functions:
            flags.append("-sEXPORTED_FUNCTIONS=" + ",".join("_" + f for f in module.functions))
        if module.runtime_methods:
            flags.append("-sEXPORTED_RUNTIME_METHODS=" + ",".join(module.runtime_methods))
    for feature, name in (("wasm_mvponly", "mvp"), ("wasm_simd128", "simd128")):
        if target.has_feature(feature):
            flags.append(_flag(capabilities, name, target))
    if threads:
        # Workers are made before main() runs: a browser's main thread cannot wait for a new one.
        flags += [_flag(capabilities, "pthreads", target),
                  f"-sPTHREAD_POOL_SIZE={thread_pool_size or os.cpu_count() or 2}"]
        if module is None:
            flags.append("-sEXIT_RUNTIME=1")  # end the workers when main returns (Node exits)
    if not threads or grow_shared_memory:
        flags.append("-sALLOW_MEMORY_GROWTH=1")
    if initial_memory is not None:
        flags.append(f"-sINITIAL_MEMORY={initial_memory}")
    if target.has_feature("webgpu"):
        if gpu_bindings:
            flags += _webgpu_flags(capabilities, target, suspend, allow_network)
    elif target.has_gpu_feature():
        others = ", ".join(sorted(f for f in GPU_FEATURES if target.has_feature(f)))
        raise ToolchainError(f"target {target}: emcc builds reach a GPU through WebGPU only, "
                             f"not {others}", hint="use the webgpu feature for wasm targets")
    return flags


def suspend_flags(capabilities: EmscriptenCapabilities, target: Target, suspend: str, *,
                  imports: Sequence[str], exports: Sequence[str],
                  only: Sequence[str] = ()) -> list[str]:
    """Flags that let the wasm functions `only` (the whole call path from the `exports` to the
    asynchronous JavaScript `imports`) wait on a promise: ASYNCIFY instruments just those
    functions when `only` is given; JSPI needs no instrumentation, only the names."""
    if suspend not in SUSPENDERS:
        raise ValueError(f"suspend must be one of {SUSPENDERS}, not {suspend!r}")
    names = ",".join
    if suspend == "jspi":
        return [_flag(capabilities, "jspi", target), f"-sJSPI_IMPORTS={names(imports)}",
                f"-sJSPI_EXPORTS={names(exports)}"]
    flags = [_flag(capabilities, "asyncify", target), f"-sASYNCIFY_IMPORTS={names(imports)}"]
    return flags + [f"-sASYNCIFY_ONLY={names(only)}"] if only else flags


def _webgpu_flags(capabilities: EmscriptenCapabilities, target: Target, suspend: str,
                  allow_network: bool) -> list[str]:
    """WebGPU bindings for C, and a way for C to wait on WebGPU's promises."""
    if suspend not in SUSPENDERS:
        raise ValueError(f"suspend must be one of {SUSPENDERS}, not {suspend!r}")
    usable = [name for name in ("use_webgpu", "emdawnwebgpu") if name in capabilities
              and (allow_network or name not in NEEDS_NETWORK)]
    if not usable:
        offline = "" if allow_network else " usable offline"
        raise ToolchainError(
            f"target {target}: Emscripten {format_version(capabilities.version)} has no WebGPU "
            f"bindings{offline} (-sUSE_WEBGPU was removed in 4.0.18; --use-port=emdawnwebgpu "
            "is downloaded while linking)",
            hint="use Emscripten older than 4.0.18, or pass allow_network=True")
    return [capabilities.flag(usable[0]), _flag(capabilities, suspend, target)]


def _flag(capabilities: EmscriptenCapabilities, name: str, target: Target) -> str:
    try:
        return capabilities.flag(name)
    except KeyError:
        raise ToolchainError(f"target {target} needs {name}, which Emscripten "
                             f"{format_version(capabilities.version)} does not have",
                             hint="use an Emscripten that has it (see `webhal doctor`)") from None
