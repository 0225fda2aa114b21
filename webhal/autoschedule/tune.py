"""Measured tuning: the autoscheduler's `tune=N` parameter.

The cost model ranks schedules; it does not know every machine. With tune=N, the first N of
the model's candidates (its pick first, then the variants search.alternatives gives) are each
applied, compiled and run on the target's real runtime (wasmtime for wasm, wgpu-py for WebGPU,
the host JIT for host) on inputs of the estimated sizes, and the fastest is kept. The choice is
cached in a folder, keyed by a digest of the pipeline, the target, the sizes and the
parameters, so a rebuild does not measure again, and a build with the cache is deterministic:

    $WEBHAL_AUTOSCHEDULE_CACHE (or $HL_AUTOSCHEDULE_CACHE), else $WEBHAL_CACHE_DIR/autoschedule,
    else $XDG_CACHE_HOME/webhal/autoschedule, else ~/.cache/webhal/autoschedule.

Timings are noisy: a candidate replaces the model's pick only when its median is at least
MARGIN faster.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from webhal.errors import CompileError, HalideError, SourceLocation

MARGIN = 0.03            # a candidate must beat the model's pick by 3% to replace it
# Rounds of timing (each candidate once a round, ROUND_S of calls), until BUDGET_S a
# candidate is spent, at least MIN_ROUNDS.
MIN_ROUNDS, MAX_ROUNDS, ROUND_S, BUDGET_S = 5, 25, 0.02, 0.4
CACHE_VERSION = 1

# Candidates measured in this process (tests read it: a cached choice measures nothing).
measured_count = 0


def cache_dir() -> Path:
    """Where tuned choices are kept (see the module's docstring)."""
    for var in ("WEBHAL_AUTOSCHEDULE_CACHE", "HL_AUTOSCHEDULE_CACHE"):
        if os.environ.get(var):
            return Path(os.environ[var])
    base = os.environ.get("WEBHAL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "webhal")
    return Path(base) / "autoschedule"


def tune_count(extra: dict, where: SourceLocation | None) -> int:
    """The tune=N parameter: 0 (no tuning) when absent; a named error unless a count >= 1."""
    if "tune" not in extra:
        return 0
    try:
        n = int(extra["tune"])
    except ValueError:
        n = 0
    if n < 1:
        raise CompileError(f"autoscheduler parameter tune={extra['tune']!r}: give the number of "
                           "candidate schedules to measure, 1 or more (tune=4)", where)
    return n


def _estimate_text(e) -> str:
    return "?" if e is None else str(getattr(e, "value", e))


def digest(pipeline, target, out_regions: list, images: dict, params: dict,
           extra: dict) -> str:
    """sha256 of what a tuned choice depends on: the pipeline's definitions (jit's
    fingerprint of them), the target, the output and input sizes, the Params' estimates and
    the autoscheduler's parameters."""
    from webhal.jit import definitions_fingerprint
    parts = [f"v{CACHE_VERSION}", str(target), *definitions_fingerprint(pipeline)]
    parts.append(f"outputs {out_regions}")
    for name, image in images.items():
        est = image.estimates() if hasattr(image, "estimates") else \
            list(zip(image.mins(), image.shape()))
        parts.append(f"image {name} " + ",".join(
            "?" if e is None else f"{_estimate_text(e[0])}:{_estimate_text(e[1])}"
            for e in est))
    for name, p in params.items():
        if hasattr(p, "estimate"):
            parts.append(f"param {name} {_estimate_text(p.estimate())} {p.get()}")
    parts.append(f"params {sorted(extra.items())}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def plan_key(plan) -> str:
    """A short digest of a candidate plan (its directives), to know a cached choice again."""
    return hashlib.sha256(repr(plan).encode()).hexdigest()[:16]


# -- running candidates --------------------------------------------------------------------------

class _Schedules:
    """The pipeline's unscheduled state, put back before each candidate and at the end."""

    def __init__(self, functions):
        self.saved = [(fn, fn.schedule, [d.schedule for d in fn.definitions])
                      for fn in functions]

    def restore(self) -> None:
        for fn, fs, stages in self.saved:
            fn.schedule = dataclasses.replace(
                fs, compute_level=copy.copy(fs.compute_level),
                store_level=copy.copy(fs.store_level), bounds=dict(fs.bounds),
                estimates=list(fs.estimates), trace=set(fs.trace), wrappers=dict(fs.wrappers),
                storage_order=None if fs.storage_order is None else list(fs.storage_order))
            for d, s in zip(fn.definitions, stages):
                d.schedule = copy.deepcopy(s)


def _dtype(t) -> np.dtype:
    if t.is_float():
        return np.dtype(f"float{t.bits}")
    if t.bits == 1:
        return np.dtype(bool)
    return np.dtype(f"{'u' if t.is_uint() else ''}int{t.bits}")


def _synthetic(image, where) -> object:
    """A Buffer of the image's estimated region, filled with reproducible values: pixels
    spread over the type's range (floats in [0, 1), as images are)."""
    from webhal.autoschedule.regions import constant
    from webhal.lang.buffer import Buffer
    region = [(constant(lo, f"estimate of {image.name()}", where) if lo is not None else 0,
               constant(ext, f"estimate of {image.name()}", where))
              for lo, ext in image.estimates()]
    dtype = _dtype(image.type())
    shape = tuple(ext for _, ext in reversed(region))
    rng = np.random.default_rng(0)
    if dtype.kind == "f":
        data = rng.random(shape).astype(dtype)
    elif dtype.kind == "b":
        data = rng.integers(0, 2, shape).astype(bool)
    else:
        info = np.iinfo(dtype)
        data = rng.integers(max(info.min, -(1 << 15)), min(info.max, 1 << 16), shape,
                            endpoint=True).astype(dtype)
    buf = Buffer(np.ascontiguousarray(data))
    if any(lo for lo, _ in region):
        buf.set_min(*(lo for lo, _ in region))
    return buf


class _Inputs:
    """Inputs bound for the measurements: an ImageParam's own Buffer where it has one, else
    a synthetic one of its estimated size; a Param at its estimate where given. Put back
    as they were afterwards."""

    def __init__(self, images: dict, params: dict, where):
        self.images = [(im, im.get()) for im in images.values() if hasattr(im, "set")]
        self.params = [(p, p.get()) for p in params.values() if hasattr(p, "estimate")]
        for im, had in self.images:
            if had is None:
                im.set(_synthetic(im, where))
        for p, _ in self.params:
            e = p.estimate()
            if e is not None:
                p.set(e.value)

    def restore(self) -> None:
        for im, had in self.images:
            if had is None:
                im.reset()
            else:
                im.set(had)
        for p, value in self.params:
            p.set(value)


def _prepared(pipeline, sizes, target):
    """A call of the pipeline compiled as scheduled now, on its bound inputs into outputs of
    `sizes` (as realize makes them): the compiled code is kept, so candidates can run in turn
    after the Funcs' schedules have moved on, and the timing leaves out realize's own work."""
    from webhal.jit import argument_values, call, compile_jit
    definitions = pipeline._validated()
    buffers = pipeline._enlarged(pipeline._output_buffers(sizes, None), target, None,
                                 definitions)
    compiled, _ = compile_jit(pipeline, target, definitions=definitions)
    values = argument_values(pipeline, buffers, None)
    return lambda: call(compiled, values, None)


def _measure(runs: list) -> list[float | None]:
    """Median ms per call of each prepared call (None: not runnable), in interleaved rounds
    (each candidate once per round, so a drift of the machine's load or clock is shared)."""
    global measured_count
    per_call: list[float | None] = []
    reps: list[int] = []
    for run in runs:  # warm-up: first calls grow memory and fill caches
        if run is None:
            reps.append(0)
            continue
        measured_count += 1
        run()
        t0 = time.perf_counter()
        run()
        first = time.perf_counter() - t0
        reps.append(max(1, int(ROUND_S / max(first, 1e-6))))
    samples: list[list[float]] = [[] for _ in runs]
    start = time.perf_counter()
    live = [i for i, r in enumerate(runs) if r is not None]
    while live and (len(samples[live[0]]) < MIN_ROUNDS or (
            len(samples[live[0]]) < MAX_ROUNDS and
            time.perf_counter() - start < BUDGET_S * len(live))):
        for i in live:
            t0 = time.perf_counter()
            for _ in range(reps[i]):
                runs[i]()
            samples[i].append((time.perf_counter() - t0) * 1e3 / reps[i])
    for i, run in enumerate(runs):
        per_call.append(statistics.median(samples[i]) if run is not None else None)
    return per_call


def tune(candidates: list, functions, outputs, images: dict, params: dict, target,
         out_regions: list, extra: dict, where: SourceLocation | None) -> tuple[int, dict]:
    """Index of the fastest of `candidates` ((plan, decision) pairs, the model's pick first)
    and a note of what was done: from the cache when it holds this pipeline's choice among
    the same candidates, else measured and stored."""
    from rich.console import Console
    from rich.progress import Progress

    from webhal.autoschedule.plan import apply
    from webhal.lang.func import Func
    from webhal.lang.pipeline import Pipeline

    pipeline = Pipeline([Func._of(o) for o in outputs])
    key = digest(pipeline, target, out_regions, images, params, extra)
    keys = [plan_key(plan) for plan, _ in candidates]
    path = cache_dir() / f"{key}.json"
    if path.exists():
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            entry = {}
        if entry.get("candidates") == keys:
            return int(entry["chosen"]), {"cached": str(path), **entry}
    schedules = _Schedules(functions)
    inputs = _Inputs(images, params, where)
    sizes = [ext for _, ext in out_regions[0]]
    runs: list = []
    errors: list[str] = []
    try:
        with Progress(console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task(f"tuning {outputs[0].name} for {target}: compiling",
                                     total=len(candidates) + 1)
            for plan, _ in candidates:
                schedules.restore()
                apply(plan, {fn.name: Func._of(fn) for fn in functions})
                try:
                    run = _prepared(Pipeline([Func._of(o) for o in outputs]), sizes, target)
                    run()  # compiled and run once: a failure at run time is found here
                    runs.append(run)
                    errors.append("")
                except HalideError as e:  # a variant the target refuses: not a choice
                    runs.append(None)
                    errors.append(str(e).splitlines()[0][:200])
                progress.advance(task)
            progress.update(task, description=f"tuning {outputs[0].name} for {target}: "
                            "timing")
            times = _measure(runs)
            progress.advance(task)
    finally:
        schedules.restore()
        inputs.restore()
    if times[0] is None:
        raise CompileError(f"Autoscheduler tuning: the model's schedule failed on {target}: "
                           f"{errors[0]}", where)
    best = min((i for i, t in enumerate(times) if t is not None), key=lambda i: times[i])
    chosen = best if times[best] < times[0] * (1 - MARGIN) else 0
    entry = {"digest": key, "target": str(target), "candidates": keys, "chosen": chosen,
             "times_ms": times, "errors": errors,
             "knobs": [dict(d.knobs) for _, d in candidates]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(entry, indent=1, default=str))
        tmp.replace(path)
    except OSError as e:
        entry["cache_error"] = f"not cached: {e}"
    return chosen, {"measured": len(candidates), **entry}
