"""The runtime functions the host JIT resolves to Python: error reporting (the message becomes
the raised exception) and the WebGPU calls. (halide_do_par_for is native: the thread pool in
webhal/codegen/llvm/thread_pool.py.)"""

from __future__ import annotations

import ctypes
import os
import threading

from webhal.errors import HalideError, user_location
from webhal.runtime import errors

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


def _report(name: str, args) -> int:
    _store(errors.message(name, args))
    return errors.CODES.get(name, -1)


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


_S = ctypes.c_char_p
_I = ctypes.c_int32
_P = ctypes.c_void_p


def _error_callback(name: str, argtypes, strings: tuple[int, ...]):
    proto = ctypes.CFUNCTYPE(ctypes.c_int32, _P, *argtypes)

    def fn(uc, *args):
        args = [_cstr(a) if i in strings else a for i, a in enumerate(args)]
        return _report(name, args)
    return proto(fn)


# The WebGPU runtime of the pipeline running on this thread (set around each call).
current_gpu = threading.local()


def _gpu(method: str, proto):
    def fn(uc, *args):
        rt = getattr(current_gpu, "runtime", None)
        if rt is None:
            _store(("a GPU call reached a pipeline without a WebGPU runtime", HalideError))
            return -1
        try:
            code = getattr(rt, method)(*args)
        except Exception as e:  # a device error must not unwind through JIT frames
            _store((f"WebGPU: {e}", HalideError))
            return -23
        if code and rt.error:
            _store(rt.error)
        return code
    return proto(fn)


def _gpu_run(rt, kernel, gx, gy, gz, args, nbytes):
    return rt.run(kernel, gx, gy, gz, ctypes.string_at(args, nbytes) if nbytes else b"")


CALLBACKS = {
    "webhal_gpu_buffer": _gpu("buffer", ctypes.CFUNCTYPE(ctypes.c_int32, _P, _I, _P, _I, _I)),
    "webhal_gpu_host_dirty": _gpu("host_dirty", ctypes.CFUNCTYPE(ctypes.c_int32, _P, _I)),
    "webhal_gpu_copy_to_host": _gpu("copy_to_host", ctypes.CFUNCTYPE(ctypes.c_int32, _P, _I)),
    "webhal_gpu_run": _gpu("run_packed", ctypes.CFUNCTYPE(ctypes.c_int32, _P, _I, _I, _I, _I,
                                                          _P, _I)),
    "halide_error_access_out_of_bounds": _error_callback(
        "halide_error_access_out_of_bounds", [_P, _I, _I, _I, _I, _I], (0,)),
    "halide_error_bad_type": _error_callback("halide_error_bad_type", [_P, ctypes.c_uint32,
                                                                        ctypes.c_uint32], (0,)),
    "halide_error_bad_dimensions": _error_callback("halide_error_bad_dimensions",
                                                   [_P, _I, _I], (0,)),
    "halide_error_constraint_violated": _error_callback(
        "halide_error_constraint_violated", [_P, _I, _P, _I], (0, 2)),
    "halide_error_buffer_argument_is_null": _error_callback(
        "halide_error_buffer_argument_is_null", [_P], (0,)),
    "halide_error_host_is_null": _error_callback("halide_error_host_is_null", [_P], (0,)),
    "halide_error_out_of_memory": _error_callback("halide_error_out_of_memory", [], ()),
    "halide_error_explicit_bounds_too_small": _error_callback(
        "halide_error_explicit_bounds_too_small", [_P, _P, _I, _I, _I, _I], (0, 1)),
}
