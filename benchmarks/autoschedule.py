"""Autoschedules against hand schedules: `python -m benchmarks.autoschedule`.

Every suite pipeline is built four ways and run on wasm SIMD in Node through the suite's C
harness (benchmarks/harness.c, as `python -m benchmarks.run` does): webhal with its hand
schedule, webhal autoscheduled (webhal's own search), and Halide's Mullapudi2016 and Adams2019
autoschedulers (the plugins PyPI halide ships, loaded by path) compiled by Halide for the same
target. The algorithms come from benchmarks/suite.py with its scheduling directives turned
into no-ops (`algorithm_only`). Also printed: the time autoscheduling each demo takes.

Ratios are per round, side by side in one run; the spread is the range over rounds.
"""

from __future__ import annotations

import time
import types
from pathlib import Path

import numpy as np

SCHEDULING = ("split", "parallel", "vectorize", "compute_at", "store_at", "compute_root",
              "tile", "reorder", "unroll", "gpu_tile", "gpu_blocks", "gpu_threads", "fuse",
              "compute_inline", "store_root", "bound")


def algorithm_only(module, autoschedule=None):
    """`module` (webhal or halide) whose Funcs ignore scheduling directives, so a suite
    builder gives its algorithm alone. With `autoschedule(pipeline, built_args)`, an output
    compiled with compile_to_static_library is first autoscheduled by it."""

    class Func(module.Func):
        def compile_to_static_library(self, prefix, args, name, target):
            p = module.Pipeline(self)
            if autoschedule is not None:
                autoschedule(module, p, self, args, target)
            return p.compile_to_static_library(prefix, args, name, target)

    for name in SCHEDULING:
        setattr(Func, name, lambda self, *a, **k: self)
    proxy = types.ModuleType(f"{module.__name__}_algorithm_only")
    proxy.__dict__.update({k: getattr(module, k) for k in dir(module) if not k.startswith("__")})
    proxy.Func = Func
    proxy.__file__ = module.__file__
    return proxy


def set_estimates(module, output, args, inputs: list[np.ndarray], output_shape) -> None:
    """The suite's sizes as estimates: the output's shape and each input's."""
    output.set_estimates([(0, e) for e in reversed(output_shape)])
    images = [a for a in args if isinstance(a, module.ImageParam)]
    for image, array in zip(images, inputs):
        image.set_estimates([(0, e) for e in reversed(array.shape)])
    for a in args:
        if isinstance(a, module.Param) and hasattr(a, "set_estimate"):
            pass


def _halide_plugin(name: str) -> str:
    import halide
    lib = Path(halide.__file__).parent / "lib64"
    if not lib.exists():
        lib = Path(halide.__file__).parent / "lib"
    return str(next(lib.glob(f"libautoschedule_{name.lower()}.*")))


def autoscheduler(name: str, spec, params: dict | None = None):
    """An `autoschedule` callback for algorithm_only: estimates from `spec`, then `name`."""
    timings: dict[str, float] = {}

    def run(module, pipeline, output, args, target):
        if module.__name__.startswith("halide"):
            module.load_plugin(_halide_plugin(name))
        set_estimates(module, output, args, spec.inputs(), spec.output_shape)
        start = time.perf_counter()
        pipeline.apply_autoscheduler(module.Target(str(target)) if isinstance(target, str)
                                     else target,
                                     module.AutoschedulerParams(name, params or {}))
        timings[spec.name] = time.perf_counter() - start

    run.timings = timings
    return run


# -- demos ---------------------------------------------------------------------------------------

DEMOS = ("blur", "unsharp", "sobel", "histogram_equalization", "bilateral_grid",
         "local_laplacian")


def demo_pipeline(name: str, target: str, size: tuple[int, int]):
    """Demo `name`'s generator built for `target` with its schedule removed, estimates of an
    image of `size` (width, height) set; returns (pipeline, generator)."""
    import importlib.util

    import webhal as hl
    root = Path(__file__).resolve().parent.parent / "demos" / name / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_demo_{name}", root)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with hl.GeneratorContext(hl.Target(target)):
        g = hl.create_generator(name)
        p = g.build_pipeline()
        inputs = g.inputs()
    clear_schedules(p)
    w, h = size
    demo = mod.DEMO
    margin = demo.get("margin", 0)
    for f in p.outputs():
        extra = [(0, 3)] if f.dimensions() == 3 else []
        f.set_estimates([(0, w - margin), (0, h - margin)] + extra)
    for a in inputs:
        if isinstance(a, hl.ImageParam):
            extra = [(0, 3)] if a.dimensions() == 3 else []
            a.set_estimates([(0, w), (0, h)] + extra)
        else:
            a.set_estimate(demo.get("scalars", {}).get(a.name(), {}).get("default", 1.0))
    return p, g, mod


def clear_schedules(pipeline) -> None:
    """Remove every schedule of the pipeline's Funcs (a demo's generator schedules as it
    defines): each Func back to inline, each stage's loops back to its definition's."""
    from webhal.ir.schedule import Dim, FuncSchedule, StageSchedule
    for fn in pipeline.functions():
        fn.schedule = FuncSchedule(estimates=list(getattr(fn.schedule, "estimates", [])))
        for i, d in enumerate(fn.definitions):
            dims = []
            if i and d.rdom is not None:
                dims = [Dim(d.rdom.var_name(k), is_rvar=True) for k in range(len(d.rdom.mins))]
            dims += [Dim(n) for k, n in enumerate(fn.pure_args)
                     if i == 0 or getattr(d.args[k], "name", None) == n]
            d.schedule = StageSchedule(dims)
            d.specializations = []
            d.specialize_fail = None
