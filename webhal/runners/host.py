"""Run a lowered pipeline in this process: LLVM's JIT for the host CPU, buffers passed as
halide_buffer_t over numpy memory, runtime calls answered by webhal.runtime.host."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import time

import llvmlite.binding as llvm

from webhal import codegen
from webhal.codegen.llvm.runtime import runtime_module
from webhal.codegen.llvm.target_machine import target_machine
from webhal.ir.module import Module
from webhal.ir.types import Type
from webhal.passes.add_buffer_checks import strided_arguments
from webhal.runtime import host as rt
from webhal.runtime.buffers import HostBuffer
from webhal.runtime.device import device_runtime
from webhal.runtime.webgpu import HostMemory

_CTYPES = {("int", 8): ctypes.c_int8, ("int", 16): ctypes.c_int16, ("int", 32): ctypes.c_int32,
           ("int", 64): ctypes.c_int64, ("uint", 1): ctypes.c_bool, ("uint", 8): ctypes.c_uint8,
           ("uint", 16): ctypes.c_uint16, ("uint", 32): ctypes.c_uint32,
           ("uint", 64): ctypes.c_uint64, ("float", 32): ctypes.c_float,
           ("float", 64): ctypes.c_double}


@functools.cache
def _register_runtime():
    """Runtime symbols for JIT code: Python's callbacks, libm, and the native thread pool
    (halide_do_par_for, halide_set_num_threads). The returned engine owns the pool's code and
    lives as long as the process."""
    for name, cb in rt.CALLBACKS.items():
        llvm.add_symbol(name, ctypes.cast(cb, ctypes.c_void_p).value)
    libm = ctypes.util.find_library("m")
    if libm:
        llvm.load_library_permanently(libm)
    from webhal.target import get_host_target
    host = get_host_target()
    module = llvm.parse_assembly(str(runtime_module(host, ("thread_pool",))))
    engine = llvm.create_mcjit_compiler(module, target_machine(host, jit=True))
    engine.finalize_object()
    for name in ("halide_do_par_for", "halide_set_num_threads"):
        llvm.add_symbol(name, engine.get_function_address(name))
    return engine


def thread_pool_size() -> int:
    """Threads the host's parallel loops can use now: the pool's workers plus the caller."""
    address = _register_runtime().get_function_address("webhal_thread_pool_size")
    return ctypes.CFUNCTYPE(ctypes.c_int32)(address)()


_NOT_READ = object()
_hl_num_threads_read: object = _NOT_READ  # HL_NUM_THREADS as the JIT's pool last read it


def follow_hl_num_threads() -> None:
    """The native pool reads HL_NUM_THREADS once, as Halide's does; in a Python session that
    changes it between calls, the JIT's pool reads it again before the next call."""
    global _hl_num_threads_read
    rt.check_num_threads()
    text = os.environ.get("HL_NUM_THREADS")
    if text != _hl_num_threads_read:
        address = _register_runtime().get_function_address("webhal_thread_pool_reread_default")
        ctypes.CFUNCTYPE(None)(address)()
        _hl_num_threads_read = text


def scalar_ctype(t: Type):
    if t.is_float() and t.bits == 16:
        return ctypes.c_uint16  # passed as its bits
    return _CTYPES[(t.code.value, t.bits)]


class HostPipeline:
    """A pipeline compiled for this CPU. Call with the argument values in order (hl.Buffers for
    buffer arguments, Python numbers for scalars); returns the error code (0 on success)."""

    def __init__(self, module: Module):
        _register_runtime()
        compiled = codegen.compile(module, "jit")
        self.arguments = compiled.arguments
        self.strided = strided_arguments(module.images, module.outputs)
        self.engine = llvm.create_mcjit_compiler(compiled.object,
                                                 target_machine(module.target, jit=True))
        self.engine.finalize_object()
        address = self.engine.get_function_address(module.name)
        argtypes = [ctypes.c_void_p if a.is_buffer else scalar_ctype(a.type)
                    for a in self.arguments]
        self.function = ctypes.CFUNCTYPE(ctypes.c_int32, *argtypes)(address)
        self.gpu = device_runtime(compiled.device, HostMemory())

    def __call__(self, values) -> int:
        keep, args, outputs = [], [], []
        for a, v in zip(self.arguments, values):
            if a.is_buffer:
                hb = HostBuffer(v, keep_layout=a.name in self.strided)
                keep.append(hb)
                args.append(hb.pointer)
                if a.is_output:
                    outputs.append(hb)
            else:
                args.append(v)
        follow_hl_num_threads()
        rt.begin_call()
        rt.current_gpu.runtime = self.gpu
        start = time.perf_counter()
        try:
            code = self.function(*args)
        finally:
            rt.current_gpu.runtime = None
        self.last_call_seconds = time.perf_counter() - start
        if code == 0:
            for hb in outputs:  # outputs that were not dense were computed in a copy
                hb.copy_back()
        return code
