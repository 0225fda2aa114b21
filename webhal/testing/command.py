"""`webhal test FILE.py -g NAME [--runtime R,...] [--target T,...] [--junit F] [--shard I/N]`:
build the generator, run it on every runtime and target asked for, compare each result with
the reference evaluator, print a table; the exit status is 1 when any case fails."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from rich.console import Console

from webhal.build import parse_params
from webhal.errors import HalideError
from webhal.testing import harness, report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the Python file defining the generator")
    parser.add_argument("-g", "--generator", required=True, help="the generator's name")
    parser.add_argument("--runtime", default=",".join(harness.RUNTIMES),
                        help="comma-separated runtimes (default: %(default)s)")
    parser.add_argument("--target",
                        help="comma-separated Halide targets (default: "
                             f"{','.join(harness.DEFAULT_TARGETS)}; webgpu only for generators "
                             "that schedule loops on the GPU)")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    parser.add_argument("--shard", metavar="I/N", help="run only the I-th of N slices of cases")
    parser.add_argument("--seed", type=int, default=0, help="of the random inputs")
    parser.add_argument("--size", default="64x48", help="x and y of random inputs (64x48)")
    parser.add_argument("--tolerance", type=float,
                        help="largest difference allowed (default: 0 for integers, 1e-4 "
                             "relative for floats, or the generator's test_tolerance)")
    parser.add_argument("--samples", type=int, default=3, help="timed runs per case")
    parser.add_argument("params", nargs="*", metavar="name=value", help="GeneratorParams")


def main(args: argparse.Namespace) -> int:
    from webhal.toolchain.process import private_runtime_dir

    if not os.path.isdir(os.environ.get("XDG_RUNTIME_DIR", "")):
        os.environ["XDG_RUNTIME_DIR"] = private_runtime_dir()  # quiet wgpu-native and Vulkan
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 132)
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        subject = harness.Subject(f"{args.file}:{args.generator}", parse_params(args.params),
                                  seed=args.seed, size=size, tolerance=args.tolerance)
        targets = [t for t in (args.target or "").split(",") if t]
        if not targets:
            gpu = subject.schedules_gpu()
            targets = [t for t in harness.DEFAULT_TARGETS if gpu or "webgpu" not in t]
        cases = harness.plan([r for r in args.runtime.split(",") if r], targets)
        if not cases:
            raise HalideError(f"no case: runtimes {args.runtime} run none of "
                              f"{', '.join(targets)}")
        if args.shard:
            cases = harness.shard(cases, args.shard)
    except (HalideError, ValueError) as e:
        print(f"webhal test: {e}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="webhal-test-") as work, \
            console.status("webhal test") as status:
        def progress(case):
            status.update(f"webhal test {subject.name}: {case.id} ({case.target})")

        outcomes = harness.run_cases(subject, cases, work, samples=args.samples,
                                     progress=progress)
    title = f"webhal test {subject.name}" + (f" (shard {args.shard})" if args.shard else "")
    console.print(report.table(title, outcomes))
    for line in report.failures(outcomes):
        console.print(f"[red]FAIL[/red] {line}", soft_wrap=True)
    if args.junit:
        report.write_junit(args.junit, f"webhal.{subject.name}", outcomes)
        console.print(f"JUnit report: {args.junit}")
    passed = sum(o.ok for o in outcomes)
    console.print(f"{passed} of {len(outcomes)} cases passed")
    return 0 if passed == len(outcomes) else 1
