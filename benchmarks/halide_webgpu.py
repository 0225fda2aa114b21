"""Halide's own WebGPU code for the demos, autoscheduled by Halide's Li2018, run in Node on
dawn.node: the peer the autoschedule benchmark compares webhal's WebGPU autoschedules with
(`python -m benchmarks.autoschedule --webgpu --li2018`).

Halide 21 (PyPI) compiles each demo's algorithm (its generator run with every scheduling
directive a no-op, as benchmarks.autoschedule.algorithm_only does) with Li2018's schedule for
`wasm-32-wasmrt-webgpu`; the static library links with li2018_web/harness.cpp through emcc 3.1.6
(`-sUSE_WEBGPU=1 -sASYNCIFY -sMODULARIZE`) and runs in Node with dawn.node as navigator.gpu.

How the two are timed (li2018_web/li2018.mjs, one Node process): Halide's module and webhal's
packages (autoscheduled, and the hand schedule for reference) each get their own device of the
same dawn.node adapter; buffers stay on the device after the first call (Halide's: host copies
marked clean after the first call, so no upload or readback; webhal's: GPUBuffers in and out).
A sample is one batch: performance.now(), k calls through the side's public entry (Halide:
its C function called k times inside one ccall; webhal: `await p.run(...)` k times), then
`await device.queue.onSubmittedWorkDone()` on that side's device, performance.now(); the
figure is the time over k. k is chosen per side the same way (after a second of warm-up
calls, which also brings a real GPU's clocks up, batches grow until one lasts the batch time
asked). Each round runs every side once, in
turn, the order reversed every other round; the ratio is taken per round, and the median of
those, with quartiles and range, is quoted. The process's CPU time per batch is recorded too
(process.cpuUsage: every thread, SwiftShader's included).

What a Halide call costs besides its kernels: Halide 21's WebGPU runtime makes a compute
pipeline, a bind group and a submit per dispatch, and pops an error scope after each, waiting
for its callback in a loop of emscripten_sleep(1) (its wgpuDeviceTick on the web): each
dispatch yields to the event loop through a timer of at least 1 ms. That is how Halide's code
runs on the web, and it is counted: the comparison is of whole calls, not of kernels.

Why not elsewhere: Halide's `host-webgpu` JIT loads a native webgpu library written against
Dawn's API of late 2023. wgpu-native 0.32 (wgpu-py's) lacks two of its entry points
(wgpuDeviceTick, wgpuBufferReference; it has wgpuDevicePoll and wgpuBufferAddRef), and with
those two forwarded by a shim library it crashes in wgpuInstanceRequestAdapter, whose callback
arguments differ (wgpu-native takes a callback-info struct): not usable without rewriting
Halide's runtime. Emscripten 3.1.6's WebGPU bindings (2022) lack four things Halide's wasm runtime
needs against today's WebGPU: wgpuBufferGetSize, wgpuComputePassEncoderDispatchWorkgroups, the
'internal' error filter, and layout "auto" for a pipeline without a layout; li2018_web/shim.js
supplies them (a JS library linked in, no change to Halide's code).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import time
import types
from pathlib import Path

BUILD = Path(__file__).resolve().parent / "build" / "halide_webgpu"
TARGET = "wasm-32-wasmrt-webgpu"

# What the harness is made of (benchmarks/li2018_web/): harness.cpp (Halide's pipeline called
# from JS, the buffers kept on the device), shim.js (what Emscripten 3.1.6's WebGPU bindings
# lack), pre.js (navigator.gpu from dawn.node) and li2018.mjs (the runner: both sides timed).
SOURCES = Path(__file__).resolve().parent / "li2018_web"


class _NoSchedules:
    """Within it, Halide's Funcs and Stages ignore scheduling directives (the generators
    schedule their Outputs, which algorithm_only's proxy Func does not reach)."""

    def __enter__(self):
        import halide

        from benchmarks.autoschedule import SCHEDULING
        self.saved = []
        for cls in (halide.Func, halide.Stage):
            for name in SCHEDULING:
                if hasattr(cls, name):
                    self.saved.append((cls, name, getattr(cls, name)))
                    setattr(cls, name, lambda self, *a, **k: self)
        return self

    def __exit__(self, *exc):
        for cls, name, method in self.saved:
            setattr(cls, name, method)


@functools.cache  # Halide registers a generator's name once a process
def _halide_generator(name: str):
    """Demo `name`'s generator class, defined over Halide with its schedules no-ops."""
    import halide

    from benchmarks.autoschedule import algorithm_only
    path = Path(__file__).resolve().parent.parent / "demos" / name / f"{name}.py"
    source = path.read_text().replace("import webhal as hl\n", "")
    mod = types.ModuleType(f"_halide_{name}")
    mod.hl = algorithm_only(halide)
    exec(compile(source, str(path), "exec"), mod.__dict__)
    return next(v for v in mod.__dict__.values()
                if isinstance(v, type) and issubclass(v, halide.Generator) and
                v is not halide.Generator)


def build(name: str, size: int, channels: int, scalars: dict, margin: int,
          root: Path = BUILD) -> Path:
    """Demo `name` autoscheduled by Halide's Li2018 for TARGET at size^2 and linked with the
    harness: root/name/bench.js (root: BUILD by default)."""
    import halide

    from benchmarks.autoschedule import halide_plugin
    halide.load_plugin(halide_plugin("Li2018"))
    out_dir = Path(root) / name
    out_dir.mkdir(parents=True, exist_ok=True)
    (Path(root) / "package.json").write_text('{"type": "commonjs"}\n')  # Emscripten's JS
    target = halide.Target(TARGET)
    with halide.GeneratorContext(target), _NoSchedules():
        g = _halide_generator(name)()
        pipeline = g._build_pipeline()
    infos = g._get_arginfos()
    in_shape = [size, size] + ([channels] if channels else [])
    out_shape = [size - margin, size - margin] + ([channels] if channels else [])
    args, spec, call = [], [], []
    for info in infos:
        obj = getattr(g, info.name)
        if info.name == "output" or str(info.dir).endswith("Output"):
            continue
        args.append(obj)
        if isinstance(obj, halide.ImageParam):
            obj.set_estimates([(0, e) for e in in_shape[:obj.dimensions()]])
            spec.append((obj.type(), in_shape[:obj.dimensions()]))
            call.append(f"&b[{len(spec) - 1}]")
        else:
            value = scalars.get(info.name, 1.0)
            obj.set_estimate(value)
            call.append(repr(float(value)) + "f")
    output = pipeline.outputs()[0]
    output.set_estimates([(0, e) for e in out_shape[:output.dimensions()]])
    spec.append((output.type(), out_shape[:output.dimensions()]))
    call.append(f"&b[{len(spec) - 1}]")
    start = time.perf_counter()
    result = pipeline.apply_autoscheduler(target, halide.AutoschedulerParams("Li2018", {}))
    seconds = time.perf_counter() - start
    (out_dir / "schedule.txt").write_text(result.schedule_source)
    pipeline.compile_to_static_library(str(out_dir / "lib"), args, f"{name}_li2018", target)
    codes = {"uint": 1, "int": 0, "float": 2}
    rows = ", ".join(
        f"{{{len(ext)}, {{{', '.join(map(str, ext))}}}, "
        f"{codes[next(k for k in codes if str(t).startswith(k))]}, {t.bits()}}}"
        for t, ext in spec)
    decl = ", ".join(["halide_buffer_t *" if c.startswith("&") else "float" for c in call])
    (out_dir / "spec.h").write_text(
        f"extern \"C\" int {name}_li2018({decl});\n"
        f"struct Spec {{ int dims; int extent[3]; int code; int bits; }};\n"
        f"#define NBUF {len(spec)}\nstatic const Spec SPEC[NBUF] = {{{rows}}};\n"
        f"#define CALL(b) {name}_li2018({', '.join(call)})\n")
    shutil.copy(SOURCES / "harness.cpp", out_dir / "main.cpp")
    for name in ("shim.js", "pre.js"):
        shutil.copy(SOURCES / name, out_dir / name)
    include = Path(halide.__file__).parent / "include"
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    subprocess.run(["em++", "-O2", f"-I{include}", f"-I{out_dir}", str(out_dir / "main.cpp"),
                    str(out_dir / "lib.a"), "-sUSE_WEBGPU=1", "-sASYNCIFY",
                    "-sALLOW_MEMORY_GROWTH", "-sENVIRONMENT=node", "-Wno-deprecated",
                    "-sMODULARIZE=1", "-sEXPORT_NAME=HalideBench",
                    "-sEXPORTED_RUNTIME_METHODS=ccall",
                    "-sEXPORTED_FUNCTIONS=_bench_setup,_bench_calls,_bench_output",
                    "--js-library", str(out_dir / "shim.js"), "--pre-js",
                    str(out_dir / "pre.js"), "-o", str(out_dir / "bench.js")],
                   check=True, env=env, capture_output=True, text=True)
    (out_dir / "autoschedule_seconds").write_text(f"{seconds:.3f}")
    # li2018.mjs's last argument, for running it elsewhere (--run-only, or by hand)
    (out_dir / "about.json").write_text(json.dumps([channels, scalars, margin]))
    return out_dir / "bench.js"


def run(halide_dir: Path, webhal_dir: Path, size: int, rounds: int, batch_ms: float,
        about: list, icd: str | None, node_env: dict | None = None) -> dict:
    """li2018_web/li2018.mjs (copied to BUILD/li2018.mjs) in Node on dawn.node with Vulkan ICD
    `icd`: Halide's harness in `halide_dir` and webhal's packages in `webhal_dir` (auto/, hand/),
    `rounds` rounds of one batch of about `batch_ms` a side. `about` is [channels, scalars,
    margin]. Its JSON (see li2018.mjs), or {"error": ...} where it failed."""
    from webhal.errors import ToolchainError
    from webhal.runners.node import run_node
    BUILD.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOURCES / "li2018.mjs", BUILD / "li2018.mjs")  # beside the builds it runs
    extra = dict(node_env or {})
    if icd:
        extra.update(VK_ICD_FILENAMES=icd, VK_DRIVER_FILES=icd)
    try:
        done = run_node(BUILD / "li2018.mjs",
                        [str(halide_dir), str(webhal_dir), str(size), str(rounds),
                         str(batch_ms), json.dumps(about)],
                        dawn=True, no_experimental_fetch=True, env=extra, timeout_s=1800)
    except ToolchainError as e:
        return {"error": str(e)[-400:]}
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"error": (done.stderr or done.stdout)[-400:]}
    return json.loads(lines[-1])


def per_round(result: dict, num: str = "li2018", den: str = "auto", key: str = "ms") -> dict:
    """Per-round ratios num/den of a run's JSON (`key` "ms": wall clock, "cpuMs": the
    process's CPU time), and their median, quartiles and range."""
    import statistics
    ratios = [a / b for a, b in zip(result["sides"][num][key], result["sides"][den][key])]
    q1, med, q3 = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 \
        else (ratios[0],) * 3
    return {"ratios": ratios, "median": statistics.median(ratios), "q1": q1, "q3": q3,
            "min": min(ratios), "max": max(ratios), "q2": med}


def pattern(shape: list[int]):
    """The harness's input, as numpy (x innermost): byte i of the buffer is
    (i * 7919 + (i >> 9) * 13) % 251."""
    import numpy as np
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return ((i * 7919 + (i >> 9) * 13) % 251).astype(np.uint8).reshape(list(reversed(shape)))


def _shapes(size: int, channels: int, margin: int) -> tuple[list[int], list[int]]:
    """The input's and the output's extents (x, y[, c])."""
    c = [channels] if channels else []
    return [size, size] + c, [size - margin, size - margin] + c


def webhal_output(name: str, size: int, channels: int, scalars: dict, margin: int):
    """webhal's output (the demo's hand schedule, on the host) for the harness's input."""
    shape, out = _shapes(size, channels, margin)
    return realize_on_host(name, pattern(shape), scalars, out)


def realize_on_host(name: str, image, scalars: dict, size: list[int]):
    """Demo `name`'s output realized on the host by webhal (its hand schedule) at `size`
    (Halide's order: x first) for input `image`, the scalars in `scalars` or at their defaults."""
    import numpy as np

    import webhal as hl
    from webhal import demo_page
    with hl.GeneratorContext(hl.get_host_target()):
        g = demo_page.load(name).generator()()
        pipeline = g.build_pipeline()
        for a in g.inputs():
            if isinstance(a, hl.ImageParam):
                a.set(hl.Buffer(image))
            else:
                a.set(scalars.get(a.name(), a.get()))
        return np.asarray(pipeline.realize(size))


def halide_cpu_output(name: str, size: int, channels: int, scalars: dict, margin: int):
    """Halide's own output of the demo's algorithm JIT-compiled for the host CPU, scheduled by
    Halide's Mullapudi2016 (unscheduled, Halide would recompute each reduction per pixel)."""
    import halide
    import numpy as np

    from benchmarks.autoschedule import halide_plugin
    halide.load_plugin(halide_plugin("Mullapudi2016"))
    shape, out = _shapes(size, channels, margin)
    image = pattern(shape)  # kept alive: a halide.Buffer wraps the array's memory
    target = halide.get_host_target()
    with halide.GeneratorContext(target), _NoSchedules():
        g = _halide_generator(name)()
        pipeline = g._build_pipeline()
    for info in g._get_arginfos():
        obj = getattr(g, info.name)
        if isinstance(obj, halide.ImageParam):
            obj.set_estimates([(0, e) for e in shape[:obj.dimensions()]])
            obj.set(halide.Buffer(image))
        elif isinstance(obj, halide.Param):
            obj.set_estimate(float(scalars.get(info.name, 1.0)))
            obj.set(float(scalars.get(info.name, 1.0)))
    output = pipeline.outputs()[0]
    output.set_estimates([(0, e) for e in out[:output.dimensions()]])
    pipeline.apply_autoscheduler(target, halide.AutoschedulerParams("Mullapudi2016", {}))
    return np.asarray(pipeline.realize(out))


def li2018_output(halide_dir: Path, out_shape: list[int], icd: str | None):
    """Li2018's output from the harness in `halide_dir` (bench_setup's first call, copied
    back), on dawn.node with Vulkan ICD `icd`; numpy, x innermost."""
    import tempfile

    import numpy as np

    from webhal.runners.node import run_node_source
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "out.bin"
        run_node_source(
            "import { createRequire } from 'node:module';\n"
            "const require = createRequire(import.meta.url);\n"
            "const M = await require(process.argv[2])();\n"
            "if (!(await M.ccall('bench_setup', 'number', [], [], { async: true }) >= 0))\n"
            "  throw new Error('Halide failed');\n"
            "const p = M.ccall('bench_output', 'number', [], []);\n"
            "require('fs').writeFileSync(process.argv[3], "
            "M.HEAPU8.subarray(p, p + Number(process.argv[4])));\nprocess.exit(0);\n",
            [str(halide_dir / "bench.js"), str(dump), str(int(np.prod(out_shape)))],
            dawn=True, no_experimental_fetch=True,
            env={"VK_ICD_FILENAMES": icd, "VK_DRIVER_FILES": icd} if icd else None,
            timeout_s=600)
        return np.fromfile(dump, np.uint8).reshape(list(reversed(out_shape)))


def numpy_reference(name: str, image):
    """An independent numpy reference where there is one (the histogram equalization), else
    None."""
    import numpy as np
    if name != "histogram_equalization":
        return None
    counts = np.bincount(image.ravel(), minlength=256).astype(np.uint64)
    cdf = np.cumsum(counts)
    pixels = np.uint64(image.size)
    table = ((cdf * 255 + pixels // 2) // pixels).astype(np.uint8)
    return table[image]


def check_outputs(name: str, size: int, channels: int, scalars: dict, margin: int,
                  icd: str | None, root: Path = BUILD) -> dict[str, tuple[int, int]]:
    """Where Li2018's output differs, whose it is: the largest difference (and the count of
    differing values) of Li2018's WebGPU output, webhal's host output and Halide's own host
    output pairwise, and against numpy where numpy_reference has one."""
    import numpy as np
    shape, out = _shapes(size, channels, margin)
    outputs = {"li2018": li2018_output(Path(root) / name, out, icd),
               "webhal": webhal_output(name, size, channels, scalars, margin),
               "halide_cpu": halide_cpu_output(name, size, channels, scalars, margin)}
    ref = numpy_reference(name, pattern(shape))
    if ref is not None:
        outputs["numpy"] = ref
    names = list(outputs)
    result = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            d = np.abs(outputs[a].astype(np.int32) - outputs[b].astype(np.int32))
            result[f"{a} vs {b}"] = (int(d.max()), int(np.count_nonzero(d)))
    return result
