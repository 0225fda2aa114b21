"""WebGPU benchmarks: `python -m benchmarks.webgpu [--big]`.

1. uint8 blur on the local adapter (lavapipe here): packed-word stores vs the atomic byte path
   (Halide's approach to 8-bit stores), GPU time per run, ratio.
2. Dispatch overhead of a tiny kernel: webhal's cached pipelines and bind groups vs creating them
   on every run (what Halide's WebGPU runtime does).
3. With --big (meant for a real GPU): 8192x8192 float32 copy, brighten+clamp and 3x3 box blur
   with clamped edges, many dispatches in one submission, median of several runs.
Prints a table and writes benchmarks/results/webgpu.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import webhal as hl
from webhal.jit import compile_jit
from webhal.runtime.webgpu import adapter_name

HERE = os.path.dirname(os.path.abspath(__file__))
x, y, xo, yo, xi, yi, xv = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi", "xv"))


def gpu_time(func, sizes, target="host-webgpu", repeats=20, runs=5) -> float:
    """Median seconds per run of the pipeline's kernels (no copies, no host code)."""
    pipeline = hl.Pipeline(func)
    compiled, _ = compile_jit(pipeline, hl.Target(target))
    pipeline.realize(sizes, hl.Target(target))
    compiled.gpu.replay(2)  # warm up
    return statistics.median(compiled.gpu.replay(repeats) for _ in range(runs))


def blur_u8(packed: bool, w: int, h: int):
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    rng = np.random.default_rng(0)
    image.set(hl.Buffer(rng.integers(0, 256, (h + 2, w + 2), dtype=np.uint8)))
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (hl.u16(image[x, y]) + image[x + 1, y] + image[x + 2, y]) / 3
    by[x, y] = hl.u8((bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3)
    if packed:
        bx.compute_root().split(x, x, xv, 2).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
        by.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    else:
        bx.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
        by.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    return by


def packed_vs_atomic(w=1024, h=768) -> dict:
    packed = gpu_time(blur_u8(True, w, h), [w, h])
    atomic = gpu_time(blur_u8(False, w, h), [w, h])
    return {"size": [w, h], "packed_ms": packed * 1e3, "atomic_ms": atomic * 1e3,
            "atomic_over_packed": atomic / packed}


def dispatch_overhead(runs=200) -> dict:
    inp = hl.ImageParam(hl.Float(32), 1, "input")
    f = hl.Func("tiny")
    f[x] = inp[x] + 1.0
    f.gpu_tile(x, xo, xi, 64)
    inp.set(hl.Buffer(np.zeros(64, dtype=np.float32)))
    pipeline, target = hl.Pipeline(f), hl.Target("host-webgpu")
    compiled, _ = compile_jit(pipeline, target)
    out = hl.Buffer(hl.Float(32), [64])

    def per_run(uncached: bool) -> float:
        times = []
        for _ in range(runs):
            if uncached:  # what a runtime without caches does on every dispatch
                compiled.gpu.pipelines = [compiled.gpu._pipeline(k) for k in compiled.gpu.kernels]
                compiled.gpu.bind_groups.clear()
            start = time.perf_counter()
            pipeline.realize(out, target)
            times.append(time.perf_counter() - start)
        return statistics.median(times)
    cached = per_run(False)
    uncached = per_run(True)
    # per_run(True) rebuilds the pipeline outside the timed region; add that cost back.
    start = time.perf_counter()
    for _ in range(20):
        compiled.gpu._pipeline(compiled.gpu.kernels[0])
    build = (time.perf_counter() - start) / 20
    return {"cached_ms": cached * 1e3, "uncached_ms": (uncached + build) * 1e3,
            "uncached_over_cached": (uncached + build) / cached}


def big_float(n=8192) -> dict:
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    inp.set(hl.Buffer(np.random.default_rng(1).random((n, n), dtype=np.float32)))
    results = {}
    copy = hl.Func("copy")
    copy[x, y] = inp[x, y]
    copy.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 64, 4)
    results["copy"] = gpu_time(copy, [n, n], repeats=50)
    bright = hl.Func("brighten")
    bright[x, y] = hl.clamp(inp[x, y] * 1.5 + hl.f32(0.1), 0.0, 1.0)
    bright.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 64, 4)
    results["brighten"] = gpu_time(bright, [n, n], repeats=50)
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    blur = hl.Func("blur3x3")
    blur[x, y] = sum(clamped[x + dx, y + dy] for dx in (-1, 0, 1) for dy in (-1, 0, 1)) / 9.0
    blur.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 64, 4)
    results["blur3x3"] = gpu_time(blur, [n, n], repeats=50)
    bytes_moved = 2 * n * n * 4
    return {name: {"ms": t * 1e3, "TB/s": bytes_moved / t / 1e12} for name, t in results.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="the 8192x8192 float32 suite")
    parser.add_argument("--small-only", action="store_true", help="skip packed/atomic, dispatch")
    args = parser.parse_args(argv)
    report = {"adapter": adapter_name()}
    print(f"adapter: {report['adapter']}")
    if not args.small_only:
        report["packed_vs_atomic"] = r = packed_vs_atomic()
        print(f"uint8 blur {r['size'][0]}x{r['size'][1]}: packed {r['packed_ms']:.3f} ms, "
              f"atomic {r['atomic_ms']:.3f} ms, atomic/packed {r['atomic_over_packed']:.2f}x")
        report["dispatch"] = d = dispatch_overhead()
        print(f"tiny kernel per run: cached {d['cached_ms']:.3f} ms, uncached "
              f"{d['uncached_ms']:.3f} ms ({d['uncached_over_cached']:.1f}x)")
    if args.big:
        report["big"] = b = big_float()
        for name, v in b.items():
            print(f"8192x8192 float32 {name}: {v['ms']:.3f} ms ({v['TB/s']:.2f} TB/s)")
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    name = "webgpu_big.json" if args.big else "webgpu.json"
    with open(os.path.join(HERE, "results", name), "w") as f:
        json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
