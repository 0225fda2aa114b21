"""The long differential run: random pipelines in Halide and in webhal on every target.

    .venv/bin/python -m tests.differential --seeds 0:2000 [--gpu] [--jobs 2] [--targets T,...]
                                           [--autoschedule]
    .venv/bin/python -m tests.differential --show SEED [--gpu] [--autoschedule]

`--autoschedule` runs each program's algorithm scheduled by webhal's autoscheduler (for each
target, at the output's size) against Halide's meaning of it (every Func inline).

Seeds run in worker processes, so a crash (a segfault in the host JIT, say) is a finding of its
own and the run goes on after it. The report counts each verdict per target and lists every
finding with its seed; `--show SEED` prints that seed's program and what each target made of it.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from .program import generate
from .run import (
    AUTOSCHEDULE_TARGETS,
    CPU_TARGETS,
    GPU_TARGETS,
    check,
    compare,
    run_halide,
    run_webhal,
)

ROOT = Path(__file__).resolve().parents[2]


def worker(first: int, last: int, gpu: bool, targets: list[str], auto: bool = False) -> None:
    """Runs seeds [first, last), a JSON line per verdict; 'begin' before each seed, so the
    parent knows which seed a crash belongs to."""
    for seed in range(first, last):
        print(json.dumps({"begin": seed}), flush=True)
        program = generate(seed, gpu)
        want = run_halide(program, scheduled=not auto)
        print(json.dumps({"halide_done": seed}), flush=True)  # a crash after this is webhal's
        verdicts = [compare(program, want, run_webhal(program, t, auto)) for t in targets]
        halide_changed = want.schedule_changes_values
        if halide_changed:
            print(json.dumps({"seed": seed, "target": "(halide)", "kind": "halide_schedule",
                              "detail": "Halide's scheduled run gives other values"}), flush=True)
        for v in verdicts:
            print(json.dumps({"seed": seed, "target": v.target, "kind": v.kind,
                              "detail": v.detail}), flush=True)


def _run_slice(first: int, last: int, gpu: bool, targets: list[str], out: list[dict],
               auto: bool = False) -> None:
    while first < last:
        cmd = [sys.executable, "-m", "tests.differential", "--worker", f"{first}:{last}",
               "--targets", ",".join(targets)] + (["--gpu"] if gpu else []) + \
            (["--autoschedule"] if auto else [])
        # stderr goes to a file: a pipe nobody reads until the end fills up (a long traceback
        # does) and blocks the worker for good.
        errors = tempfile.TemporaryFile(mode="w+")
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True)
        current, halide_done = first, False
        for line in proc.stdout:
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if "begin" in msg:
                current, halide_done = msg["begin"], False
            elif "halide_done" in msg:
                halide_done = True
            else:
                out.append(msg)
        code = proc.wait()
        errors.seek(0)
        err = errors.read()
        errors.close()
        if code == 0:
            return
        # A crash while Halide ran is Halide's (reported apart); after, webhal's (a finding).
        out.append({"seed": current, "target": "(process)",
                    "kind": "crash" if halide_done else "halide_crash",
                    "detail": f"exit code {proc.returncode}\n{err[-600:]}"})
        first = current + 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.differential", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:200", help="FIRST:LAST (LAST excluded)")
    ap.add_argument("--gpu", action="store_true",
                    help="GPU schedules on host-webgpu and host-vulkan")
    ap.add_argument("--targets", help="comma list (default: every target of the kind)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--autoschedule", action="store_true",
                    help="webhal's autoschedule of each algorithm instead of its schedule")
    ap.add_argument("--show", type=int, help="print one seed's program and verdicts")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    auto = args.autoschedule
    if args.targets:
        targets = args.targets.split(",")
    elif args.gpu:  # the reference evaluator ignores schedules, so has no autoschedule to run
        targets = GPU_TARGETS if auto else ["reference", *GPU_TARGETS]
    else:
        targets = AUTOSCHEDULE_TARGETS if auto else CPU_TARGETS
    if args.worker:
        first, last = map(int, args.worker.split(":"))
        worker(first, last, args.gpu, targets, auto)
        return 0
    if args.show is not None:
        program = generate(args.show, args.gpu)
        print(program.source)
        print(f"# output {program.size[0]}x{program.size[1]} {program.output_type}; inputs "
              + ", ".join(f"{k} {v.dtype}{v.shape[::-1]}" for k, v in program.inputs.items()))
        verdicts, halide_changed = check(program, targets, auto)
        if halide_changed:
            print("halide: its scheduled run gives other values than its unscheduled one")
        for v in verdicts:
            print(f"{v.target}: {v.kind}\n  " + v.detail.replace("\n", "\n  "))
        return 0

    first, last = map(int, args.seeds.split(":"))
    import threading
    results: list[dict] = []
    step = -(-(last - first) // args.jobs)
    threads = [threading.Thread(target=_run_slice, args=(a, min(a + step, last), args.gpu,
                                                          targets, results, auto))
               for a in range(first, last, step)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report(results, last - first, targets)
    return 1 if any(r["kind"] in ("mismatch", "refused", "dtype", "accepted", "crash")
                    for r in results) else 0


def report(results: list[dict], seeds: int, targets: list[str]) -> None:
    kinds = ["agree", "mismatch", "dtype", "refused", "accepted", "accepted_on_purpose",
             "both_refused", "gpu_64bit"]
    counts = collections.Counter((r["target"], r["kind"]) for r in results)
    print(f"{seeds} seeds")
    print(f"{'target':30}" + "".join(f"{k.replace('_on_purpose', '*'):>13}" for k in kinds))
    for t in targets:
        print(f"{t:30}" + "".join(f"{counts[(t, k)]:>13}" for k in kinds))
    print("(accepted*: Halide refuses, webhal runs it on purpose: run.ACCEPTED_ON_PURPOSE; "
          "gpu_64bit: run.NO_64_BITS_ON_GPU)")
    crashes = [r["seed"] for r in results if r["kind"] == "crash"]
    print(f"webhal crashes: {len(crashes)} {crashes[:20]}")
    halide_crashes = sorted(r["seed"] for r in results if r["kind"] == "halide_crash")
    print(f"Halide crashes (not counted): {len(halide_crashes)} {halide_crashes[:20]}")
    changed = sorted(r["seed"] for r in results if r["kind"] == "halide_schedule")
    print(f"Halide's own schedule changed its values (compared with its unscheduled run): "
          f"{len(changed)} {changed[:20]}")
    for r in sorted(results, key=lambda r: (r["kind"], r["seed"])):
        if r["kind"] in ("mismatch", "refused", "dtype", "crash", "accepted"):
            first = r["detail"].splitlines()[0] if r["detail"] else ""
            print(f"  seed {r['seed']:>5} {r['target']:28} {r['kind']:9} {first[:150]}")


if __name__ == "__main__":
    sys.exit(main())
