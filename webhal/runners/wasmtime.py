"""Run a lowered pipeline as a standalone wasm module in wasmtime: the object from LLVM is linked
by wasm-ld; the module's imports (allocation, errors, halide_do_par_for, libm) are answered from
Python; buffers are copied into its memory and outputs copied back."""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time

import numpy as np
import wasmtime

from webhal import abi, codegen
from webhal.codegen.llvm.module import emit_object
from webhal.errors import HalideError
from webhal.ir.math_functions import FUNCTIONS, MathFunction
from webhal.ir.module import Module
from webhal.passes.add_buffer_checks import strided_arguments
from webhal.runtime import gpu_calls
from webhal.runtime.device import device_runtime
from webhal.runtime.wasm_memory import WasmBuffer, WasmHeap
from webhal.toolchain import find_wasm_ld, run_tool
from webhal.toolchain.wasm import WASM_LD_HINT

# libm's symbols, float and double, by the math function they compute.
_MATH = {symbol: f for f in FUNCTIONS.values() for symbol in f.libm}

# compiler-rt's float16 conversions, which LLVM calls for `half` on wasm (halves travel as i32).
_HALF = {
    "__truncsfhf2": lambda v: int(np.float32(v).astype(np.float16).view(np.uint16)),
    "__truncdfhf2": lambda v: int(np.float64(v).astype(np.float16).view(np.uint16)),
    "__extendhfsf2": lambda h: float(np.uint16(h & 0xFFFF).view(np.float16)),
}


def _math(f: MathFunction):
    """Python's math.<name>, with numpy's answer where Python raises instead of answering as C
    does (log(0) = -inf, pow(0, -1) = inf, acosh(0.5) = nan, ...)."""
    fn = getattr(math, f.name)
    fallback = getattr(np, f.numpy) if f.numpy else lambda *_: np.nan

    def call(*args):
        try:
            return fn(*args)
        except (ValueError, OverflowError):
            with np.errstate(all="ignore"):
                return float(fallback(*map(np.float64, args)))
    return call


def link_standalone(obj: bytes, name: str, target) -> bytes:
    """A wasm module exporting the pipeline, its memory and heap base."""
    ld = find_wasm_ld()
    with tempfile.TemporaryDirectory(prefix="webhal-ld-") as tmp:
        o, out = os.path.join(tmp, f"{name}.o"), os.path.join(tmp, f"{name}.wasm")
        with open(o, "wb") as f:
            f.write(obj)
        cmd = [ld.path, "--no-entry", f"--export={name}", "--export=__heap_base",
               "--allow-undefined", "-z", "stack-size=1048576",
               "--initial-memory=4194304", "-o", out, o]
        if target.has_feature("wasm_threads"):
            cmd[1:1] = ["--shared-memory", "--max-memory=2147483648",
                        "--no-check-features"]
        run_tool(cmd, what="wasm-ld", hint=WASM_LD_HINT)
        with open(out, "rb") as f:
            return f.read()


class _WasmMemory:
    """Host memory of the GPU runtime: offsets in the module's memory."""

    def __init__(self, heap: WasmHeap):
        self.heap = heap

    def read(self, address: int, nbytes: int) -> bytes:
        return self.heap.read(address, nbytes).tobytes()

    def write(self, address: int, data: bytes) -> None:
        self.heap.write(address, data)


class WasmPipeline:
    """A pipeline compiled to wasm and instantiated in wasmtime. Call with argument values in
    order (hl.Buffers for buffers, numbers for scalars); returns the error code."""

    def __init__(self, module: Module):
        target = module.target
        compiled = codegen.compile(module, "standalone")
        self.arguments = compiled.arguments
        self.strided = strided_arguments(module.images, module.outputs)
        self.wasm = link_standalone(emit_object(compiled.object, target), module.name, target)
        config = wasmtime.Config()
        config.wasm_simd = True
        config.wasm_threads = target.has_feature("wasm_threads")
        config.shared_memory = target.has_feature("wasm_threads")
        config.wasm_bulk_memory = True
        self.engine = wasmtime.Engine(config)
        self.store = wasmtime.Store(self.engine)
        wmod = wasmtime.Module(self.engine, self.wasm)
        self.error = None
        linker = wasmtime.Linker(self.engine)
        for imp in wmod.imports:
            if isinstance(imp.type, wasmtime.FuncType):
                linker.define_func(imp.module, imp.name, imp.type, self._import(imp.name))
        self.instance = linker.instantiate(self.store, wmod)
        exports = self.instance.exports(self.store)
        self.heap = WasmHeap(self.store, exports["memory"],
                             exports["__heap_base"].value(self.store))
        self.entry = exports[module.name]
        self.gpu = device_runtime(compiled.device, _WasmMemory(self.heap),
                                  profile=target.has_feature("profile"))

    def _import(self, name: str):
        if name in _HALF:
            return _HALF[name]
        if name in _MATH:
            return _math(_MATH[name])
        if name == "halide_malloc":
            return lambda uc, size: self.heap.malloc(size)
        if name == "halide_free":
            return lambda uc, ptr: self.heap.free(ptr)
        if name == "emscripten_stack_get_free":  # not measured here: STACK_LIMIT alone applies
            return lambda: 0
        if name.startswith("halide_error"):
            return self._error_function(name)
        if name in abi.GPU_CALLS:
            return self._gpu_function(name)
        if name == abi.PRINT_FUNCTION:
            return self._print
        if name in abi.PROFILER_FUNCTIONS:
            return self._profiler_function(name)
        if name == abi.REQUIREMENT_FUNCTION:
            return self._requirement
        if name in ("memset", "memcpy", "memmove"):  # LLVM turns fill and copy loops into these
            return getattr(self, "_" + name)
        raise RuntimeError(f"the wasm pipeline imports {name}, which webhal's runtime lacks")

    def _pieces(self, kinds, values) -> str:
        spec = self.heap.string(kinds)
        words = np.frombuffer(self.heap.read(values, 8 * len(spec)), dtype="<u8") \
            if spec else []
        return abi.format_print(spec, abi.print_values(spec, [int(w) for w in words],
                                                       self.heap.string))

    def _print(self, uc, kinds, values):
        sys.stdout.write(self._pieces(kinds, values) + "\n")
        return 0

    def _requirement(self, uc, condition, kinds, values):
        message = self._pieces(kinds, values)
        self._report((abi.requirement_message(self.heap.string(condition), message),
                      HalideError))
        return abi.error_code(abi.REQUIREMENT_FUNCTION)

    def _error_function(self, name: str):
        strings = abi.string_parameters(name)

        def report(uc, *args):
            args = [self.heap.string(a) if i in strings else a for i, a in enumerate(args)]
            self._report(abi.error_message(name, args))
            return abi.error_code(name)
        return report

    def _report(self, error) -> None:
        if self.error is None:  # the first failure of a call is the one the user sees
            self.error = error

    def _memset(self, dst, value, n):
        self.heap.view()[dst:dst + n] = value & 0xFF
        return dst

    def _memmove(self, dst, src, n):
        mem = self.heap.view()
        mem[dst:dst + n] = mem[src:src + n].copy()
        return dst

    _memcpy = _memmove

    def _profiler_function(self, name: str):
        """A webhal_profiler_* import, answered by the process's Profiler."""
        from webhal.runtime.profiler import PROFILER
        method = getattr(PROFILER, name.removeprefix("webhal_profiler_"))
        strings = [i for i, (_, kind) in enumerate(abi.PROFILER_FUNCTIONS[name])
                   if kind == "string"]
        return lambda uc, *args: method(*(self.heap.string(a) if i in strings else a
                                          for i, a in enumerate(args)))

    def _gpu_function(self, name: str):
        return lambda uc, *args: gpu_calls.call(self.gpu, name, args, self._report)

    def take_error(self):
        e, self.error = self.error, None
        return e

    def __call__(self, values) -> int:
        self.heap.reset()
        self.error = None
        args, outputs = [], []
        for a, v in zip(self.arguments, values):
            if a.is_buffer:
                wb = WasmBuffer(self.heap, v, copy_in=not a.is_output,
                                keep_layout=a.name in self.strided)
                args.append(wb.address)
                if a.is_output:
                    outputs.append(wb)
            else:
                as_bits = not a.type.is_float() or a.type.bits == 16  # float16 as its bits
                args.append(int(v) if as_bits else float(v))
        start = time.perf_counter()
        code = self.entry(self.store, *args)
        self.last_call_seconds = time.perf_counter() - start
        if code == 0:
            for wb in outputs:
                wb.copy_out(self.heap)
        return code
