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

import argparse
import math
import sys
import time
import types
from pathlib import Path

import numpy as np

from webhal.autoschedule.generators import clear_schedules, set_image_estimates

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


def set_estimates(module, output, args, inputs: list[np.ndarray], output_shape,
                  params: dict | None = None) -> None:
    """The suite's sizes as estimates: the output's shape and each input's; the scalar
    Params' values (Halide's Adams2019 wants them)."""
    output.set_estimates([(0, e) for e in reversed(output_shape)])
    images = [a for a in args if isinstance(a, module.ImageParam)]
    for image, array in zip(images, inputs):
        image.set_estimates([(0, e) for e in reversed(array.shape)])
    for a in args:
        if isinstance(a, module.Param) and params and a.name() in params:
            a.set_estimate(params[a.name()])


def _halide_plugin(name: str) -> str:
    import halide
    lib = Path(halide.__file__).parent / "lib64"
    if not lib.exists():
        lib = Path(halide.__file__).parent / "lib"
    return str(next(lib.glob(f"libautoschedule_{name.lower()}.*")))


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
    demo = mod.DEMO
    scalars = {k: v.get("default", 1.0) for k, v in demo.get("scalars", {}).items()}
    set_image_estimates(p, inputs, size, demo.get("margin", 0), scalars)
    return p, g, mod


# -- the benchmark -------------------------------------------------------------------------------

def implementations(spec_by_name: dict, with_halide: bool = True, tune: int = 0) -> dict:
    """impl name -> the module its builds use (see algorithm_only). With `tune`, also
    "webhal-tuned": webhal's autoscheduler with tune=N (measured in wasmtime, cached)."""
    import webhal

    def auto(name, params=None):
        def run(module, pipeline, output, args, target):
            spec = spec_by_name[output_name_to_spec[output.name().split("$")[0]]]
            if module.__name__.startswith("halide"):
                module.load_plugin(_halide_plugin(name))
            set_estimates(module, output, args, spec.inputs(), spec.output_shape, spec.params)
            start = time.perf_counter()
            pipeline.apply_autoscheduler(module.Target(str(target)),
                                         module.AutoschedulerParams(name, params or {}))
            AUTOSCHEDULE_SECONDS[(module.__name__, name + ("-tuned" if params else ""),
                                  spec.name, str(target))] = \
                time.perf_counter() - start
        return run

    output_name_to_spec = {}
    for name, spec in spec_by_name.items():
        output_name_to_spec[spec.build(algorithm_only(webhal)).output.name()] = name
    impls = {"webhal": webhal, "webhal-auto": algorithm_only(webhal, auto("Webhal"))}
    if tune:
        impls["webhal-tuned"] = algorithm_only(webhal, auto("Webhal", {"tune": tune}))
    if with_halide:
        import halide
        impls["halide-Mullapudi2016"] = algorithm_only(halide, auto("Mullapudi2016"))
        impls["halide-Adams2019"] = algorithm_only(halide, auto("Adams2019"))
    return impls


AUTOSCHEDULE_SECONDS: dict = {}


def _ratios(m, hand) -> tuple[float, float, float] | None:
    if not (m.ok and hand.ok and m.round_medians_ms and hand.round_medians_ms):
        return None
    r = [a / b for a, b in zip(m.round_medians_ms, hand.round_medians_ms)]
    return min(r), sorted(r)[len(r) // 2], max(r)


def main(argv: list[str] | None = None) -> int:
    from benchmarks import suite
    from benchmarks.measure import FULL, QUICK, SIMD, TARGET_LABELS, THREADS
    from benchmarks.wasm import build_all, run_all_in_node

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short round")
    parser.add_argument("--pipelines", help="comma list (default: the whole suite)")
    parser.add_argument("--targets", default="simd,threads",
                        help="comma list of simd, threads (default: both)")
    parser.add_argument("--no-halide", action="store_true", help="webhal only")
    parser.add_argument("--no-demos", action="store_true", help="skip demo timings")
    parser.add_argument("--tune", type=int, default=0, metavar="N",
                        help="also webhal-tuned: the autoscheduler with tune=N")
    args = parser.parse_args(argv)
    names = args.pipelines.split(",") if args.pipelines else list(suite.SUITE)
    targets = [{"simd": SIMD, "threads": THREADS}[t] for t in args.targets.split(",")]
    specs = [suite.SUITE[n] for n in names]
    settings = QUICK if args.quick else FULL
    impls = implementations({s.name: s for s in specs}, not args.no_halide, args.tune)
    inputs = {s.name: s.inputs() for s in specs}
    builds = build_all(specs, inputs, impls, targets, rebuild=True)
    measured = run_all_in_node([b for b in builds], settings)
    load = max((v for m in measured for v in m.load), default=None)
    print(f"\nwasm in Node, {settings.rounds} round(s), load average up to {load}")
    print(f"{'pipeline':15} {'target':18} {'impl':22} {'median ms':>10} "
          f"{'/ hand (min med max)':>24}  same")
    geo: dict[tuple[str, str], list[float]] = {}
    for target in targets:
        for spec in specs:
            rows = [m for m in measured if m.pipeline == spec.name and m.target == target]
            hand = next(m for m in rows if m.impl == "webhal")
            for m in rows:
                r = _ratios(m, hand)
                same = "" if not m.ok else ("yes" if m.checksum == hand.checksum else "DIFFERS")
                ms = f"{m.median_ms:.3f}" if m.ok else "failed"
                ratio = "" if r is None else f"{r[0]:.2f} {r[1]:.2f} {r[2]:.2f}"
                print(f"{spec.name:15} {TARGET_LABELS[target]:18} {m.impl:22} {ms:>10} "
                      f"{ratio:>24}  {same}"
                      + ("" if m.ok else f"  {m.error.splitlines()[0][:80]}"))
                if r is not None:
                    geo.setdefault((TARGET_LABELS[target], m.impl), []).append(r[1])
    for (label, impl), values in geo.items():
        g = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"geometric mean {label} {impl} / hand: {g:.2f} over {len(values)} pipelines, "
              f"worst {max(values):.2f}")
    for (module, name, pipeline, target), seconds in sorted(AUTOSCHEDULE_SECONDS.items()):
        print(f"autoschedule time {module} {name} {pipeline} {target}: {seconds:.3f} s")
    if not args.no_demos:
        import webhal as hl
        for demo in DEMOS:
            for target in (SIMD, "wasm-32-wasmrt-webgpu"):
                p, _, _ = demo_pipeline(demo, target, (512, 512))
                start = time.perf_counter()
                p.apply_autoscheduler(hl.Target(target), hl.AutoschedulerParams("Webhal"))
                print(f"autoschedule time demo {demo} {target}: "
                      f"{time.perf_counter() - start:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
