"""The runtime functions the host JIT resolves to Python: error reporting (the message becomes
the raised exception) and the WebGPU calls. (halide_do_par_for is native: the thread pool in
webhal/codegen/llvm/thread_pool.py.)"""

from __future__ import annotations

import ctypes
import os
import sys
import threading

from webhal import abi
from webhal.errors import HalideError, user_location
from webhal.runtime import gpu_calls
from webhal.runtime.buffers import CTYPES

_state = threading.local()
# An error reported on a thread pool worker: the pool runs one job at a time, so it belongs to
# the one pipeline call whose tasks are on the workers, which takes it when its call fails.
_worker_error: list = []
_worker_error_lock = threading.Lock()


def begin_call() -> None:
    """Mark this thread as the one running a pipeline call, with no error yet."""
    _state.error = None
    _state.calling = True


def take_error():
    """The (message, exception class) of the last runtime error of this thread's call, once."""
    e = getattr(_state, "error", None)
    _state.error = None
    _state.calling = False
    with _worker_error_lock:  # taken either way, so that no later call finds it
        from_worker = _worker_error.pop() if _worker_error else None
    return e if e is not None else from_worker


def _store(error) -> None:
    if getattr(_state, "calling", False):
        if getattr(_state, "error", None) is None:
            _state.error = error
        return
    with _worker_error_lock:
        if not _worker_error:
            _worker_error.append(error)


def _cstr(p) -> str:
    return ctypes.string_at(p).decode(errors="replace") if p else "?"


def check_num_threads() -> None:
    """A HalideError if Halide's HL_NUM_THREADS is set but not a positive whole number (the
    native pool reads it with atoi, which would take such a value as unset)."""
    text = os.environ.get("HL_NUM_THREADS", "").strip()
    if text and (not text.isdigit() or int(text) < 1):
        raise HalideError(f"HL_NUM_THREADS={text!r} is not a positive whole number of threads; "
                          "set it to e.g. 1 or 4, or unset it for one thread per core",
                          user_location())


def _prototype(params):
    """The ctypes function type of a runtime function: int f(void *uc, params...)."""
    return ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p,
                            *(ctypes.c_void_p if kind == "string" else CTYPES[kind]
                              for _, kind in params))


def _error_callback(name: str):
    strings = abi.string_parameters(name)

    def fn(uc, *args):
        args = [_cstr(a) if i in strings else a for i, a in enumerate(args)]
        _store(abi.error_message(name, args))
        return abi.error_code(name)
    return _prototype(abi.ERROR_FUNCTIONS[name])(fn)


# The WebGPU runtime of the pipeline running on this thread (set around each call).
current_gpu = threading.local()


def _gpu_callback(name: str):
    def fn(uc, *args):
        return gpu_calls.call(getattr(current_gpu, "runtime", None), name, args, _store)
    return _prototype(abi.GPU_CALLS[name].params)(fn)


def _print(uc, kinds, values) -> int:
    """webhal_print: one line on sys.stdout (where Halide's Python bindings print too)."""
    spec = _cstr(kinds)
    words = (ctypes.c_uint64 * max(1, len(spec))).from_address(values) if spec else []
    line = abi.format_print(spec, abi.print_values(spec, list(words), _cstr))
    sys.stdout.write(line + "\n")
    return 0


def _requirement(uc, condition, kinds, values) -> int:
    """webhal_error_requirement_failed: the message becomes the call's HalideError."""
    spec = _cstr(kinds)
    words = (ctypes.c_uint64 * max(1, len(spec))).from_address(values) if spec else []
    message = abi.format_print(spec, abi.print_values(spec, list(words), _cstr))
    _store((abi.requirement_message(_cstr(condition), message), HalideError))
    return abi.error_code(abi.REQUIREMENT_FUNCTION)


_REQUIREMENT = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_void_p)(_requirement)
_PRINT = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p,
                          ctypes.c_void_p)(_print)

def _profiler_callback(name: str):
    """A webhal_profiler_* call answered by the process's Profiler (strings read as C's)."""
    from webhal.runtime.profiler import PROFILER
    method = getattr(PROFILER, name.removeprefix("webhal_profiler_"))
    strings = [i for i, (_, kind) in enumerate(abi.PROFILER_FUNCTIONS[name]) if kind == "string"]

    def fn(uc, *args):
        return method(*(_cstr(a) if i in strings else a for i, a in enumerate(args)))
    return _prototype(abi.PROFILER_FUNCTIONS[name])(fn)


CALLBACKS = {abi.PRINT_FUNCTION: _PRINT, abi.REQUIREMENT_FUNCTION: _REQUIREMENT,
             **{name: _profiler_callback(name) for name in abi.PROFILER_FUNCTIONS},
**{name: _gpu_callback(name) for name in abi.GPU_CALLS},
             **{name: _error_callback(name) for name in abi.ERROR_FUNCTIONS}}
