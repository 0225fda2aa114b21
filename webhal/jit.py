"""Realizing on compiled targets (host JIT, wasm in wasmtime)."""

from __future__ import annotations

from webhal.errors import CompileError


def realize_compiled(pipeline, buffers, target, where) -> None:
    raise CompileError(
        f"webhal cannot compile for target {target} yet: the compiler (LLVM and WGSL code "
        "generation) is being built. Realize with hl.Target('reference') (or set "
        "HL_JIT_TARGET=reference) to run the numpy reference evaluator.", where)
