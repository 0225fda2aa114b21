"""Halide's apps (benchmarks/apps.py) built by webhal and by Halide: outputs compared, compile
time, host JIT run time and wasm SIMD run time in Node (the suite's C harness), each as a
webhal/Halide ratio with its spread.

    .venv/bin/python -m benchmarks.run_apps [--full] [--quick] [--only NAME]...
                                            [--skip compile,host,node]

Default sizes are 768x512 with shallower pyramids (interpolate 5 levels, local Laplacian 4):
webhal's compile time still grows with pyramid depth. --full: 1536x1024 and the apps' own
depths (10 and 8). Writes benchmarks/results/apps.json. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from statistics import median

import numpy as np

import webhal
from benchmarks import host, wasm
from benchmarks.apps import apps
from benchmarks.measure import FULL, QUICK, SIMD, Measurement, load_average

RESULTS = Path(__file__).resolve().parent / "results"
STEPS = ("outputs", "compile", "host", "node")


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


def ratio(w: list[float], h: list[float]) -> dict:
    """webhal/Halide of the medians, and the lowest and highest ratio the rounds allow."""
    if not w or not h:
        return {}
    return {"ratio": median(w) / median(h), "low": min(w) / max(h), "high": max(w) / min(h)}


def _rounds(m: Measurement | None) -> list[float]:
    if m is None or not m.ok:
        return []
    return m.round_medians_ms or [m.median_ms]


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks.run_apps",
                                description=__doc__.split("\n")[0])
    p.add_argument("--full", action="store_true",
                   help="1536x1024 and the apps' own pyramid depths (slow to compile in webhal)")
    p.add_argument("--quick", action="store_true", help="shorter timing, one round")
    p.add_argument("--only", action="append", default=[], metavar="NAME")
    p.add_argument("--skip", default="", help=f"comma-separated: {', '.join(STEPS)}")
    p.add_argument("--compile-rounds", type=int, default=2)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import halide
    libraries = {"webhal": webhal, "halide": halide}
    specs = apps(full=args.full)
    unknown = [n for n in args.only if n not in specs]
    if unknown:
        print(f"unknown app {', '.join(unknown)}; the apps are {', '.join(specs)}")
        return 2
    specs = {n: s for n, s in specs.items() if not args.only or n in args.only}
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    settings = QUICK if args.quick else FULL
    inputs = {name: spec.inputs() for name, spec in specs.items()}
    rows: dict[str, dict] = {name: {"summary": spec.summary} for name, spec in specs.items()}
    problems = []
    load_start = load_average()

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
            row["compile"] = ratio(seconds["webhal"], seconds["halide"])
            print(f"{name}: compile webhal {seconds['webhal']} s, Halide {seconds['halide']} s",
                  flush=True)
        if "host" not in skip:
            calls = {}
            for lib, hl in libraries.items():
                found = host.measure_jit(spec, lib, hl, inputs[name], settings)
                calls[lib] = next((m for m in found if m.target == "call"), None)
            row["host_ms"] = {lib: _rounds(m) for lib, m in calls.items()}
            row["host"] = ratio(row["host_ms"]["webhal"], row["host_ms"]["halide"])
            print(f"{name}: host ms {row['host_ms']}", flush=True)
    if "node" not in skip:
        builds = wasm.build_all(specs.values(), inputs, libraries, [SIMD],
                                extra_sources=[Path(__file__).with_name("apps.py")],
                                log=print)
        found = wasm.run_all_in_node(builds, settings)
        for m in found:
            rows[m.pipeline].setdefault("node_ms", {})[m.impl] = _rounds(m)
            if not m.ok:
                problems.append(f"{m.pipeline} {m.impl} node: {m.error.splitlines()[0]}")
        for name, row in rows.items():
            ms = row.get("node_ms", {})
            row["node"] = ratio(ms.get("webhal", []), ms.get("halide", []))
            by_impl = {m.impl: m for m in found if m.pipeline == name and m.ok}
            if len(by_impl) == 2 and by_impl["webhal"].checksum != by_impl["halide"].checksum:
                row["node_outputs"] = "checksums differ (float rounding, or a bug: see host)"

    print_table(rows, args, load_start)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "apps.json").write_text(json.dumps(
        {"full": args.full, "load_average_start_end": [load_start, load_average()],
         "cores": os.cpu_count(), "apps": rows}, indent=1, default=str))
    for p in problems:
        print(f"problem: {p}")
    return 1 if problems else 0


def _cell(r: dict) -> str:
    if not r:
        return "-"
    return f"{r['ratio']:.2f} ({r['low']:.2f}-{r['high']:.2f})"


def print_table(rows: dict, args, load_start) -> None:
    print(f"\nwebhal/Halide (below 1: webhal faster), median of rounds (lowest-highest ratio "
          f"the rounds allow); {'full' if args.full else 'default'} sizes")
    print(f"{'app':16} {'matches':30} {'compile':18} {'host JIT':18} {'wasm SIMD (Node)':18}")
    for name, row in rows.items():
        print(f"{name:16} {str(row.get('outputs', '-'))[:30]:30} {_cell(row.get('compile')):18} "
              f"{_cell(row.get('host')):18} {_cell(row.get('node')):18}")
    for key, label in (("host", "host JIT"), ("node", "wasm SIMD"), ("compile", "compile")):
        g = geomean([r[key]["ratio"] for r in rows.values() if r.get(key)])
        if g is not None:
            print(f"geometric mean, {label}: {g:.2f}")
    print(f"load average {load_start} at the start, {load_average()} at the end, "
          f"{os.cpu_count()} cores")


if __name__ == "__main__":
    sys.exit(main())
