"""The `webhal` command: `webhal doctor [--json]`, `webhal demo`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _doctor(args: argparse.Namespace) -> int:
    from webhal import doctor

    return doctor.main(as_json=args.json)


def _demo(args: argparse.Namespace) -> int:
    from webhal import demo

    return demo.run(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="webhal", description="Halide-style pipelines compiled to WebAssembly and WebGPU.")
    commands = parser.add_subparsers(dest="command", required=True)

    doctor = commands.add_parser(
        "doctor", help="check every tool and runtime webhal uses, and say how to install any "
                       "that is missing")
    doctor.add_argument("--json", action="store_true", help="print a machine-readable report")
    doctor.set_defaults(handler=_doctor)

    demo = commands.add_parser("demo", help="show what this machine can build and run")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `webhal` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
