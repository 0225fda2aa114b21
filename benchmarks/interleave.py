"""Interleaved rounds on a quiet machine, with the standard library only (so that it also runs
on a machine with nothing but Python and Node: `python benchmarks/interleave.py ...`).

Each round runs every group's members back to back (in the opposite order the next round, so a
drift of the machine's load falls on both sides of a ratio), after waiting until the machine is
quiet: at most `max_busy` cores busy with other work, as /proc/stat counts them over half a
second, or `timeout_s` passed. The benchmarks take the median of per-round ratios.

As a command it runs the wasm harnesses of benchmarks/build (one directory each, holding
bench.js) in Node and writes what each printed, per round, as JSON:

    python benchmarks/interleave.py --out runs.json --rounds 5 DIR...

(`python -m benchmarks.autoschedule --node-runs runs.json` prints the table from such a file.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Hashable, Sequence


def _cpu_times() -> tuple[float, float] | None:
    """(idle, total) jiffies of all cores from /proc/stat (None where there is none)."""
    try:
        with open("/proc/stat") as f:
            fields = [float(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return fields[3] + (fields[4] if len(fields) > 4 else 0.0), sum(fields[:8])


def busy_cores(seconds: float = 0.5) -> float | None:
    """How many cores were busy over the next `seconds` (with other work: this process
    sleeps meanwhile); None where /proc/stat cannot be read."""
    a = _cpu_times()
    time.sleep(seconds)
    b = _cpu_times()
    if a is None or b is None or b[1] <= a[1]:
        return None
    return (1.0 - (b[0] - a[0]) / (b[1] - a[1])) * (os.cpu_count() or 1)


def wait_quiet(max_busy: float, timeout_s: float) -> float | None:
    """Wait until at most `max_busy` cores are busy, or `timeout_s` passed; the busy cores
    last seen."""
    start = time.perf_counter()
    while True:
        busy = busy_cores()
        if busy is None or busy <= max_busy or time.perf_counter() - start > timeout_s:
            return busy


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def interleaved(items: Sequence, group: Callable[[object], Hashable], run: Callable,
                rounds: int, max_busy: float, timeout_s: float,
                log: Callable[[str], None] = print) -> tuple[list[list], list[float | None]]:
    """`run(item)` for every item, `rounds` times: per round a list in the items' order, and
    the busy cores seen before each round. Within a round the items of one group run back to
    back, in reverse order every other round."""
    groups: dict[Hashable, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(group(item), []).append(i)
    results: list[list] = []
    busy_seen: list[float | None] = []
    for r in range(rounds):
        busy = wait_quiet(max_busy, timeout_s)
        busy_seen.append(busy)
        found: list = [None] * len(items)
        for members in groups.values():
            for i in (members if r % 2 == 0 else list(reversed(members))):
                found[i] = run(items[i])
        results.append(found)
        log(f"round {r + 1}/{rounds}: {'?' if busy is None else f'{busy:.2f}'} cores busy "
            f"before it, load average {load_average()} after")
    return results, busy_seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", help="build directories holding bench.js")
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--max-busy", type=float, default=0.3)
    parser.add_argument("--quiet-timeout", type=float, default=60)
    parser.add_argument("--node", default="node")
    parser.add_argument("--harness-args", default="[]", help="JSON list for every harness")
    args = parser.parse_args(argv)
    harness_args = json.loads(args.harness_args)

    def run(directory: str) -> dict:
        done = subprocess.run([args.node, "--no-experimental-fetch", "bench.js", *harness_args],
                              cwd=directory, capture_output=True, text=True, timeout=300)
        return {"lines": done.stdout.splitlines()[-5:], "rc": done.returncode,
                "stderr": done.stderr[-500:], "load": load_average()}

    def group(directory: str) -> tuple[str, str]:  # (pipeline, target): .../PIPELINE/IMPL-TARGET
        parent, name = os.path.split(os.path.normpath(directory))
        return os.path.basename(parent), name.rsplit("-", 1)[-1]

    results, busy = interleaved(args.dirs, group, run, args.rounds, args.max_busy,
                                args.quiet_timeout, log=lambda s: print(s, file=sys.stderr))
    with open(args.out, "w") as f:
        json.dump({"cores": os.cpu_count(), "busy": busy,
                   "runs": {d: [rnd[i] for rnd in results] for i, d in enumerate(args.dirs)}},
                  f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
