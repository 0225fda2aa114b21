"""The webgpu variant's host copies and per-call cost against Dawn's floors (issue 30, items
3 and 4): `python -m benchmarks.gpu_io [--build-only] [--out DIR] [--packages NAME,...]
[--sizes 2048,8192] [--table 4096] [--calls 1000] [--call-size 2048] [--reps 10]
[--only io,call,table,threads] [--threads 5,16]`.

Builds (webgpu variant only, into benchmarks/build/gpu_io/ or --out) a float32 brighten, a
float32 copy and the demos' local Laplacian, bilateral grid and unsharp mask (or only those
--packages names: brighten_f32 is enough for io and call), then runs benchmarks/gpu_io.mjs in
Node on dawn.node (here on SwiftShader), which measures in one run:
(a) the float32 brighten with typed arrays in and out (written in place, and a new output
    array) at each size, against Dawn's own round trip for the same bytes (writeBuffer, a copy
    into a reused MAP_READ buffer, mapAsync, one copy out); goal within 1.3x. The three are
    timed in the same rounds, in turn, and each ratio is also given as the median of its
    per-round ratios (with quartiles): the machine drifts between rounds;
(b) the brighten on GPUBuffers at 2048x2048: the median of `calls` awaited runs, against the
    kernel alone (its dispatch replayed `calls` times in one submission) and a bare dispatch
    and submit; goal at most 0.04 ms more than the kernel;
(c) the demos at `table`^2 (x3 for the colour ones), typed arrays in and out against
    GPUBuffers (runs back to back, the queue drained at the end; and one run alone on an idle
    GPU, drained: an idle GPU's lower clocks slow compute-bound kernels several times) and
    against Dawn's round trip of the call's bytes, timed in the same rounds as the typed
    calls, in turn (`typedOverRoundTrip`, `inPlaceOverRoundTrip`: the median of the per-round
    ratios, quartiles and extremes, over 2 x `reps` rounds);
(d) only with `--only bw`: bandwidth at `bw-size`^2 float32 on one device (issue 30's goal:
    the package's brighten and copy on GPUBuffers at >= 90% of a hand-written WGSL copy's):
    a hand-written WGSL copy (array<vec4<f32>>) dispatched `bw-runs` times in one submission,
    against the packages' copy_f32 and brighten_f32 through p.run on GPUBuffers of that device
    (`bw-runs` runs back to back, the queue drained; the median awaited run; their dispatches
    replayed alone), in GB/s of bytes read + written;
(e) only with `--only threads`: the demos' wasm threads variant (SIMD + threads, built then) at
    `table`^2 on each of `--threads` thread counts (workers and the caller), typed arrays in
    and out, the issue's 'wasm threads' column (labelled 4 workers, measured on 16 threads:
    benchmarks/README.md).
Writes benchmarks/results/gpu_io.json.

On the GPU machine (no webhal there): build here with --build-only, carry benchmarks/build
with Node and node_modules/webgpu (shared/ENVIRONMENT.md), and run
`node benchmarks/gpu_io.mjs benchmarks/build/gpu_io` there with VK_DRIVER_FILES set.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib

import webhal as hl
from webhal import build

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = ROOT / "benchmarks" / "build" / "gpu_io"
TARGET = "wasm-32-wasmrt-wasm_simd128-webgpu"
THREADS = "wasm-32-wasmrt-wasm_simd128-wasm_threads"
DEMOS = ("unsharp", "bilateral_grid", "local_laplacian")

x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")


@hl.generator(name="brighten_f32")
class BrightenF32:
    """output = input * gain + bias, float32, scheduled as benchmarks/gpu_apis.py's brighten
    (4 lanes per thread, 64x4 threads per workgroup)."""

    input = hl.InputBuffer(hl.Float(32), 2)
    gain = hl.InputScalar(hl.Float(32))
    bias = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        g.output[x, y] = g.input[x, y] * g.gain + g.bias
        if g.target().has_gpu_feature():
            g.output.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 64, 4)
        else:
            g.output.vectorize(x, 4)


@hl.generator(name="copy_f32")
class CopyF32:
    """output = input, float32, scheduled as BrightenF32: the package's own copy, for (d)."""

    input = hl.InputBuffer(hl.Float(32), 2)
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        g.output[x, y] = g.input[x, y]
        if g.target().has_gpu_feature():
            g.output.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 64, 4)
        else:
            g.output.vectorize(x, 4)


def build_packages(out: pathlib.Path = BUILD, names: tuple[str, ...] | None = None,
                   threads: bool = False) -> None:
    """The packages (webgpu variant; the demos' wasm threads variant too with `threads`)."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("brighten_f32", "copy_f32"):
        if names is None or name in names:
            build.build(__file__, name, str(out / name), [TARGET], quiet=True)
    for name in DEMOS:
        if names is None or name in names:
            build.build(str(ROOT / "demos" / name / f"{name}.py"), name, str(out / name),
                        [TARGET, THREADS] if threads else [TARGET], quiet=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--out", type=pathlib.Path, default=BUILD,
                        help="where the packages are built (default benchmarks/build/gpu_io)")
    parser.add_argument("--packages", default=None,
                        help="build only these (comma-separated: brighten_f32, copy_f32, "
                        + ", ".join(DEMOS) + ")")
    parser.add_argument("--sizes", default="2048,8192")
    parser.add_argument("--table", type=int, default=4096)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--call-size", type=int, default=2048)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--only", default="io,call,table",
                        help="any of io,call,table,bw,threads")
    parser.add_argument("--threads", default="5", help="thread counts for --only threads")
    parser.add_argument("--bw-size", type=int, default=8192)
    parser.add_argument("--bw-runs", type=int, default=50)
    args = parser.parse_args()
    names = tuple(args.packages.split(",")) if args.packages else None
    build_packages(args.out.resolve(), names, "threads" in args.only.split(","))
    if args.build_only:
        print(f"built in {args.out}")
        return 0
    from webhal.runners.node import run_node
    from webhal.toolchain import private_runtime_dir
    out = run_node(ROOT / "benchmarks" / "gpu_io.mjs",
                   [str(args.out.resolve()), "--sizes", args.sizes, "--table", str(args.table),
                    "--calls", str(args.calls), "--call-size", str(args.call_size),
                    "--reps", str(args.reps), "--only", args.only,
                    "--threads", args.threads,
                    "--bw-size", str(args.bw_size), "--bw-runs", str(args.bw_runs)],
                   dawn=True, env={"XDG_RUNTIME_DIR": private_runtime_dir()}, timeout_s=3600,
                   what="benchmarks/gpu_io.mjs")
    print(out.stderr.strip())
    result = json.loads(out.stdout)
    result["load_average"] = os.getloadavg()[0]
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    (results / "gpu_io.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
