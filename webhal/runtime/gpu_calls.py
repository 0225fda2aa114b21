"""The `webhal_gpu_*` calls of compiled code, answered by a WebGPURuntime: one dispatcher for
the host JIT's callbacks and wasmtime's imports. A failure never unwinds into compiled code: it
is reported and the call returns the code abi.GPU_CALLS names for it."""

from __future__ import annotations

from collections.abc import Callable

from webhal import abi
from webhal.errors import HalideError

# The WebGPURuntime method answering each call (arguments after user_context, in order).
METHODS = {"webhal_gpu_buffer": "buffer", "webhal_gpu_host_dirty": "host_dirty",
           "webhal_gpu_copy_to_host": "copy_to_host", "webhal_gpu_run": "run_packed"}

Report = Callable[[tuple[str, type[HalideError]]], None]


def call(runtime, name: str, args, report: Report) -> int:
    """Run GPU call `name` on `runtime` (None when the pipeline has none); `report` receives
    the (message, exception class) of a failure."""
    if runtime is None:
        report(("a GPU call reached a pipeline without a GPU runtime", HalideError))
        return abi.ERROR_CODES["internal_error"]
    try:
        code = getattr(runtime, METHODS[name])(*args)
    except Exception as e:  # a device error must not unwind through JIT or wasm frames
        report((f"{getattr(runtime, 'API', 'GPU')}: {e}", HalideError))
        return abi.ERROR_CODES[abi.GPU_CALLS[name].fails_with]
    if code:
        error, runtime.error = runtime.error, None
        report(error or (f"{name} failed (error code {code})", HalideError))
    return code
