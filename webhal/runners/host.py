"""Run a lowered pipeline in this process: LLVM's JIT for the host CPU, buffers passed as
halide_buffer_t over numpy memory, runtime calls answered by webhal.runtime.host."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import time

import llvmlite.binding as llvm
import numpy as np

from webhal import codegen
from webhal.codegen.llvm.runtime import runtime_module
from webhal.codegen.llvm.target_machine import target_machine
from webhal.ir.module import Module
from webhal.ir.types import Type
from webhal.passes.add_buffer_checks import strided_arguments
from webhal.runtime import host as rt
from webhal.runtime.buffers import BufferSlots, HostBuffer
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


_ENV_KEY = os.environ.encodekey("HL_NUM_THREADS")


def _hl_num_threads_env() -> str | None:
    """os.environ.get("HL_NUM_THREADS"), without the KeyError it raises and catches when unset
    (about 2 us, as much as the rest of a pipeline call): CPython's os.environ keeps its bytes
    in _data, in step with every change made through os.environ."""
    data = getattr(os.environ, "_data", None)
    if data is None:
        return os.environ.get("HL_NUM_THREADS")
    value = data.get(_ENV_KEY)
    return None if value is None else os.environ.decodevalue(value)


def follow_hl_num_threads() -> None:
    """The native pool reads HL_NUM_THREADS once, as Halide's does; in a Python session that
    changes it between calls, the JIT's pool reads it again before the next call."""
    global _hl_num_threads_read
    text = _hl_num_threads_env()
    if text != _hl_num_threads_read:  # checked when it changes (an error leaves it unread)
        rt.check_num_threads()
        address = _register_runtime().get_function_address("webhal_thread_pool_reread_default")
        ctypes.CFUNCTYPE(None)(address)()
        _hl_num_threads_read = text


_PYTHON_SCALARS = (int, float, bool)


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
        self.gpu = device_runtime(compiled.device, HostMemory(),
                                  profile=module.target.has_feature("profile"))
        self._buffer_positions = [i for i, a in enumerate(self.arguments) if a.is_buffer]
        self._buffer_slots = list(enumerate(self._buffer_positions))  # (slot, position)
        self._scalar_positions = [i for i, a in enumerate(self.arguments) if not a.is_buffer]
        self._half_positions = {i for i, a in enumerate(self.arguments)
                                if not a.is_buffer and a.type.is_float() and a.type.bits == 16}
        self._free_slots: list[BufferSlots] = []  # one per call running at a time

    def _slots(self) -> BufferSlots:
        buffers = [self.arguments[i] for i in self._buffer_positions]
        return BufferSlots([a.dimensions for a in buffers],
                           [a.name in self.strided for a in buffers])

    def call_fast(self, values, halves_as_bits: bool = False) -> int | None:
        """Run on the argument values in order, as __call__, when every buffer is a numpy
        array (taken as hl.Buffer(array) takes it: x is its last axis) or an hl.Buffer (an
        object with data() and mins()) that compiled code can use in place, and every scalar
        a Python int, float or bool: the error code. None, having run nothing, for anything
        else (a copy to make, a numpy scalar, a wrong kind): then call __call__ (hl.Buffers)
        or report the mistake. A float16 scalar is a float, or its bits where
        `halves_as_bits` (as __call__ takes it)."""
        free = self._free_slots
        slots = free.pop() if free else self._slots()
        try:
            args = list(values)
            seen, pointers = slots.seen, slots.pointers
            for k, i in self._buffer_slots:
                v = args[i]
                if type(v) is np.ndarray:
                    s = seen[k]  # the same array as last time: the slot describes it already
                    if (s is None or s[0]() is not v or s[1] != v.shape or s[2] != v.strides
                            or s[3] is not v.dtype or s[4]) and not slots.fill(k, v, True):
                        return None
                elif not (hasattr(v, "mins") and not getattr(v, "_bounds_query", False)
                          and slots.fill(k, v.data(), False, tuple(v.mins()))):
                    return None
                args[i] = pointers[k]
            for i in self._scalar_positions:
                if type(args[i]) not in _PYTHON_SCALARS:
                    return None
                if i in self._half_positions and not halves_as_bits:
                    args[i] = int(np.float16(args[i]).view(np.uint16))
            return self._run(args)
        finally:
            self._free_slots.append(slots)

    def _run(self, args) -> int:
        follow_hl_num_threads()
        rt.begin_call()
        if self.gpu is None:
            start = time.perf_counter()
            code = self.function(*args)
            self.last_call_seconds = time.perf_counter() - start
            return code
        rt.current_gpu.runtime = self.gpu
        start = time.perf_counter()
        try:
            return self.function(*args)
        finally:
            self.last_call_seconds = time.perf_counter() - start
            rt.current_gpu.runtime = None

    def __call__(self, values) -> int:
        """Run on hl.Buffers and Python numbers in order: the error code."""
        code = self.call_fast(values, halves_as_bits=True)
        if code is not None:
            return code
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
        code = self._run(args)
        if code == 0:
            for hb in outputs:  # outputs that were not dense were computed in a copy
                hb.copy_back()
        return code
