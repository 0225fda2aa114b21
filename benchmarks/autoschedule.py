"""Autoschedules against hand schedules: `python -m benchmarks.autoschedule`.

Every suite pipeline is built four ways and run on wasm SIMD in Node through the suite's C
harness (benchmarks/harness.c, as `python -m benchmarks.run` does): webhal with its hand
schedule, webhal autoscheduled (webhal's own search), and Halide's Mullapudi2016 and Adams2019
autoschedulers (the plugins PyPI halide ships, loaded by path) compiled by Halide for the same
target. The algorithms come from benchmarks/suite.py with its scheduling directives turned
into no-ops (`algorithm_only`). The six demos join the table as pipelines demo_NAME
(demo_specs): the demo's generator with its hand CPU schedule, the same generator with its
schedule removed (clear_schedules) then autoscheduled by webhal, and the same algorithm
defined over Halide the way benchmarks/halide_webgpu.py defines it for Li2018 (the demo's
source run with every scheduling directive a no-op) then autoscheduled by Halide's plugins;
inputs are the demo's photograph tiled to the suite's 1536x1024, scalars at their defaults.
Also printed: the time autoscheduling each demo takes.

Ratios are per round, side by side in one run; the spread is the range over rounds. The wasm
rounds are interleaved: in each round every (pipeline, target) runs its implementations one
after another (in the opposite order the next round, so a drift of the machine's load falls on
both sides), each in its own Node process, after waiting until the machine is quiet (the cores
that other work keeps busy, read from /proc/stat, under --max-busy). The figure quoted is the
median of the per-round ratios; the geometric mean is also given per round, and its spread.

`--webgpu --li2018` compares webhal's WebGPU autoschedule with Halide's Li2018 compiled by
Halide for wasm WebGPU: both (and webhal's hand schedule) in one Node process on dawn.node,
each sample a batch of k calls followed by one wait for the side's queue, rounds in turn and
reversed every other round, the median of per-round ratios quoted with quartiles
(benchmarks/halide_webgpu.py says exactly how).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
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
    proxy.benchmark_autoschedule = autoschedule  # the demos' builds (demo_specs) call it themselves
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
        if not isinstance(a, module.ImageParam) and params and a.name() in params:
            a.set_estimate(params[a.name()])


def halide_plugin(name: str) -> str:
    """The path of PyPI Halide's autoscheduler plugin `name` (Mullapudi2016, Adams2019, Li2018)."""
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


# -- the demos as wasm benchmark pipelines ---------------------------------------------------

DEMO_PREFIX = "demo_"


class _DemoOutput:
    """A demo's output as build_all uses a suite Func: its name, and compile_to_static_library
    of the whole generator pipeline (autoscheduled first by `autoschedule`, if given)."""

    def __init__(self, pipeline, output, module, autoschedule, spec):
        self.pipeline, self.output, self.module = pipeline, output, module
        self.autoschedule, self.spec = autoschedule, spec

    def name(self) -> str:
        return self.output.name()

    def compile_to_static_library(self, prefix, args, name, target):
        if self.autoschedule is not None:
            self.autoschedule(self.module, self.pipeline, self.output, args, target, self.spec)
        return self.pipeline.compile_to_static_library(prefix, args, name, target)


def _build_demo(name: str, spec, hl):
    """Demo `name`'s generator as a suite Built for implementation module `hl`: webhal itself
    gives the demo's hand CPU schedule; algorithm_only(webhal, ...) its pipeline with the
    schedule removed (clear_schedules) and autoscheduled at compile time; algorithm_only(halide,
    ...) the same algorithm defined over Halide (halide_webgpu's path: the demo's source run
    with every scheduling directive a no-op), autoscheduled by Halide's plugin."""
    from benchmarks.measure import SIMD
    auto = getattr(hl, "benchmark_autoschedule", None)
    if hl.__name__.startswith("halide"):
        import halide

        from benchmarks.halide_webgpu import _halide_generator, _NoSchedules
        with halide.GeneratorContext(halide.Target(SIMD)), _NoSchedules():
            g = _halide_generator(name)()
            pipeline = g._build_pipeline()
        args = [getattr(g, i.name) for i in g._get_arginfos()
                if not str(i.dir).endswith("Output")]
        module = halide
    else:
        import webhal
        from webhal import demo_page
        with webhal.GeneratorContext(webhal.Target(SIMD)):
            g = demo_page.load(name).generator()()
            pipeline = g.build_pipeline()
            args = list(g.inputs())
        if auto is not None:
            clear_schedules(pipeline)
        module = webhal
    output = pipeline.outputs()[0]
    from benchmarks.suite import Built
    return Built(_DemoOutput(pipeline, output, module, auto, spec), args, dict(spec.params))


def demo_specs(names=DEMOS, size: tuple[int, int] | None = None) -> list:
    """The demos as suite Specs (benchmarks.suite.Spec), named demo_NAME: an input of the
    demo's photograph tiled to `size` (width, height; default the suite's, 1536x1024), the
    scalars at their defaults, the output `margin` pixels smaller. With another size the name
    says it (demo_NAME_WxH), so its builds sit apart."""
    import functools

    from benchmarks import suite
    from webhal import demo_page
    w, h = size or (suite.WIDTH, suite.HEIGHT)
    specs = []
    for name in names:
        d = demo_page.load(name)
        rgb = d.layout == "rgb"
        image = suite.rgb_planar_u8 if rgb else suite.gray_u8
        shape = ((3,) if rgb else ()) + (h - d.margin, w - d.margin)
        label = DEMO_PREFIX + name + ("" if size is None else f"_{w}x{h}")
        spec = suite.Spec(label, f"the {name} demo's generator", None,
                          functools.partial(lambda f: [f(h, w)], image), shape, "uint8",
                          params={k: v["default"] for k, v in d.scalars.items()})
        object.__setattr__(spec, "build", functools.partial(_build_demo, name, spec))
        specs.append(spec)
    return specs


def demo_sources() -> list[Path]:
    """What the demos' builds depend on besides suite.py, wasm.py and the compilers (a change
    rebuilds): the demos' sources and halide_webgpu.py. Not this file, as for the suite's
    pipelines: an edit here that changes what is built wants a build without --reuse."""
    here = Path(__file__).resolve().parent
    return [here / "halide_webgpu.py", *(here.parent / "demos" / n / f"{n}.py" for n in DEMOS)]


# -- WebGPU: the demos' hand GPU schedules against their autoschedules ----------------------

GPU_TARGET = "wasm-32-wasmrt-wasm_simd128-webgpu"
GPU_BUILD = Path(__file__).resolve().parent / "build" / "autoschedule_gpu"

# The runner (copied to GPU_BUILD/run.mjs, beside the builds it times, so that a --build-only
# folder runs elsewhere as it is).
GPU_RUNNER = Path(__file__).resolve().parent / "autoschedule_gpu.mjs"


def build_gpu(demos: list[str], size: int) -> dict[str, dict]:
    """Each demo's webgpu variant twice into GPU_BUILD/NAME/: hand/ (its own GPU schedule)
    and auto/ (webhal's autoschedule for `size`^2); writes run.mjs beside them. Returns
    per demo the seconds autoscheduling took."""
    from webhal import build, demo_page
    from webhal.autoschedule.generators import AutoscheduledGenerator
    from webhal.glue.npm_package import build_package
    GPU_BUILD.mkdir(parents=True, exist_ok=True)
    (GPU_BUILD / "package.json").write_text('{"type": "module"}\n')
    shutil.copy(GPU_RUNNER, GPU_BUILD / "run.mjs")
    seconds = {}
    for name in demos:
        demo = demo_page.load(name)
        build.build(demo.path, name, str(GPU_BUILD / name / "hand"), [GPU_TARGET], quiet=True)
        make = AutoscheduledGenerator(demo.generator(), (size, size), demo.margin,
                                      {k: v["default"] for k, v in demo.scalars.items()})
        build_package(make, [GPU_TARGET], str(GPU_BUILD / name / "auto"), generator=name,
                      generator_params={"autoscheduler": make.name})
        seconds[name] = make.seconds[GPU_TARGET]
        print(f"built {name}: autoscheduling took {seconds[name]:.2f} s", flush=True)
    return seconds


def run_gpu(demos: list[str], size: int, rounds: int, icd: str | None,
            round_ms: float = 50.0) -> dict:
    """run.mjs in Node on dawn.node (with Vulkan ICD `icd`, e.g. SwiftShader's or lavapipe's),
    rounds of about `round_ms`; the JSON it prints."""
    import json
    import os

    from webhal.runners.node import run_node
    env = dict(os.environ)
    if icd:
        env["VK_ICD_FILENAMES"] = env["VK_DRIVER_FILES"] = icd
    env["ROUND_MS"] = str(round_ms)
    from webhal import demo_page
    about = {}
    for name in demos:
        d = demo_page.load(name)
        about[name] = [3 if d.layout == "rgb" else 0,
                       {k: v["default"] for k, v in d.scalars.items()}, d.margin]
    args = [str(GPU_BUILD), str(size), str(rounds), json.dumps(about)]
    done = run_node(str(GPU_BUILD / "run.mjs"), args, dawn=True, env=env, timeout_s=1800)
    sys.stderr.write(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_wgpu(demos: list[str], size: int, rounds: int) -> list[dict]:
    """Each demo realized from Python through wgpu-py (lavapipe here: dawn.node refuses it)
    for target host-webgpu, hand GPU schedule against autoschedule, in interleaved rounds;
    arrays in and out (uploads and readbacks included in both)."""
    import os

    import webhal as hl
    from webhal import demo_page
    from webhal.toolchain import private_runtime_dir
    from webhal.toolchain.webgpu import find_lavapipe_icd
    os.environ["VK_ICD_FILENAMES"] = os.environ["VK_DRIVER_FILES"] = find_lavapipe_icd().path
    os.environ.setdefault("XDG_RUNTIME_DIR", private_runtime_dir())
    target = hl.Target("host-webgpu")
    rows = []
    for name in demos:
        demo = demo_page.load(name)
        rng = np.random.default_rng(0)
        shape = (3, size, size) if demo.layout == "rgb" else (size, size)
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        out = [size - demo.margin, size - demo.margin] + ([3] if len(shape) == 3 else [])
        sides = {}
        with hl.GeneratorContext(target):
            g = demo.generator()()
            sides["hand"] = (g.build_pipeline(), g.inputs())
        auto, gen, _ = demo_pipeline(name, str(target), (size, size))
        auto.apply_autoscheduler(target, hl.AutoschedulerParams("Webhal"))
        sides["auto"] = (auto, gen.inputs())
        results, times = {}, {"hand": [], "auto": []}
        for kind, (pipeline, inputs) in sides.items():
            for a in inputs:
                if isinstance(a, hl.ImageParam):
                    a.set(hl.Buffer(image))
                else:
                    a.set(demo.scalars.get(a.name(), {}).get("default", a.get()))
            results[kind] = np.asarray(pipeline.realize(out, target)).astype(np.int32)
            pipeline.realize(out, target)
        for r in range(rounds):  # in turn, first one side then the other
            for kind in (("hand", "auto") if r % 2 == 0 else ("auto", "hand")):
                pipeline = sides[kind][0]
                t0 = time.perf_counter()
                for _ in range(3):
                    pipeline.realize(out, target)
                times[kind].append((time.perf_counter() - t0) * 1e3 / 3)
        ratios = [a / h for a, h in zip(times["auto"], times["hand"])]
        rows.append({"demo": name, "handMs": times["hand"], "autoMs": times["auto"],
                     "ratios": ratios,
                     "maxDiff": int(np.abs(results["hand"] - results["auto"]).max())})
        print(f"  {name}: auto/hand {statistics.median(ratios):.2f}", flush=True)
    return rows


def webgpu_main(args) -> int:
    from webhal.toolchain.webgpu import find_swiftshader_icd
    demos = args.demos.split(",") if args.demos else list(DEMOS)
    if not args.run_only:
        build_gpu(demos, args.size)
    if args.build_only:
        return 0
    for label in args.adapters.split(","):
        if not label:
            continue
        if label == "lavapipe":
            result = {"adapter": "lavapipe through wgpu-py, arrays in and out",
                      "demos": run_wgpu(demos, args.size, args.rounds)}
        else:
            result = run_gpu(demos, args.size, args.rounds, find_swiftshader_icd().path,
                             args.round_ms)
        for r in result["demos"]:
            if "error" in r:
                print(f"  {r['demo']:24} failed: {r['error'][:150]}")
        result["demos"] = [r for r in result["demos"] if "error" not in r]
        ratios = [statistics.median(r["ratios"]) for r in result["demos"]]
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
        print(f"WebGPU on {result['adapter']} ({label}), {args.size}^2, {args.rounds} rounds:")
        for r in result["demos"]:
            print(f"  {r['demo']:24} hand {statistics.median(r['handMs']):8.3f} ms  auto "
                  f"{statistics.median(r['autoMs']):8.3f} ms  auto/hand "
                  f"{statistics.median(r['ratios']):.2f} ({min(r['ratios']):.2f}-"
                  f"{max(r['ratios']):.2f})  max diff {r['maxDiff']}")
            if "beforeMs" in r:
                print(f"  {'':24} before {statistics.median(r['beforeMs']):8.3f} ms  "
                      f"before/hand {statistics.median(r['beforeRatios']):.2f} "
                      f"({min(r['beforeRatios']):.2f}-{max(r['beforeRatios']):.2f})  "
                      f"auto/before {statistics.median(r['afterBefore']):.2f} "
                      f"({min(r['afterBefore']):.2f}-{max(r['afterBefore']):.2f})")
        print(f"  geometric mean auto/hand {geo:.2f}, worst {max(ratios):.2f}")
    if args.li2018:
        li2018_main(demos, args)
    return 0


def li2018_main(demos: list[str], args) -> None:
    """Halide's Li2018 autoschedule of each demo compiled by Halide for wasm WebGPU, against
    webhal's autoschedule and hand schedule (their builds in GPU_BUILD), all three in one Node
    process on dawn.node (SwiftShader; benchmarks/README.md gives the runner's command line
    for another machine, such as the H200, with these builds carried), each with its own
    device of the same adapter, timed the same way (benchmarks/li2018_web/li2018.mjs): a
    sample is a batch of k calls through the side's public entry then one wait for its queue
    (onSubmittedWorkDone), k chosen per side so that a batch lasts about --round-ms; rounds
    run the three in turn, reversed every other round. Quoted: the median of the per-round
    ratios with their quartiles and range. `--adapters ''` runs this comparison alone."""
    from benchmarks import halide_webgpu
    from webhal import demo_page
    from webhal.toolchain.webgpu import find_swiftshader_icd
    icd = find_swiftshader_icd().path
    print(f"Halide Li2018 on WebGPU (wasm, Node, dawn.node on SwiftShader), {args.size}^2, "
          f"{args.rounds} rounds of one batch of about {args.round_ms:g} ms a side, the three "
          "sides in one process, in turn (ABC CBA); a batch is k calls then one wait for the "
          "queue, GPUBuffers/device-resident buffers in and out:")
    ratios = []
    for name in demos:
        d = demo_page.load(name)
        channels = 3 if d.layout == "rgb" else 0
        scalars = {k: v["default"] for k, v in d.scalars.items()}
        try:
            bench = halide_webgpu.BUILD / name / "bench.js"
            if not (args.run_only and bench.exists()):  # --run-only: the harness as built
                bench = halide_webgpu.build(name, args.size, channels, scalars, d.margin)
        except Exception as e:  # noqa: BLE001 - a demo Halide cannot build is reported
            print(f"  {name:24} Halide could not build it: {str(e).splitlines()[-1][:120]}")
            continue
        load = os.getloadavg()[0]
        got = halide_webgpu.run(bench.parent, GPU_BUILD / name, args.size, args.rounds,
                                args.round_ms, [channels, scalars, d.margin], icd)
        if "error" in got:
            print(f"  {name:24} failed: {got['error'][-200:]}")
            continue
        line = li2018_line(name, got, (load, os.getloadavg()[0]))
        print(line, flush=True)
        if "SUMS DIFFER" not in line:
            ratios.append(halide_webgpu.per_round(got)["median"])
    if ratios:
        print(f"  geometric mean Li2018 / webhal auto {geomean(ratios):.2f} over {len(ratios)} "
              f"demos (those whose outputs agree), least {min(ratios):.2f}")


def li2018_line(name: str, got: dict, load: tuple[float, float]) -> str:
    """One demo's line of li2018_main from the runner's JSON `got`."""
    from benchmarks import halide_webgpu
    sides = got["sides"]
    li, auto, cpu = (halide_webgpu.per_round(got, *args) for args in
                     (("li2018", "auto"), ("auto", "hand"), ("li2018", "auto", "cpuMs")))
    ms = {k: statistics.median(v["ms"]) for k, v in sides.items()}
    sums = {k: v["sum"] for k, v in sides.items()}
    same = len(set(sums.values())) == 1
    return (f"  {name:24} Li2018/auto {li['median']:.2f} (quartiles {li['q1']:.2f}-"
            f"{li['q3']:.2f}, range {li['min']:.2f}-{li['max']:.2f}), in CPU time "
            f"{cpu['median']:.2f} ({cpu['q1']:.2f}-{cpu['q3']:.2f}); ms a call Li2018 "
            f"{ms['li2018']:.3f}, auto {ms['auto']:.3f}, hand {ms['hand']:.3f}; auto/hand "
            f"{auto['median']:.2f} ({auto['q1']:.2f}-{auto['q3']:.2f}); k "
            f"{'/'.join(str(v['k']) for v in sides.values())}; load {load[0]:.1f}-{load[1]:.1f}; "
            + ("same sum" if same else f"SUMS DIFFER ({sums})"))


# -- the benchmark -------------------------------------------------------------------------------

def implementations(spec_by_name: dict, with_halide: bool = True, tune: int = 0) -> dict:
    """impl name -> the module its builds use (see algorithm_only). With `tune`, also
    "webhal-tuned": webhal's autoscheduler with tune=N (measured in wasmtime, cached)."""
    import webhal

    def auto(name, params=None):
        def run(module, pipeline, output, args, target, spec=None):
            if spec is None:
                spec = spec_by_name[output_name_to_spec[output.name().split("$")[0]]]
            if module.__name__.startswith("halide"):
                module.load_plugin(halide_plugin(name))
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
        if name.startswith(DEMO_PREFIX):  # their builds pass their spec (demo_specs)
            continue
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


# -- interleaved rounds on a quiet machine (benchmarks/interleave.py) ----------------------------

def run_interleaved(builds: list, settings, rounds: int, max_busy: float, timeout_s: float,
                    log=print) -> list:
    """Every build run `rounds` times in Node, interleaved (benchmarks.interleave): one
    Measurement per build whose round_medians_ms are its rounds' medians (the harness's median
    of its batches), load the load average after each run and details["busy"] the cores busy
    before each round."""
    from benchmarks.interleave import interleaved
    from benchmarks.wasm import _with_load, run_in_node
    per_round, busy = interleaved(builds, lambda b: (b.pipeline, b.target),
                                  lambda b: _with_load(run_in_node(b, settings)), rounds,
                                  max_busy, timeout_s, log)
    return _combined(per_round, busy)


def _combined(per_round: list[list], busy: list) -> list:
    from benchmarks.wasm import _combine
    combined = _combine(per_round)
    for m in combined:
        m.details["busy"] = busy
    return combined


def node_runs(builds: list, paths: str) -> tuple[list, int | None]:
    """Measurements of `builds` from files benchmarks/interleave.py wrote (run elsewhere on
    copies of the same build directories; `paths` comma-separated, their rounds joined in
    order, e.g. one file a round), and the cores of the machine that ran them."""
    from benchmarks.wasm import _failed, _parse
    data: dict = {"busy": [], "runs": {}}
    for path in paths.split(","):
        part = json.loads(Path(path).read_text())
        data["cores"] = part.get("cores")
        data["busy"] += part["busy"]
        for d, v in part["runs"].items():
            data["runs"].setdefault(d, []).extend(v)
    runs = {str(Path(d).parts[-2:]): v for d, v in data["runs"].items()}
    rounds = len(next(iter(runs.values())))
    per_round = []
    for r in range(rounds):
        found = []
        for b in builds:
            got = runs.get(str(Path(b.directory).parts[-2:]))
            m = _parse(b, "node", got[r]["lines"]) if got else None
            m = m or _failed(b, "node", (got[r]["stderr"] if got else "not run")[-300:])
            m.load = [got[r]["load"]] if got and got[r]["load"] is not None else []
            found.append(m)
        per_round.append(found)
    return _combined(per_round, data["busy"]), data.get("cores")


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def _ratios(m, hand) -> tuple[float, float, float] | None:
    if not (m.ok and hand.ok and m.round_medians_ms and hand.round_medians_ms):
        return None
    r = [a / b for a, b in zip(m.round_medians_ms, hand.round_medians_ms)]
    return min(r), sorted(r)[len(r) // 2], max(r)


def main(argv: list[str] | None = None) -> int:
    from benchmarks import suite
    from benchmarks.measure import FULL, QUICK, SIMD, TARGET_LABELS, THREADS
    from benchmarks.wasm import build_all

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short round")
    parser.add_argument("--pipelines",
                        help="comma list of suite pipelines and demos (demo_blur, ...); "
                             "'suite' and 'demos' stand for all of each (default: both)")
    parser.add_argument("--targets", default="simd,threads",
                        help="comma list of simd, threads (default: both)")
    parser.add_argument("--no-halide", action="store_true", help="webhal only")
    parser.add_argument("--no-demos", action="store_true", help="skip demo timings")
    parser.add_argument("--tune", type=int, default=0, metavar="N",
                        help="also webhal-tuned: the autoscheduler with tune=N")
    webgpu = parser.add_argument_group("--webgpu: the demos' hand GPU schedules against "
                                       "their autoschedules, in Node on dawn.node")
    webgpu.add_argument("--webgpu", action="store_true", help="run this instead of wasm")
    webgpu.add_argument("--demos", help="comma list (default: all six)")
    webgpu.add_argument("--size", type=int, default=1024, help="image side (default 1024)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds (default: wasm 5, 1 with --quick; --webgpu 7)")
    parser.add_argument("--max-busy", type=float, default=0.3, metavar="CORES",
                        help="before each wasm round, wait until at most this many cores are "
                             "busy with other work (default 0.3)")
    parser.add_argument("--quiet-timeout", type=float, default=60, metavar="S",
                        help="wait at most this long for a quiet machine (default 60 s)")
    parser.add_argument("--node-runs", metavar="FILE[,FILE...]",
                        help="print the table from runs benchmarks/interleave.py made elsewhere "
                             "of these builds (see --build-only), instead of measuring here")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse the wasm builds benchmarks/build holds where their inputs "
                             "are unchanged (default: rebuild)")
    webgpu.add_argument("--adapters", default="swiftshader,lavapipe",
                        help="swiftshader (dawn.node in Node, GPUBuffers in and out), "
                             "lavapipe (wgpu-py from Python, arrays in and out)")
    webgpu.add_argument("--li2018", action="store_true",
                        help="also Halide's Li2018 autoschedule compiled by Halide for wasm "
                             "WebGPU against webhal's, on SwiftShader, in one Node process "
                             "(benchmarks/halide_webgpu.py)")
    webgpu.add_argument("--round-ms", type=float, default=50.0,
                        help="--webgpu: milliseconds of calls per side and round (default 50)")
    webgpu.add_argument("--build-only", action="store_true",
                        help="build only, to carry elsewhere (--webgpu: "
                             "benchmarks/build/autoschedule_gpu; wasm: the harnesses, and the "
                             "command that measures them)")
    webgpu.add_argument("--run-only", action="store_true", help="use what is built")
    parser.add_argument("--pool-size", type=int, default=None, metavar="N",
                        help="wasm threads: workers each harness starts, fixed when it is "
                             "linked (default: this machine's cores; with --build-only, the "
                             "cores of the machine that will run them)")
    parser.add_argument("--host", action="store_true",
                        help="the suite on the host JIT instead of wasm "
                             "(benchmarks/autoschedule_host.py)")
    args = parser.parse_args(argv)
    if args.host:
        from benchmarks.autoschedule_host import host_main
        return host_main(args)
    if args.webgpu:
        args.rounds = args.rounds or 7
        return webgpu_main(args)
    names = []
    for n in (args.pipelines or "suite,demos").split(","):
        names += {"suite": list(suite.SUITE),
                  "demos": [DEMO_PREFIX + d for d in DEMOS]}.get(n, [n])
    targets = [{"simd": SIMD, "threads": THREADS}[t] for t in args.targets.split(",")]
    demos = {s.name: s for s in demo_specs([n[len(DEMO_PREFIX):] for n in names
                                            if n.startswith(DEMO_PREFIX)])}
    specs = [demos[n] if n in demos else suite.SUITE[n] for n in names]
    settings = QUICK if args.quick else FULL
    impls = implementations({s.name: s for s in specs}, not args.no_halide, args.tune)
    inputs = {s.name: s.inputs() for s in specs}
    if args.node_runs:  # measured elsewhere: these builds' directories name the runs
        from benchmarks.wasm import BUILD_ROOT, WasmBuild, target_slug
        builds = [WasmBuild(spec.name, impl, target,
                            BUILD_ROOT / spec.name / f"{impl}-{target_slug(target)}")
                  for spec in specs for impl in impls for target in targets]
        for b in builds:
            b.ok = True
    else:
        from benchmarks import wasm
        wasm.THREAD_POOL_SIZE = args.pool_size
        builds = build_all(specs, inputs, impls, targets, rebuild=not args.reuse,
                           extra_sources=demo_sources() if demos else ())
    if args.build_only:
        from benchmarks.wasm import harness_args
        print("built; to measure elsewhere (with benchmarks/build/package.json, which says the "
              "harnesses are CommonJS; benchmarks/autoschedule_remote.sh does all this): "
              "python benchmarks/interleave.py --out runs.json "
              f"--harness-args '{json.dumps(harness_args(settings))}' "
              + " ".join(str(Path(b.directory).relative_to(Path.cwd())) for b in builds))
        return 0
    rounds = args.rounds or (1 if args.quick else 5)
    cores = os.cpu_count()
    if args.node_runs:
        measured, cores = node_runs(builds, args.node_runs)
        rounds = max((len(m.round_medians_ms) for m in measured), default=0)
    else:
        measured = run_interleaved(builds, settings, rounds, args.max_busy, args.quiet_timeout)
    loads = [v for m in measured for v in m.load]
    busy = [b for b in (measured[0].details.get("busy", []) if measured else []) if b is not None]
    print(f"\nwasm in Node, {rounds} interleaved round(s), load average "
          f"{min(loads, default=0):.2f}-{max(loads, default=0):.2f}, cores busy before the "
          f"rounds {', '.join(f'{b:.2f}' for b in busy) or '?'} (of {cores})"
          + (f", measured elsewhere ({args.node_runs})" if args.node_runs else ""))
    print(f"{'pipeline':15} {'target':18} {'impl':22} {'median ms':>10} "
          f"{'/ hand (min med max)':>24}  same")
    geo: dict[tuple[str, str], list[float]] = {}
    per_round_geo: dict[tuple[str, str], list[list[float]]] = {}
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
                    key = ("demos" if spec.name in demos else "suite", TARGET_LABELS[target],
                           m.impl)
                    geo.setdefault(key, []).append(r[1])
                    per_round_geo.setdefault(key, []).append(
                        [a / b for a, b in zip(m.round_medians_ms, hand.round_medians_ms)])
    for (group, label, impl), values in geo.items():
        rounds_geo = [geomean(col) for col in zip(*per_round_geo[(group, label, impl)])]
        print(f"geometric mean {group} {label} {impl} / hand: {geomean(values):.2f} over "
              f"{len(values)} pipelines (per round {min(rounds_geo):.2f}-{max(rounds_geo):.2f}), "
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
