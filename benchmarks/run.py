"""Run the benchmark suite: webhal against Halide (PyPI, a benchmark-only peer) in Node, in
headless Chromium and on the host, and numpy and OpenCV.js for scale.

    .venv/bin/python -m benchmarks.run [--quick] [--only NAME]... [--targets simd,scalar,threads]
                                       [--skip node,chromium,host,opencv] [--rebuild]
                                       [--baseline [FILE]] [--save-baseline [FILE]]

Prints a table per environment, writes benchmarks/results/results.json and report.html.
With --baseline, also lists every webhal measurement more than 10% slower than in FILE
(default benchmarks/baseline.json); --save-baseline writes this run's results there.
Exit status: 1 when something failed or an output disagrees (see "Problems"); else 3 when a
measurement is slower than the baseline; else 0 (2: bad arguments or an unreadable baseline).
See benchmarks/README.md for what is measured and how to read it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from types import ModuleType

from rich.console import Console

import webhal
from benchmarks import baseline, host, opencv, report, wasm
from benchmarks.measure import (
    FULL,
    QUICK,
    SCALAR,
    SIMD,
    TARGET_LABELS,
    THREADS,
    Measurement,
    load_average,
)
from benchmarks.suite import SUITE, Spec
from webhal.errors import ToolchainError
from webhal.toolchain import find_chromium, find_emscripten, find_node

RESULTS = Path(__file__).resolve().parent / "results"
STEPS = ("node", "chromium", "host", "opencv")
EXIT_PROBLEMS, EXIT_USAGE, EXIT_SLOWER = 1, 2, 3


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="fewer and shorter batches, one round, SIMD target only (~2 minutes)")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help=f"run only this pipeline (repeatable; one of {', '.join(SUITE)})")
    p.add_argument("--targets", default=None,
                   help="comma-separated: simd, scalar, threads (wasm SIMD on pthreads; "
                        "default: all three; --quick: simd)")
    p.add_argument("--skip", default="", help=f"comma-separated steps to skip: {', '.join(STEPS)}")
    p.add_argument("--rebuild", action="store_true", help="rebuild every wasm harness")
    p.add_argument("--stat", choices=("median", "min"), default="median",
                   help="which per-call time the tables compare (default: median of batches; "
                        "min is steadier on a busy machine)")
    p.add_argument("--baseline", nargs="?", const=baseline.DEFAULT, type=Path, metavar="FILE",
                   help="compare with this results file and list every webhal measurement "
                        f"more than {baseline.THRESHOLD * 100:g}%% slower; exit status 3 if any "
                        "(FILE defaults to benchmarks/baseline.json)")
    p.add_argument("--threshold", type=float, default=baseline.THRESHOLD, metavar="FRACTION",
                   help="how much slower than the baseline is a regression (default "
                        f"{baseline.THRESHOLD})")
    p.add_argument("--save-baseline", nargs="?", const=baseline.DEFAULT, type=Path,
                   metavar="FILE", help="also write this run's results to FILE, as a future "
                   "--baseline (default benchmarks/baseline.json; not written when the run "
                   "has problems)")
    return p.parse_args(argv)


def _implementations(console: Console) -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {"webhal": webhal}
    try:
        import halide
        found["halide"] = halide
    except ImportError:
        console.print("[yellow]PyPI halide is not installed (pip install -e '.[test]'): "
                      "webhal runs alone, without ratios[/]")
    return found


def _version(command: list[str]) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "?"


def _meta(settings, targets, implementations, skip, quick) -> dict:
    from importlib.metadata import PackageNotFoundError, version

    def package(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    meta = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "mode": "quick" if quick else "full",
        "settings": asdict(settings),
        "targets": targets,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "numpy": package("numpy"),
        "webhal_commit": _version(["git", "-C", str(Path(__file__).parent), "rev-parse",
                                   "--short", "HEAD"]),
        "halide": package("halide") if "halide" in implementations else None,
        "llvmlite": package("llvmlite"),
        "skipped_steps": sorted(skip),
    }
    for name, finder in (("emcc", find_emscripten), ("node", find_node),
                         ("chromium", find_chromium)):
        try:
            tool = finder()
            meta[name] = f"{tool.path} {getattr(tool, 'version_string', '') or tool.version}"
        except ToolchainError:
            meta[name] = None
    return meta


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _log_measurement(console: Console, m: Measurement) -> None:
    what = f"{m.env:8} {m.pipeline:15} {m.impl:7} {TARGET_LABELS.get(m.target, m.target):12}"
    if m.ok:
        console.print(f"  {what} {m.median_ms:9.3f} ms")
    else:
        console.print(f"  {what} [red]failed[/]: {m.error.splitlines()[0] if m.error else ''}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console()
    if not console.is_terminal:  # a log file: no need to wrap at 80 columns
        console = Console(width=120)
    settings = QUICK if args.quick else FULL
    unknown = [n for n in args.only if n not in SUITE]
    if unknown:
        console.print(f"[red]unknown pipeline {', '.join(unknown)}; the suite has "
                      f"{', '.join(SUITE)}[/]")
        return EXIT_USAGE
    specs: list[Spec] = [SUITE[n] for n in (args.only or SUITE)]
    names = {"simd": SIMD, "scalar": SCALAR, "threads": THREADS}
    chosen = args.targets or ("simd" if args.quick else "simd,scalar,threads")
    try:
        targets = [names[t.strip()] for t in chosen.split(",") if t.strip()]
    except KeyError as exc:
        console.print(f"[red]unknown target {exc}; use simd, scalar and/or threads[/]")
        return EXIT_USAGE
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if skip - set(STEPS):
        console.print(f"[red]unknown step(s) {', '.join(skip - set(STEPS))}[/]")
        return EXIT_USAGE
    try:  # read before the run, not after minutes of it
        stored = baseline.read(args.baseline) if args.baseline else None
    except ValueError as exc:
        console.print(f"[red]{exc}[/]")
        return EXIT_USAGE
    implementations = _implementations(console)
    started = time.perf_counter()
    load_at_start = load_average()
    inputs = {spec.name: spec.inputs() for spec in specs}
    measurements: list[Measurement] = []
    builds: list[wasm.WasmBuild] = []

    if not {"node", "chromium"} <= skip:
        console.rule("building wasm harnesses")
        t0 = time.perf_counter()
        builds = wasm.build_all(specs, inputs, implementations, targets, rebuild=args.rebuild,
                                log=console.print)
        reused = sum(b.reused for b in builds)
        console.print(f"  {len(builds)} builds ({reused} reused) in "
                      f"{time.perf_counter() - t0:.1f} s")
    for env, runner in (("node", wasm.run_all_in_node), ("chromium", wasm.run_all_in_chromium)):
        if env in skip:
            continue
        console.rule(f"running in {env}")
        try:
            found = runner(builds, settings)
        except ToolchainError as exc:
            console.print(f"[yellow]{env} skipped: {str(exc).splitlines()[0]}[/]")
            skip.add(env)
            continue
        for m in found:
            _log_measurement(console, m)
        measurements += found
    if "host" not in skip:
        console.rule("host JIT and numpy")
        for spec in specs:
            for impl, hl in implementations.items():
                for m in host.measure_jit(spec, impl, hl, inputs[spec.name], settings):
                    _log_measurement(console, m)
                    measurements.append(m)
            m = host.measure_matched(spec, inputs[spec.name], settings)
            _log_measurement(console, m)
            measurements.append(m)
            m = host.measure_numpy(spec, inputs[spec.name], spec.params, settings)
            _log_measurement(console, m)
            measurements.append(m)
    opencv_result: Measurement | str | None = None
    if "opencv" not in skip and any(s.name == "blur" for s in specs):
        blur = SUITE["blur"]
        opencv_result = opencv.measure_opencv_blur(
            wasm.BUILD_ROOT / "blur" / "input0.bin", blur.output_shape[1],
            blur.output_shape[0], settings)
        if isinstance(opencv_result, Measurement):
            measurements.append(opencv_result)

    results = report.Results(specs, measurements, args.stat)
    console.rule(f"results ({args.stat} ms per call; webhal/Halide < 1: webhal is faster)")
    report.print_tables(console, results, opencv_result)
    meta = _meta(settings, targets, implementations, skip, args.quick)
    meta["stat"] = args.stat
    meta["load_average_start_end"] = [load_at_start, load_average()]
    meta["seconds"] = round(time.perf_counter() - started, 1)
    console.print(report.load_line(meta, results), highlight=False)
    _warn_if_busy(console, results, load_at_start)
    against = None
    if stored is not None:
        console.rule("against the baseline")
        against = baseline.compare(results, stored, args.baseline, meta, args.threshold)
        baseline.print_comparison(console, against)
    build_info = [{"pipeline": b.pipeline, "impl": b.impl, "target": b.target, "ok": b.ok,
                   "reused": b.reused, "error": b.error,
                   "seconds": {k: round(v, 2) for k, v in b.seconds.items()}} for b in builds]
    data = report.results_json(results, meta, build_info, opencv_result,
                               against.as_json() if against else None)
    report.write_json(RESULTS / "results.json", data)
    report.write_html(RESULTS / "report.html", results, meta, opencv_result,
                      [baseline.html_section(against)] if against else [])
    problems = results.problems()
    if problems:
        console.rule("[red]problems")
        for p in problems:
            console.print(f"- {p}", markup=False, highlight=False)
    console.print(f"wrote {RESULTS / 'results.json'} and {RESULTS / 'report.html'} "
                  f"({meta['seconds']} s)")
    if args.save_baseline:
        _save_baseline(console, args.save_baseline, data, problems)
    if problems:
        return EXIT_PROBLEMS
    return EXIT_SLOWER if against and against.regressions else 0


def _warn_if_busy(console: Console, results: report.Results, load_at_start: float | None) -> None:
    """A load above half the cores at any point makes the figures noisy."""
    seen = [v for m in results.measurements for v in m.load]
    highest = max(seen + ([load_at_start] if load_at_start is not None else []), default=None)
    if highest is not None and highest > 0.5 * (os.cpu_count() or 1):
        console.print(f"[yellow]the machine was busy (load average up to {highest} on "
                      f"{os.cpu_count()} cores): expect noisy times; compare ratios across "
                      "runs, or use --stat min[/]")


def _save_baseline(console: Console, path: Path, data: dict, problems: list[str]) -> None:
    """Write the results as a baseline, unless the run failed somewhere: a baseline with holes
    or wrong outputs would hide regressions."""
    if problems:
        console.print(f"[red]not saved as a baseline ({len(problems)} problems)[/]")
        return
    baseline_data = dict(data, baseline=None)  # what this run was compared with is not kept
    report.write_json(path, baseline_data)
    console.print(f"saved as the baseline {path} (load average "
                  f"{data['meta']['load_average_start_end']} at the start and end)")


if __name__ == "__main__":
    sys.exit(main())
