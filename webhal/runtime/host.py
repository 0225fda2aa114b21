"""The runtime functions the host JIT resolves to Python: error reporting (the message becomes
the raised exception) and halide_do_par_for on real threads (ctypes releases the GIL while a
task runs)."""

from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from webhal.errors import HalideError
from webhal.runtime import errors

_state = threading.local()
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_in_worker = threading.local()



def take_error():
    """The (message, exception class) of the last runtime error on this thread, once."""
    e = getattr(_state, "error", None)
    _state.error = None
    return e


def _report(name: str, args) -> int:
    if getattr(_state, "error", None) is None:
        _state.error = errors.message(name, args)
    return errors.CODES.get(name, -1)


def _cstr(p) -> str:
    return ctypes.string_at(p).decode(errors="replace") if p else "?"


def num_threads() -> int:
    """The threads a parallel loop runs on: Halide's HL_NUM_THREADS, else one per core."""
    text = os.environ.get("HL_NUM_THREADS", "").strip()
    if not text:
        return os.cpu_count() or 1
    if not text.isdigit() or int(text) < 1:
        raise HalideError(f"HL_NUM_THREADS={text!r} is not a positive whole number of threads; "
                          "set it to e.g. 1 or 4, or unset it for one thread per core")
    return int(text)


def _pool_for(workers: int) -> ThreadPoolExecutor:
    """The pool of helper threads, grown (never shrunk) to at least `workers` threads."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < workers:
            old, _pool = _pool, ThreadPoolExecutor(
                max_workers=workers, thread_name_prefix="webhal-par-for",
                initializer=lambda: setattr(_in_worker, "on", True))
            if old is not None:
                old.shutdown(wait=False)
        return _pool


# Runs tasks [min, min + size) natively (webhal_run_tasks in the JIT's runtime module); set
# by the host runner once the module is compiled.
run_tasks = None
RUN_TASKS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                             ctypes.c_int, ctypes.c_void_p)


def _do_par_for(uc, task_ptr, lo, extent, closure) -> int:
    """Split the tasks into one contiguous chunk per thread; the calling thread runs the first
    chunk and helper threads the others, each with one native call (ctypes lets go of the GIL
    meanwhile). Nested parallel loops run serially inside their task."""
    try:
        threads = num_threads()
    except HalideError as exc:
        if getattr(_state, "error", None) is None:
            _state.error = (str(exc), HalideError)
        return -1
    if extent <= 1 or threads == 1 or getattr(_in_worker, "on", False):
        return run_tasks(uc, task_ptr, lo, extent, closure)
    chunks = min(threads, extent)
    bounds = [lo + extent * k // chunks for k in range(chunks + 1)]
    pool = _pool_for(chunks - 1)
    helpers = [pool.submit(run_tasks, uc, task_ptr, bounds[k], bounds[k + 1] - bounds[k],
                           closure) for k in range(1, chunks)]
    _in_worker.on = True  # a parallel loop inside the first chunk stays on this thread
    try:
        first = run_tasks(uc, task_ptr, bounds[0], bounds[1] - bounds[0], closure)
    finally:
        _in_worker.on = False
    return first or next((c for c in (h.result() for h in helpers) if c), 0)


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
            _state.error = ("a GPU call reached a pipeline without a WebGPU runtime",
                            HalideError)
            return -1
        try:
            code = getattr(rt, method)(*args)
        except Exception as e:  # a device error must not unwind through JIT frames
            _state.error = (f"WebGPU: {e}", HalideError)
            return -23
        if code and rt.error and getattr(_state, "error", None) is None:
            _state.error = rt.error
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
    "halide_do_par_for": ctypes.CFUNCTYPE(ctypes.c_int, _P, _P, ctypes.c_int, ctypes.c_int,
                                          _P)(_do_par_for),
}
