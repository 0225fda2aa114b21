"""Compile time, webhal against Halide: lowering plus code generation of the same pipeline with
the same schedule for the same target, side by side, with the ratio webhal / Halide.

    .venv/bin/python -m benchmarks.compile_time [--rounds 2] [--targets host,wasm] [--only NAME]

The pipelines: a pyramid chain of N Funcs (N = 8, 12, 16), each computed at the root and reading
the previous one at x / 2 and (x + 1) / 2, whose regions double with each level when written
out in full (issue 31); interpolate with 10 levels, local Laplacian with 8 levels and 8
intensities (each over 100 Funcs) and a camera pipeline, from benchmarks/apps.py with the apps'
CPU schedules. Each measurement runs in a fresh process (no JIT or build cache of either), after
a one-Func warm-up compile in that process (LLVM's one-time initialization is not counted); the
time is `compile_to_object` for the target (`host`, or `wasm-32-wasmrt-wasm_simd128`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"host": "host", "wasm": "wasm-32-wasmrt-wasm_simd128"}
PIPELINES = ["chain_8", "chain_12", "chain_16", "strip_chain_8", "interpolate", "local_laplacian",
             "camera_pipe"]


def pyramid_chain(hl, n: int, per_strip: bool = False):
    """(output, arguments): n Funcs after the input, each the mean of the previous one at x / 2
    and (x + 1) / 2, all computed at the root; or with `per_strip`, reading it at (x / 2,
    y / 2) and ((x + 1) / 2, (y + 1) / 2), each computed per row of the output's strips of 32
    rows (stored per strip), as Halide's interpolate and local Laplacian apps schedule their
    finer levels."""
    if per_strip:
        return _strip_chain(hl, n)
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    prev = hl.Func("f0")
    prev[x, y] = inp[x, y]
    funcs = [prev]
    for i in range(1, n + 1):
        f = hl.Func(f"f{i}")
        f[x, y] = (prev[x // 2, y] + prev[(x + 1) // 2, y]) * 0.5
        funcs.append(f)
        prev = f
    for f in funcs[:-1]:
        f.compute_root()
    return funcs[-1], [inp]


def _strip_chain(hl, n: int):
    x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    prev = hl.Func("f0")
    prev[x, y] = inp[x, y]
    funcs = [prev]
    for i in range(1, n + 1):
        f = hl.Func(f"f{i}")
        f[x, y] = (prev[x // 2, y // 2] + prev[(x + 1) // 2, (y + 1) // 2]) * 0.5
        funcs.append(f)
        prev = f
    out = funcs[-1]
    out.split(y, yo, yi, 32).parallel(yo)
    for f in funcs[:-1]:
        f.store_at(out, yo).compute_at(out, yi)
    return out, [inp]


def build(hl, name: str):
    """(output Func, arguments) of pipeline `name` built with module hl."""
    if name.startswith("chain_"):
        return pyramid_chain(hl, int(name.split("_")[1]))
    if name.startswith("strip_chain_"):
        return pyramid_chain(hl, int(name.split("_")[2]), per_strip=True)
    from benchmarks import apps
    built = {"interpolate": lambda: apps.build_interpolate(hl, 10),
             "local_laplacian": lambda: apps.build_local_laplacian(hl, 8),
             "camera_pipe": lambda: apps.build_camera_pipe(hl)}[name]()
    return built.output, built.args


def count_funcs(output) -> int:
    """The Funcs of webhal's pipeline (the output's dependencies and itself)."""
    from webhal.lang.pipeline import Pipeline
    return len(Pipeline(output).functions())


def measure(lib: str, name: str, target: str) -> dict:
    """Seconds to compile pipeline `name` with lib ('webhal' or 'halide') for target, in this
    process; and webhal's Func count."""
    import tempfile
    hl = __import__(lib)
    t = hl.Target(target)
    with tempfile.TemporaryDirectory() as tmp:
        x = hl.Var("x")
        warm = hl.Func("warm")
        warm[x] = x
        warm.compile_to_object(f"{tmp}/warm.o", [], "warm", t)
        output, args = build(hl, name)
        start = time.perf_counter()
        output.compile_to_object(f"{tmp}/{name}.o", args, name, t)
        seconds = time.perf_counter() - start
    funcs = count_funcs(output) if lib == "webhal" else None
    return {"seconds": seconds, "funcs": funcs}


def _run_one(lib: str, name: str, target: str, timeout: float) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.compile_time", "--one", lib, name, target]
    try:
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": tail[:160]}
    return json.loads(lines[-1])


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="measurements per cell (min shown)")
    ap.add_argument("--targets", default="host,wasm", help="host and/or wasm")
    ap.add_argument("--only", action="append", choices=PIPELINES, help="a pipeline (repeatable)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per compile")
    ap.add_argument("--one", nargs=3, metavar=("LIB", "NAME", "TARGET"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure(*args.one)))
        return 0
    names = args.only or PIPELINES
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    print(f"load average at start: {_load()}")
    print(f"{'pipeline':<16} {'target':<6} {'funcs':>5} {'webhal s':>9} {'halide s':>9} "
          f"{'ratio':>6}   (min of {args.rounds}; all rounds in brackets)")
    failed = False
    for name in names:
        for target in targets:
            cells = {"webhal": [], "halide": []}
            funcs, errors = None, []
            for _ in range(args.rounds):  # interleaved, so load drifts hit both alike
                for lib in cells:
                    r = _run_one(lib, name, TARGETS[target], args.timeout)
                    if "error" in r:
                        errors.append(f"{lib}: {r['error']}")
                        continue
                    cells[lib].append(r["seconds"])
                    funcs = r["funcs"] or funcs
            if errors:
                failed = True
                print(f"{name:<16} {target:<6} {'':>5} " + "; ".join(sorted(set(errors))))
                continue
            w, h = min(cells["webhal"]), min(cells["halide"])
            rounds = " ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(cells["webhal"], cells["halide"]))
            print(f"{name:<16} {target:<6} {funcs or '':>5} {w:>9.2f} {h:>9.2f} {w / h:>6.2f}   "
                  f"[{rounds}]", flush=True)
    print(f"load average at end: {_load()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
