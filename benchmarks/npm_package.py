"""The demo blur as an npm package (`webhal build demos/blur/blur.py -g blur`): its size, the
time `create()` takes in Node, and each variant's run time at 1536x1024 through the package's
JavaScript API (buffers copied in and out on every call, as a user's code pays); the threads
variant's speed-up over SIMD; the webgpu variant built with ASYNCIFY (waiting for readbacks
inside the entry) against the default build that reads outputs back after it returns.

    .venv/bin/python -m benchmarks.npm_package [--rounds 3] [--runs 25]

Sizes are gzip -9 of the files a variant loads (its .mjs and .wasm, plus index.js and
runtime/, and the WGSL of the webgpu variant); times are the median over `runs` calls in each
round, with min/median/max over rounds.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import pathlib
import statistics
import tempfile
import time

from webhal import build
from webhal.runners.node import run_node_source
from webhal.toolchain import private_runtime_dir, run_tool
from webhal.toolchain.webgpu import find_swiftshader_icd

ROOT = pathlib.Path(__file__).resolve().parents[1]
BLUR = ROOT / "demos" / "blur" / "blur.py"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu", "wasm-32-wasmrt-wasm_simd128-wasm_threads",
           "wasm-32-wasmrt-wasm_simd128", "wasm-32-wasmrt"]

_TIMING = """
import { createRequire } from 'node:module';
import { create } from %(index)s;
const [variant, width, height, runs] = [process.argv[2], ...process.argv.slice(3).map(Number)];
const gpu = variant === 'webgpu'
  ? createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]) : undefined;
const t0 = performance.now();
const p = await create({ variant, gpu });
const createMs = performance.now() - t0;
const data = new Uint8Array(width * height).map((_, i) => (i * 7919) %% 251);
const inputs = { input: { data, shape: [width, height] } };
const outputs = { shape: [width - 2, height - 2] };
await p.run(inputs, outputs);  // warm up
const times = [];
for (let i = 0; i < runs; i++) {
  const s = performance.now();
  await p.run(inputs, outputs);
  times.push(performance.now() - s);
}
console.log(JSON.stringify({ createMs, times, target: p.target }));
process.exit(0);
"""


def _python_tiny_run_ms(runs: int) -> list[float]:
    """The GPU blur at 64x8 (two kernels of one workgroup each) realized from Python through
    wgpu-py: the Python runtime's cost per call, beside the JavaScript one (both on
    SwiftShader)."""
    import numpy as np

    import webhal as hl
    os.environ["VK_ICD_FILENAMES"] = os.environ["VK_DRIVER_FILES"] = \
        find_swiftshader_icd().path
    os.environ.setdefault("XDG_RUNTIME_DIR", private_runtime_dir())  # quiets wgpu-native
    cls = build.load_generators(str(BLUR))["blur"]
    target = hl.Target("host-webgpu")
    with hl.GeneratorContext(target):
        g = cls()
        pipeline = g.build_pipeline()
    g.inputs()[0].set(hl.Buffer(np.zeros((10, 66), np.uint8)))
    out = hl.Buffer(hl.UInt(8), [64, 8])
    pipeline.realize(out, target)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        pipeline.realize(out, target)
        times.append((time.perf_counter() - start) * 1000)
    return times


def _gz(paths) -> int:
    return sum(len(gzip.compress(pathlib.Path(p).read_bytes(), 9)) for p in paths)


ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"


def _gz_minified(paths) -> int:
    """As _gz, with each JavaScript file first minified by esbuild (what Vite ships)."""
    total = 0
    for p in map(pathlib.Path, paths):
        data = p.read_bytes()
        if p.suffix in (".js", ".mjs"):
            data = run_tool([str(ESBUILD), str(p), "--minify", "--log-level=error"],
                            what="esbuild --minify").stdout.encode()
        total += len(gzip.compress(data, 9))
    return total


def spread(xs) -> str:
    return f"{min(xs):.2f}/{statistics.median(xs):.2f}/{max(xs):.2f}"


def _variant_files(directory: pathlib.Path, v: dict) -> list[pathlib.Path]:
    """What a variant loads beside index.js and runtime/."""
    # (A browser's; Node's pthreads run Emscripten's classic worker script, nodeWorker.)
    loaded = {v["js"], *(f for k, f in v["files"].items() if k != "nodeWorker")}
    return [directory / f for f in sorted(loaded)]


def _timed(index: str, variant: str, width: int, height: int, runs: int) -> dict:
    out = run_node_source(_TIMING % {"index": index}, [variant, str(width), str(height),
                                                       str(runs)],
                          dawn=variant == "webgpu", what="the package benchmark")
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="webhal-npm-bench-") as tmp:
        directory = pathlib.Path(tmp) / "blur"
        meta = build.build(str(BLUR), "blur", str(directory), TARGETS, quiet=True)
        suspending = pathlib.Path(tmp) / "blur-asyncify"
        build.build(str(BLUR), "blur", str(suspending), TARGETS[:1], quiet=True,
                    suspend="asyncify")
        shared = [directory / "index.js", *sorted((directory / "runtime").glob("*.js"))]
        index = json.dumps((directory / "index.js").as_uri())
        print(f"{'variant':8} {'gzip KB':>8} {'create ms':>16} {'run ms (1536x1024)':>26}")
        medians = {}
        for v in meta["variants"]:
            size = _gz([*shared, *_variant_files(directory, v)])
            creates, runs = [], []
            for _ in range(args.rounds):
                result = _timed(index, v["name"], 1536, 1024, args.runs)
                creates.append(result["createMs"])
                runs.append(statistics.median(result["times"]))
            medians[v["name"]] = runs
            print(f"{v['name']:8} {size / 1024:8.1f} {spread(creates):>16} {spread(runs):>26}")
        ratios = [s / t for s, t in zip(medians["simd"], medians["threads"])]
        print(f"threads over SIMD on {os.cpu_count()} cores: {spread(ratios)}x (per round)")
        def files(names):
            return [f for v in meta["variants"] if v["name"] in names
                    for f in _variant_files(directory, v)]
        both, cpu = files({"webgpu", "simd", "scalar"}), files({"simd", "scalar"})
        print(f"CPU (SIMD + scalar) + WebGPU: {_gz([*shared, *both]) / 1024:.1f} KB gzipped; "
              f"without WebGPU {_gz([*shared, *cpu]) / 1024:.1f} KB")
        print(f"  JavaScript minified by esbuild (as Vite ships it): "
              f"{_gz_minified([*shared, *both]) / 1024:.1f} KB; without WebGPU "
              f"{_gz_minified([*shared, *cpu]) / 1024:.1f} KB")
        s_meta = json.loads((suspending / "package.json").read_text())
        assert s_meta["webhal"]["variants"] == {"webgpu": TARGETS[0]}
        s_index = json.dumps((suspending / "index.js").as_uri())
        plain_v = meta["variants"][0]
        s_wasm = suspending / plain_v["wasm"]
        plain, waiting = [], []
        for _ in range(args.rounds):
            plain.append(statistics.median(_timed(index, "webgpu", 1536, 1024,
                                                  args.runs)["times"]))
            waiting.append(statistics.median(_timed(s_index, "webgpu", 1536, 1024,
                                                    args.runs)["times"]))
        print(f"webgpu variant, no suspension: wasm {_gz([directory / plain_v['wasm']])} B, "
              f"JS {_gz([directory / plain_v['js']])} B gzipped, run {spread(plain)} ms; "
              f"ASYNCIFY: wasm {_gz([s_wasm])} B, JS {_gz([suspending / plain_v['js']])} B, "
              f"run {spread(waiting)} ms")
        js_tiny, py_tiny = [], []
        for _ in range(args.rounds):
            js_tiny.append(statistics.median(_timed(index, "webgpu", 66, 10,
                                                    args.runs * 4)["times"]))
            py_tiny.append(statistics.median(_python_tiny_run_ms(args.runs * 4)))
        print(f"one call of the GPU blur at 64x8 (two kernels of one workgroup each, "
              f"SwiftShader): JavaScript runtime {spread(js_tiny)} ms, Python runtime "
              f"(wgpu-py, realize) {spread(py_tiny)} ms")
        whole = [p for p in directory.rglob("*") if p.is_file() and p.suffix not in (".a", ".h")]
        print(f"the whole package (every variant, without the C files): "
              f"{_gz(whole) / 1024:.1f} KB gzipped")
        print(f"load average {os.getloadavg()[0]:.2f}; times min/median/max over "
              f"{args.rounds} rounds of {args.runs} runs (webgpu: dawn.node on SwiftShader, "
              "a CPU renderer)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
