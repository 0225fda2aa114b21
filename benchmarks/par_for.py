"""Parallel-loop cost on the host, webhal against Halide, 1 and 2 threads, interleaved:

- chain: 36 compute_root stages of f[x, y] = g[x, y] + 1 on 64x16, each parallel in y (36 jobs
  of 16 tiny tasks a call: the time a call is about the pool's cost per job);
- interpolate: the app (benchmarks/apps.py, 768x512, 5 levels, its CPU schedule: ~36 jobs).

    .venv/bin/python -m benchmarks.par_for [--rounds N]

Each (library, threads) runs in its own process (Halide reads HL_NUM_THREADS once), the
processes taking turns, so that a change of the machine's load falls on all of them alike.
Prints each case's median call time in ms per round.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from statistics import median

CASES = ("chain", "interpolate")


def _chain(hl):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    stages = [hl.Func("f0")]
    stages[0][x, y] = inp[x, y]
    for i in range(1, 36):
        f = hl.Func(f"f{i}")
        f[x, y] = stages[-1][x, y] + 1.0
        stages.append(f)
    for f in stages[:-1]:
        f.compute_root().parallel(y)
    stages[-1].parallel(y)
    return stages[-1], inp


def _call(lib: str, case: str):
    """A no-argument call of the case's compiled pipeline in `lib`."""
    import numpy as np

    from benchmarks import host
    from benchmarks.apps import apps
    from benchmarks.suite import Built
    hl = __import__("webhal" if lib == "webhal" else "halide")
    target = host._jit_target(hl)
    if case == "chain":
        out, inp = _chain(hl)
        buffer = hl.Buffer(np.zeros((16, 64), np.float32))
        inp.set(buffer)
        return host._entry_point(hl, Built(out, [inp]), [buffer],
                                 hl.Buffer(hl.Float(32), [64, 16]), target)
    spec = apps()[case]
    built, values, output = host._bind(spec, hl, spec.inputs())
    return host._entry_point(hl, built, values, output, target)


def child(lib: str, case: str, calls: int) -> None:
    """Print the median ms of `calls` calls (after 3 untimed)."""
    call = _call(lib, case)
    for _ in range(3):
        call()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    print(median(times) * 1e3)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.par_for")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--child", nargs=3, metavar=("LIB", "CASE", "CALLS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return
    runs = [(case, lib, threads) for case in CASES for lib in ("webhal", "halide")
            for threads in (1, 2)]
    found: dict[tuple, list[float]] = {run: [] for run in runs}
    for _ in range(args.rounds):
        for case, lib, threads in runs:
            env = {**os.environ, "HL_NUM_THREADS": str(threads)}
            calls = 400 if case == "chain" else 60
            out = subprocess.run([sys.executable, "-m", "benchmarks.par_for", "--child", lib,
                                  case, str(calls)], env=env, check=True, capture_output=True,
                                 text=True).stdout
            found[case, lib, threads].append(float(out.split()[-1]))
    for (case, lib, threads), ms in found.items():
        print(f"{case:12s} {lib:7s} {threads} thread(s): {' '.join(f'{v:.4f}' for v in ms)} ms")

if __name__ == "__main__":
    main()
