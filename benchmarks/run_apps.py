"""Halide's apps (benchmarks/apps.py) built by webhal and by Halide: outputs compared, compile
time, host JIT run time and wasm SIMD run time in Node (the suite's C harness), each as a
webhal/Halide ratio.

    .venv/bin/python -m benchmarks.run_apps [--small] [--quick] [--only NAME]...
                                            [--skip outputs,compile,host,node]

The apps' own sizes by default: 1536x1024 outputs, interpolate with 10 levels, the local
Laplacian with 8 (--small: 768x512 and 5 and 4 levels). On this 2-core VM under load (2.4-7)
with fresh wasm builds a run took 296 s and 356 s, and 307 s with --small: compiling (the
compile step and the wasm builds) is most of it. Timings are side by side: the two
libraries take turns round by round in this process (host) or in Node runs one after the other
(wasm), and each figure is the median of the per-round webhal/Halide ratios with their spread
(quartiles), so that load from other work on a shared machine falls on both alike. The host
also gives the ratio of process CPU time (every thread's). Writes
benchmarks/results/apps.json. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import numpy as np

import webhal
from benchmarks import host, wasm
from benchmarks.apps import apps
from benchmarks.measure import SIMD, Settings, load_average, time_interleaved

RESULTS = Path(__file__).resolve().parent / "results"
STEPS = ("outputs", "compile", "host", "node")


@dataclass(frozen=True)
class Timing:
    """How long the side-by-side timings run: host rounds of one batch per library, and Node
    rounds of one harness run per library (node: the harness's own settings for each run)."""

    host_rounds: int
    host_batch_ms: float
    host_warmup_ms: float
    node_rounds: int
    node: Settings


FULL_TIMING = Timing(15, 40, 100, 5, Settings(batches=5, min_batch_ms=25, warmup_ms=50,
                                              rounds=1))
QUICK_TIMING = Timing(5, 20, 30, 2, Settings(batches=3, min_batch_ms=10, warmup_ms=20,
                                             rounds=1))


def compile_times(spec, libraries: dict, rounds: int) -> dict[str, list[float]]:
    """Seconds to define the pipeline and compile it for the host JIT (compile_to_callable,
    which neither library caches), `rounds` times each, the libraries taking turns."""
    seconds: dict[str, list[float]] = {lib: [] for lib in libraries}
    for _ in range(rounds):
        for lib, hl in libraries.items():
            start = time.perf_counter()
            built = spec.build(hl)
            hl.Pipeline(built.output).compile_to_callable(built.args, host._jit_target(hl))
            seconds[lib].append(time.perf_counter() - start)
    return seconds


def outputs(spec, libraries: dict, arrays: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Each library's output for the inputs (realized on its host JIT)."""
    found = {}
    for lib, hl in libraries.items():
        built, _, output = host._bind(spec, hl, arrays)
        built.output.realize(output, host._jit_target(hl))
        found[lib] = np.array(np.asarray(output))
    return found


def compare(a: np.ndarray, b: np.ndarray) -> tuple[bool, str]:
    """(matches, how): floats within 1e-4 of the output's largest magnitude, integers within
    1e-3 of their type's range (computed in float, then cast: a fused multiply-add in one
    library and not the other can move a float across a rounding or table-index boundary;
    the local Laplacian's remap table turns that into a few steps of 65535 at some pixels).
    NaNs must be at the same places."""
    if a.shape != b.shape:
        return False, f"shapes {a.shape} and {b.shape}"
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    worst = float(np.nanmax(diff)) if diff.size else 0.0
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return False, "NaN in different places"
    if worst == 0:
        return True, "exact"
    if a.dtype.kind in "ui":
        share = float(np.mean(diff > 0))
        return worst <= max(1, 1e-3 * np.iinfo(a.dtype).max), \
            f"max diff {worst:g} ({share:.2%} of values)"
    scale = float(np.nanmax(np.abs(b))) or 1.0
    return worst <= 1e-4 * scale, f"max diff {worst:.2g}"


def per_round(w: list[float], h: list[float]) -> dict:
    """webhal/Halide round by round (w[i] and h[i] were timed side by side): the median of the
    ratios, their quartiles (q1, q3) and extremes, and each library's median."""
    if not w or not h:
        return {}
    ratios = [a / b for a, b in zip(w, h)]
    q1, q3 = (float(v) for v in np.percentile(ratios, [25, 75]))
    return {"ratio": median(ratios), "q1": q1, "q3": q3, "low": min(ratios),
            "high": max(ratios), "rounds": len(ratios), "webhal_ms": median(w),
            "halide_ms": median(h)}


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks.run_apps",
                                description=__doc__.split("\n")[0])
    p.add_argument("--small", action="store_true",
                   help="768x512 and shallower pyramids (interpolate 5 levels, local Laplacian "
                        "4) instead of the apps' own sizes")
    p.add_argument("--full", action="store_true",
                   help="the apps' own sizes (the default; kept for older command lines)")
    p.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    p.add_argument("--only", action="append", default=[], metavar="NAME")
    p.add_argument("--skip", default="", help=f"comma-separated: {', '.join(STEPS)}")
    p.add_argument("--compile-rounds", type=int, default=2)
    args = p.parse_args(argv)
    if args.small and args.full:
        p.error("--small and --full are each other's opposite")
    return args


def time_host(spec, libraries: dict, arrays: list[np.ndarray], timing: Timing) -> dict:
    """Each library's compiled entry point (the suite's host "call") timed side by side:
    {library: {"wall_ms": [...], "cpu_ms": [...], "load": [...]}}, one value per round."""
    calls = {}
    for lib, hl in libraries.items():
        built, values, output = host._bind(spec, hl, arrays)
        calls[lib] = host._entry_point(hl, built, values, output, host._jit_target(hl))
    return time_interleaved(calls, timing.host_rounds, timing.host_batch_ms,
                            timing.host_warmup_ms)


def time_node(builds: list, timing: Timing) -> tuple[dict[str, list[float]], str]:
    """The two builds of one app (webhal's, Halide's) run in Node one after the other, round by
    round (the order reversed every other round): each round's median milliseconds per call,
    and a problem ("" when none): a failed run, or an output that changed between runs."""
    found: dict[str, list[float]] = {b.impl: [] for b in builds}
    sums: dict[str, set] = {b.impl: set() for b in builds}
    for r in range(timing.node_rounds):
        for build in (builds if r % 2 == 0 else builds[::-1]):
            m = wasm.run_in_node(build, timing.node)
            if not m.ok:
                return found, f"{build.impl} node: {m.error.splitlines()[0]}"
            found[build.impl].append(m.median_ms)
            sums[build.impl].add(m.checksum)
    changed = [impl for impl, s in sums.items() if len(s) > 1]
    return found, f"{', '.join(changed)} node: the output differs between runs" if changed else ""


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import halide
    libraries = {"webhal": webhal, "halide": halide}
    specs = apps(full=not args.small)
    unknown = [n for n in args.only if n not in specs]
    if unknown:
        print(f"unknown app {', '.join(unknown)}; the apps are {', '.join(specs)}")
        return 2
    specs = {n: s for n, s in specs.items() if not args.only or n in args.only}
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    timing = QUICK_TIMING if args.quick else FULL_TIMING
    inputs = {name: spec.inputs() for name, spec in specs.items()}
    rows: dict[str, dict] = {name: {"summary": spec.summary} for name, spec in specs.items()}
    problems = []
    load_start = load_average()
    started = time.perf_counter()

    for name, spec in specs.items():
        row = rows[name]
        if "outputs" not in skip:
            try:
                out = outputs(spec, libraries, inputs[name])
                row["matches"], row["outputs"] = compare(out["webhal"], out["halide"])
            except Exception as exc:  # noqa: BLE001 - a failure is a result
                row["matches"] = False
                row["outputs"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            if not row["matches"]:
                problems.append(f"{name}: outputs {row['outputs']}")
            print(f"{name}: outputs {row['outputs']}", flush=True)
        if "compile" not in skip:
            seconds = compile_times(spec, libraries, args.compile_rounds)
            row["compile_s"] = seconds
            row["compile"] = per_round(seconds["webhal"], seconds["halide"])
            print(f"{name}: compile webhal {_list(seconds['webhal'], 2)} s, Halide "
                  f"{_list(seconds['halide'], 2)} s", flush=True)
        if "host" not in skip:
            try:
                timed = time_host(spec, libraries, inputs[name], timing)
            except Exception as exc:  # noqa: BLE001 - a failure is a result
                problems.append(f"{name} host: {type(exc).__name__}: {str(exc)[:300]}")
                continue
            row["host_ms"] = {lib: t["wall_ms"] for lib, t in timed.items()}
            row["host_cpu_ms"] = {lib: t["cpu_ms"] for lib, t in timed.items()}
            row["host_load"] = timed["webhal"]["load"]
            row["host"] = per_round(row["host_ms"]["webhal"], row["host_ms"]["halide"])
            row["host_cpu"] = per_round(row["host_cpu_ms"]["webhal"],
                                        row["host_cpu_ms"]["halide"])
            print(f"{name}: host {_summary(row['host'])}; CPU {_summary(row['host_cpu'])}",
                  flush=True)
    if "node" not in skip:
        builds = wasm.build_all(specs.values(), inputs, libraries, [SIMD],
                                extra_sources=[Path(__file__).with_name("apps.py")],
                                log=print)
        for name, row in rows.items():
            pair = [b for b in builds if b.pipeline == name]
            failed = [b for b in pair if not b.ok]
            if failed:
                problems.append(f"{name} {failed[0].impl} node: "
                                f"{(failed[0].error or 'not built').splitlines()[0]}")
                continue
            ms, problem = time_node(pair, timing)
            row["node_ms"] = ms
            if problem:
                problems.append(f"{name} {problem}")
                continue
            row["node"] = per_round(ms["webhal"], ms["halide"])
            print(f"{name}: wasm SIMD in Node {_summary(row['node'])}", flush=True)

    print_table(rows, args, load_start)
    seconds = time.perf_counter() - started
    print(f"{seconds:.0f} s in all")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "apps.json").write_text(json.dumps(
        {"full": not args.small, "quick": args.quick, "seconds": seconds,
         "load_average_start_end": [load_start, load_average()], "cores": os.cpu_count(),
         "apps": rows}, indent=1, default=str))
    for p in problems:
        print(f"problem: {p}")
    return 1 if problems else 0


def _list(values: list[float], digits: int) -> str:
    return "[" + ", ".join(f"{v:.{digits}f}" for v in values) + "]"


def _summary(r: dict) -> str:
    return (f"webhal {r['webhal_ms']:.3g} ms, Halide {r['halide_ms']:.3g} ms, ratio "
            f"{r['ratio']:.2f} (quartiles {r['q1']:.2f}-{r['q3']:.2f}, {r['rounds']} rounds)")


def _cell(r: dict | None) -> str:
    if not r:
        return "-"
    return f"{r['ratio']:.2f} ({r['q1']:.2f}-{r['q3']:.2f})"


def print_table(rows: dict, args, load_start) -> None:
    print(f"\nwebhal/Halide (below 1: webhal faster): the median of per-round ratios (their "
          f"quartiles); {'small' if args.small else 'full'} sizes")
    print(f"{'app':16} {'matches':26} {'compile':16} {'host JIT':16} {'host CPU':16} "
          f"{'wasm SIMD (Node)':16}")
    for name, row in rows.items():
        print(f"{name:16} {str(row.get('outputs', '-'))[:26]:26} {_cell(row.get('compile')):16} "
              f"{_cell(row.get('host')):16} {_cell(row.get('host_cpu')):16} "
              f"{_cell(row.get('node')):16}")
    for key, label in (("host", "host JIT"), ("host_cpu", "host CPU"), ("node", "wasm SIMD"),
                       ("compile", "compile")):
        g = geomean([r[key]["ratio"] for r in rows.values() if r.get(key)])
        if g is not None:
            print(f"geometric mean, {label}: {g:.2f}")
    print(f"load average {load_start} at the start, {load_average()} at the end, "
          f"{os.cpu_count()} cores")


if __name__ == "__main__":
    sys.exit(main())
