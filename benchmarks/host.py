"""The host side: webhal's JIT (target "host") against Halide's JIT
(get_jit_target_from_environment()), and numpy, on the same inputs.

webhal's entry point is timed once more on the wasm run's resources ("call_matched"): one
thread (HL_NUM_THREADS=1; the wasm harness runs on one) and 128-bit vectors (x86 limited to
SSE4.1, as wasm's v128), so that wasm SIMD over host measures code quality rather than cores and
register width.

Two numbers per JIT, both into one preallocated output buffer:
- "realize": `func.realize(output, target)`, the public API, with whatever each library does per
  call before its code runs (webhal: schedule checks, the JIT cache's fingerprint of the
  definitions, binding the arguments).
- "call": the compiled entry point alone: Halide's `compile_to_callable`, and for webhal the
  object its JIT cache holds (webhal.jit.compile_jit, an internal API: it wraps the buffers as
  halide_buffer_t and calls the machine code).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from types import ModuleType

import numpy as np

import webhal
from benchmarks.measure import Measurement, Settings, checksum, time_calls
from benchmarks.suite import Spec


def _bind(spec: Spec, hl: ModuleType, arrays: list[np.ndarray]):
    built = spec.build(hl)
    values, inputs = [], iter(arrays)
    for arg in built.args:
        if isinstance(arg, hl.ImageParam):
            buffer = hl.Buffer(next(inputs))
            arg.set(buffer)
            values.append(buffer)
        else:
            value = built.params[arg.name()]
            arg.set(value)
            values.append(value)
    width_first = list(reversed(spec.output_shape))
    output = hl.Buffer(built.output.type(), width_first)
    return built, values, output


def _jit_target(hl: ModuleType):
    return webhal.Target("host") if hl is webhal else hl.get_jit_target_from_environment()


def _entry_point(hl: ModuleType, built, values, output, target):
    """A no-argument function calling the compiled pipeline directly."""
    if hl is webhal:
        import inspect

        from webhal.jit import argument_values, compile_jit
        pipeline = webhal.Pipeline(built.output)
        compiled, lowered = compile_jit(pipeline, target)
        # An internal API whose first parameter has been the lowering, later the Pipeline.
        first = next(iter(inspect.signature(argument_values).parameters))
        args = argument_values(lowered if first == "lowered" else pipeline, [output], None)

        def call():
            code = compiled(args)
            if code != 0:
                raise webhal.HalideError(f"the compiled pipeline returned {code}")
        return call
    callable_ = hl.Pipeline(built.output).compile_to_callable(built.args, target)
    args = [*values, output]
    return lambda: callable_(*args)


def measure_jit(spec: Spec, impl: str, hl: ModuleType, arrays: list[np.ndarray],
                settings: Settings) -> list[Measurement]:
    """[realize, call] for one implementation; failures become Measurements with an error."""
    results = []
    try:
        built, values, output = _bind(spec, hl, arrays)
        target = _jit_target(hl)
        built.output.realize(output, target)  # compiles; not timed
        result = np.array(np.asarray(output))
        check = checksum(result)
        total = float(result.astype(np.float64).sum())
        realize = time_calls(lambda: built.output.realize(output, target), settings)
        results.append(Measurement(spec.name, "host", impl, "realize", True, **realize,
                                   checksum=check, sum=total,
                                   details={"jit_target": str(target)}))
        call = _entry_point(hl, built, values, output, target)
        call()
        after = np.array(np.asarray(output))
        results.append(Measurement(spec.name, "host", impl, "call", True,
                                   **time_calls(call, settings), checksum=checksum(after),
                                   sum=float(after.astype(np.float64).sum()),
                                   details={"jit_target": str(target)}))
    except Exception as exc:  # noqa: BLE001 - any failure is a result to report
        text = str(exc).strip().splitlines()
        error = f"{type(exc).__name__}: {text[0] if text else ''}"
        for mode in ("realize", "call")[len(results):]:
            results.append(Measurement(spec.name, "host", impl, mode, False, error=error))
    return results


def matched_target() -> webhal.Target:
    """The host at wasm SIMD's vector width: x86 limited to SSE4.1 (128-bit registers); other
    architectures (NEON's registers are 128-bit already) as they are."""
    host_target = webhal.Target("host")
    if host_target.arch == "x86":
        return webhal.Target(f"x86-64-{host_target.os}-sse41")
    return host_target


@contextmanager
def _one_thread():
    previous = os.environ.get("HL_NUM_THREADS")
    os.environ["HL_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["HL_NUM_THREADS"]
        else:
            os.environ["HL_NUM_THREADS"] = previous


def measure_matched(spec: Spec, arrays: list[np.ndarray], settings: Settings) -> Measurement:
    """webhal's compiled entry point on one thread at 128-bit vector width."""
    target = matched_target()
    try:
        built, values, output = _bind(spec, webhal, arrays)
        with _one_thread():
            call = _entry_point(webhal, built, values, output, target)
            call()
            result = np.array(np.asarray(output))
            timed = time_calls(call, settings)
        return Measurement(spec.name, "host", "webhal", "call_matched", True, **timed,
                           checksum=checksum(result),
                           sum=float(result.astype(np.float64).sum()),
                           details={"jit_target": str(target), "threads": 1})
    except Exception as exc:  # noqa: BLE001 - any failure is a result to report
        text = str(exc).strip().splitlines()
        return Measurement(spec.name, "host", "webhal", "call_matched", False,
                           error=f"{type(exc).__name__}: {text[0] if text else ''}")


def measure_numpy(spec: Spec, arrays: list[np.ndarray], params: dict[str, float],
                  settings: Settings) -> Measurement:
    if spec.numpy_impl is None:
        return Measurement(spec.name, "host", "numpy", "numpy", False, error="no numpy version")
    result = spec.numpy_impl(*arrays, **params)
    timed = time_calls(lambda: spec.numpy_impl(*arrays, **params), settings)
    return Measurement(spec.name, "host", "numpy", "numpy", True, **timed,
                       checksum=checksum(result.astype(spec.output_dtype)),
                       sum=float(result.astype(np.float64).sum()))
