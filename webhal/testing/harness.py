"""Run a generator on every runtime a user has and compare each result with the reference
evaluator: what `webhal test`, the `webhal_run` fixture and `webhal demo` share.

A case is one runtime and one compiled target. The runtimes:
- host: the host JIT (LLVM in this process), CPU schedule;
- wgpu: the host JIT with kernels on wgpu-py (targets with webgpu);
- wasmtime: the wasm object in wasmtime, GPU calls answered by wgpu-py;
- node: the npm package in Node (webgpu variants on dawn.node);
- browser: the npm package in headless Chromium;
- firefox: the npm package in headless Firefox (webgpu variants on its own WebGPU).
"""

from __future__ import annotations

import inspect
import os
import re
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from webhal.errors import HalideError, ToolchainError
from webhal.lang.generator import InputBuffer, InputScalar
from webhal.target import Target, fuses_multiply_adds

RUNTIMES = ("host", "wgpu", "wasmtime", "node", "browser", "firefox")
DEFAULT_TARGETS = ("wasm-32-wasmrt-wasm_simd128-wasm_threads", "wasm-32-wasmrt-wasm_simd128",
                   "wasm-32-wasmrt", "wasm-32-wasmrt-webgpu")
DEFAULT_SIZE = (64, 48)  # x, y of random inputs; a third dimension gets 3 (colour channels)


@dataclass(frozen=True)
class Case:
    """One runtime and one target; `variant` is the package variant it is (node, browser) or
    stands for (the others)."""

    runtime: str
    target: str
    variant: str

    @property
    def id(self) -> str:
        return f"{self.runtime}-{self.variant}"


@dataclass
class Outcome:
    """How a case went: `ok` when it ran and matched; `message` says why not."""

    case: Case
    ok: bool
    message: str = ""
    max_error: float | None = None
    times_ms: list[float] = field(default_factory=list)
    adapter: str = ""
    seconds: float = 0.0
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    console: list[str] = field(default_factory=list)  # the page's or Node's, where one ran

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None


def plan(runtimes: Sequence[str] = RUNTIMES,
         targets: Sequence[str] = DEFAULT_TARGETS) -> list[Case]:
    """The cases for `runtimes` x `targets`, in a fixed order (sharding relies on it)."""
    from webhal.glue.npm_package import variant_name
    from webhal.target import Target

    unknown = [r for r in runtimes if r not in RUNTIMES]
    if unknown:
        raise HalideError(f"unknown runtime {unknown[0]!r}; webhal runs on {', '.join(RUNTIMES)}")
    parsed = [Target(t) for t in targets]
    cpu = [t for t in parsed if not t.has_gpu_feature()]
    gpu = [t for t in parsed if t.has_feature("webgpu")]
    cases = []
    for runtime in runtimes:
        if runtime == "host" and cpu:
            cases.append(Case("host", "host", "cpu"))
        elif runtime == "wgpu" and gpu:
            cases.append(Case("wgpu", "host-webgpu", "webgpu"))
        elif runtime in ("wasmtime", "node", "browser", "firefox"):
            cases += [Case(runtime, str(t), variant_name(t)) for t in parsed]
    return cases


def shard(cases: Sequence[Case], spec: str) -> list[Case]:
    """The I-th of N slices of `cases` for `spec` "I/N" (1-based, as Playwright's --shard)."""
    index, _, count = spec.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if not 1 <= i <= n:
        raise HalideError(f"--shard {spec}: give I/N with 1 <= I <= N, as --shard 2/4")
    return list(cases[i - 1::n])


def missing_runtime(runtime: str, target: str) -> ToolchainError | None:
    """Why `runtime` cannot run `target` on this machine (the tool's error), or None."""
    from webhal.toolchain import (
        find_chromium,
        find_dawn_node,
        find_emscripten,
        find_node,
        find_playwright,
        find_wasm_ld,
        find_wasmtime,
        find_wgpu_native,
    )
    from webhal.toolchain.hosts import find_firefox, find_puppeteer

    gpu = "webgpu" in target.split("-")
    probes = {"host": [], "wgpu": [find_wgpu_native],
              "wasmtime": [find_wasmtime, find_wasm_ld] + ([find_wgpu_native] if gpu else []),
              "node": [find_emscripten, find_node] + ([find_dawn_node] if gpu else []),
              "browser": [find_emscripten, find_chromium, find_playwright],
              "firefox": [find_emscripten, find_node, find_firefox, find_puppeteer]}[runtime]
    for probe in probes:
        try:
            probe()
        except ToolchainError as exc:
            return exc
    return None


class Subject:
    """A generator under test: its inputs (declared by its `test_inputs()`, else random and as
    large as the outputs need), the shapes of its outputs (its `test_output_shapes()`, else
    `size`), the reference outputs, and its package once built.

    Shapes and arrays are in numpy order (a planar colour image is (3, height, width))."""

    def __init__(self, generator, params: Mapping[str, str] | None = None, *,
                 inputs: Mapping[str, object] | None = None,
                 output_shapes: Mapping[str, Sequence[int]] | None = None,
                 seed: int = 0, size: Sequence[int] = DEFAULT_SIZE,
                 tolerance: float | None = None, cache: str | None = ""):
        from webhal.build import load_generators
        from webhal.lang.generator import Generator

        if isinstance(generator, type) and issubclass(generator, Generator):
            self.cls, self.path = generator, inspect.getfile(generator)
        else:
            path, _, name = str(generator).rpartition(":")
            found = load_generators(path)
            if name not in found:
                raise HalideError(f"{path} has no generator {name!r}; it has "
                                  f"{', '.join(sorted(found))}")
            self.cls, self.path = found[name], path
        self.name = self.cls.name()
        self.params = {k: str(v) for k, v in (params or {}).items()}
        self.cache = cache
        self._size = tuple(size)
        probe = self.cls(**self.params)
        if inputs is None and hasattr(probe, "test_inputs"):
            inputs = probe.test_inputs()
        if output_shapes is None and hasattr(probe, "test_output_shapes"):
            output_shapes = probe.test_output_shapes()
        self.output_shapes = None if output_shapes is None else \
            {k: tuple(v) for k, v in output_shapes.items()}
        self.inputs = dict(inputs) if inputs is not None else None
        if self.inputs is None or self.output_shapes is None:
            self._size_from_bounds_query(seed)
        self.tolerance = tolerance if tolerance is not None else \
            getattr(probe, "test_tolerance", None)
        self._reference = None
        self._packages: dict[tuple[str, ...], str] = {}

    def _size_from_bounds_query(self, seed: int) -> None:
        """Output shapes and random inputs where the generator declares none, as Halide's
        infer_input_bounds finds them: outputs of `size` (x, y, then 3, then 2s) unless their
        dim() constraints say otherwise (an interleaved `dim(0) == 3`), inputs as large as the
        outputs read, scalars at 1 (0.5 for floats)."""
        from webhal.lang.bounds_query import infer_regions
        from webhal.lower import gather_inputs

        buffers = {n: d for n, d in self.cls.arguments() if isinstance(d, InputBuffer)}
        scalars = {n: _scalar(d.type) for n, d in self.cls.arguments()
                   if isinstance(d, InputScalar)}
        given = self.inputs or {}
        values = {**scalars, **{n: None for n in buffers}, **given}
        pipeline = self.pipeline("host", values=values)
        images, _ = gather_inputs(pipeline.functions())
        outputs = {f.name(): [(0, e) for e in (
            self.output_shapes[f.name()][::-1] if self.output_shapes else
            _extents(self._size, f.dimensions(), f.function().output_constraints))]
            for f in pipeline.outputs()}
        assumed = {n: [(0, e) for e in _extents(self._size, d.dimensions,
                                                 getattr(images.get(n), "_constraints", {}))]
                   for n, d in buffers.items()}
        try:
            outs, ins = infer_regions([f.function() for f in pipeline.outputs()],
                                      pipeline.functions(), Target("host"), outputs, None,
                                      assumed)
        except HalideError as e:
            raise HalideError(f"webhal test cannot size generator {self.name}'s buffers: "
                              f"{e.message}"
                              f"\nto fix: {self._hook_for(str(e), pipeline)}") from None
        if self.output_shapes is None:
            for name, region in outs.items():
                if any(lo != 0 for lo, _ in region):
                    raise HalideError(
                        f"generator {self.name} writes output {name} from "
                        f"{[lo for lo, _ in region]} (x first), not from 0 (a dim() min "
                        "constraint): webhal test makes outputs from 0, so such an output is "
                        "not supported by webhal test yet")
            self.output_shapes = {n: tuple(e for _, e in r)[::-1] for n, r in outs.items()}
        if self.inputs is not None:
            return
        rng = np.random.default_rng(seed)
        self.inputs = dict(scalars)
        for name, decl in buffers.items():
            region = ins.get(name, assumed[name])
            if any(lo < 0 for lo, _ in region):
                raise HalideError(f"generator {self.name} reads input {name} at "
                                  f"{[lo for lo, _ in region]} (x first), before 0: give it "
                                  "test_inputs(), or read through a boundary condition")
            self.inputs[name] = _random(rng, decl.type, tuple(lo + e for lo, e in region)[::-1])

    def _hook_for(self, error: str, pipeline) -> str:
        """The generator method that gives webhal test what the bounds query could not find:
        test_output_shapes() where the error is about an output, else test_inputs()."""
        outputs = [f.name() for f in pipeline.outputs()]
        if any(re.search(rf"\b{re.escape(o)}\.", error) for o in outputs):
            return ("declare the output shapes: def test_output_shapes(self): return "
                    f"{{{outputs[0]!r}: (...)}} (numpy order: the last dimension is x)")
        return ("declare the inputs: def test_inputs(self): return {name: numpy array or "
                "scalar} (arrays in numpy order)")

    def pipeline(self, target: str, values: Mapping[str, object] | None = None):
        """The generator's Pipeline for `target`, its inputs set to `values` (default: the
        subject's inputs; None leaves one unset)."""
        import webhal as hl
        from webhal.lang.generator import GeneratorContext

        values = self.inputs if values is None else values
        with GeneratorContext(hl.Target(target)):
            g = self.cls(**self.params)
            pipeline = g.build_pipeline()
            for p in g.inputs():
                value = values[p.name()]
                if value is not None:
                    p.set(hl.Buffer(np.ascontiguousarray(value))
                          if isinstance(value, np.ndarray) else value)
        return pipeline

    def realize(self, target: str, samples: int = 0) -> tuple[dict, list[float]]:
        """Outputs on `target` (reference, host..., wasm...) and the times of `samples` calls."""
        import webhal as hl

        pipeline = self.pipeline(target)
        buffers = [hl.Buffer(f.type(), list(self.output_shapes[f.name()])[::-1])
                   for f in pipeline.outputs()]
        pipeline.realize(buffers, hl.Target(target))
        times = []
        if samples and target != "reference":
            from webhal.jit import compile_jit

            compiled, _ = compile_jit(pipeline, hl.Target(target))
            for _ in range(samples):
                pipeline.realize(buffers, hl.Target(target))
                times.append(compiled.last_call_seconds * 1000)
        return {f.name(): np.asarray(b).copy() for f, b in zip(pipeline.outputs(), buffers)}, \
            times

    def schedules_gpu(self) -> bool:
        """Whether the generator puts any loop on the GPU for a webgpu target."""
        from webhal.ir.schedule import ForType

        pipeline = self.pipeline("host-webgpu")
        return any(d.for_type in (ForType.GPUBlock, ForType.GPUThread)
                   for fn in pipeline.functions() for definition in fn.definitions
                   for d in definition.schedule.dims)

    def reference(self) -> dict[str, np.ndarray]:
        if self._reference is None:
            self._reference = self.realize("reference")[0]
        return self._reference

    def package(self, targets: Sequence[str], directory: str) -> str:
        """The npm package of the generator for `targets`, built once into `directory`."""
        from webhal import build

        key = tuple(targets)
        if key not in self._packages:
            build.build(self.path, self.name, directory, list(targets), params=self.params,
                        quiet=True, cache=self.cache)
            self._packages[key] = directory
        return self._packages[key]

    def compare(self, outputs: Mapping[str, np.ndarray],
                fused: bool = False) -> tuple[bool, float, str]:
        """(matches, largest difference, what differs) of `outputs` against the reference:
        integers exactly unless a tolerance is set, floats within it (default 1e-4 relative).
        `fused`: the outputs come from code that fuses float multiply-adds (target.
        fuses_multiply_adds), where an integer computed in floats may round to its neighbour,
        so integers may be one off."""
        worst, problems = 0.0, []
        for name, want in self.reference().items():
            got = outputs.get(name)
            if got is None or got.shape != want.shape:
                problems.append(f"{name}: shape {None if got is None else got.shape}, "
                                f"expected {want.shape}")
                continue
            g, w = got.astype(np.float64), want.astype(np.float64)
            # NaN where the reference has NaN matches; NaN anywhere else is infinitely off.
            diff = np.where(np.isnan(g) & np.isnan(w), 0.0, np.abs(g - w))
            diff = np.where(np.isnan(diff), np.inf, diff)
            error = float(diff.max()) if diff.size else 0.0
            worst = max(worst, error)
            limit = self.tolerance
            if limit is None:
                limit = float(fused) if want.dtype.kind in "biu" else \
                    1e-4 * max(1.0, float(np.nanmax(np.abs(want))) if want.size else 1.0)
            if error > limit:
                bad = int(np.count_nonzero(diff > limit))
                at = np.unravel_index(int(np.argmax(diff)), diff.shape)
                problems.append(f"{name}: {bad} of {diff.size} values differ by more than "
                                f"{limit:g} (at {tuple(int(i) for i in at)[::-1]} (x first): "
                                f"{got[at]} vs {want[at]})")
        return not problems, worst, "; ".join(problems)


def _extents(size: Sequence[int], dimensions: int, constraints: Mapping = {}) -> list[int]:
    """x, y from `size`, then 3 (colour channels), then 2s, in Halide's order, over the
    dimensions whose extent no dim() constraint sets (those get 1 here: the bounds query puts
    the constraint's value in)."""
    free = iter([*size, 3, *[2] * dimensions])
    return [1 if ("extent", d) in constraints else next(free) for d in range(dimensions)]


def _random(rng, t, shape) -> np.ndarray:
    if t.is_bool():
        return rng.integers(0, 2, shape).astype(bool)
    dtype = np.dtype(str(t))
    if t.is_float():
        return rng.random(shape, dtype=np.float64).astype(dtype)
    info = np.iinfo(dtype)
    # 32-bit values stay small, so that sums and products in a pipeline do not overflow.
    lo, hi = (max(info.min, -1000), min(info.max, 1000)) if t.bits >= 32 else (info.min, info.max)
    return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


def _scalar(t):
    if t.is_bool():
        return True
    return 0.5 if t.is_float() else 1


def run_case(subject: Subject, case: Case, *, package_targets: Sequence[str] = (),
             package_dir: str | None = None, samples: int = 3,
             min_batch_ms: float = 10) -> Outcome:
    """Run one case and compare it with the reference; errors become a failed Outcome."""
    start = time.perf_counter()
    why = missing_runtime(case.runtime, case.target)
    if why is not None:
        return Outcome(case, False, f"{case.runtime} is not available: {why}",
                       seconds=time.perf_counter() - start)
    adapter, console = "", []
    try:
        if case.runtime in ("node", "browser", "firefox"):
            directory = subject.package(package_targets or [case.target], package_dir)
            if case.runtime == "node":
                from webhal.runners.node import run_package
                run = run_package(directory, subject.inputs, subject.output_shapes,
                                  variant=case.variant, samples=samples,
                                  min_batch_ms=min_batch_ms)
            else:
                from webhal.runners.browser import shared_runner
                from webhal.runners.firefox import shared_firefox_runner
                runner = shared_firefox_runner() if case.runtime == "firefox" else shared_runner()
                run = runner.run_package(directory, subject.inputs, subject.output_shapes,
                                         variant=case.variant, samples=samples,
                                         min_batch_ms=min_batch_ms)
            outputs, times, adapter = run.outputs, run.times_ms, run.adapter_name
            console = run.console
        else:
            outputs, times = subject.realize(case.target, samples)
            if "webgpu" in case.target:
                from webhal.runtime.webgpu import adapter_name
                adapter = adapter_name()
            else:
                adapter = "cpu"
    except HalideError as exc:
        return Outcome(case, False, str(exc), adapter=adapter,
                       seconds=time.perf_counter() - start, console=getattr(exc, "console", []))
    ok, error, message = subject.compare(outputs, fuses_multiply_adds(Target(case.target)))
    return Outcome(case, ok, message, error, times, adapter, time.perf_counter() - start, outputs,
                   console)


def run_cases(subject: Subject, cases: Sequence[Case], work_dir: str, *,
              samples: int = 3, progress=None) -> list[Outcome]:
    """Every case in order; node and the browsers share one package of all their targets."""
    package_targets = list(dict.fromkeys(c.target for c in cases
                                         if c.runtime in ("node", "browser", "firefox")))
    package_dir = os.path.join(work_dir, subject.name)
    outcomes = []
    for case in cases:
        if progress:
            progress(case)
        outcomes.append(run_case(subject, case, package_targets=package_targets,
                                 package_dir=package_dir, samples=samples))
    return outcomes
