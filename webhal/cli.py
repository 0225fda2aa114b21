"""The `webhal` command: `webhal doctor [--json]`, `webhal demo`, `webhal build`, `webhal test`,
`webhal serve`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _doctor(args: argparse.Namespace) -> int:
    from webhal import doctor

    return doctor.main(as_json=args.json, every=args.all)


def _demo(args: argparse.Namespace) -> int:
    from webhal import demo

    return demo.run(args)


def _build(args: argparse.Namespace) -> int:
    from webhal import build

    return build.main(args)


def _test(args: argparse.Namespace) -> int:
    from webhal.testing import command

    return command.main(args)


def _serve(args: argparse.Namespace) -> int:
    from webhal.errors import ToolchainError
    from webhal.runners.browser import StaticServer

    try:
        server = StaticServer(args.directory, port=args.port, host=args.host)
    except ToolchainError as e:
        print(f"webhal serve: {e}", file=sys.stderr)
        return 1
    with server:
        print(f"serving {args.directory} at {server.url}/ (cross-origin isolated; Ctrl-C stops)",
              flush=True)
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            print(f"note: {args.host} is reachable from other machines", file=sys.stderr)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="webhal", description="Halide-style pipelines compiled to WebAssembly and WebGPU.")
    commands = parser.add_subparsers(dest="command", required=True)

    doctor = commands.add_parser(
        "doctor", help="check every tool and runtime webhal uses, and say how to install any "
                       "that is missing")
    doctor.add_argument("--json", action="store_true", help="print a machine-readable report")
    doctor.add_argument("--all", action="store_true",
                        help="exit 1 when any capability is missing, not only what `webhal "
                             "build` needs (a missing runtime is otherwise a warning)")
    doctor.set_defaults(handler=_doctor)

    demo = commands.add_parser(
        "demo", help="build the demos' web pages, run them in headless Chromium on every "
                     "variant and check them (the main job)")
    demo.add_argument("names", nargs="*", metavar="NAME", help="demos (default: all)")
    demo.add_argument("--out", help="where the pages go (default: dist/demos)")
    demo.add_argument("--serve", action="store_true", help="serve the pages instead")
    demo.add_argument("--port", type=int, default=8000, help="for --serve (default: 8000)")
    demo.set_defaults(handler=_demo)

    build = commands.add_parser(
        "build", help="compile a generator into an npm package (one variant per target)")
    build.add_argument("file", help="the Python file defining the generator")
    build.add_argument("-g", "--generator", required=True, help="the generator's name")
    build.add_argument("-o", "--output", required=True, help="the package's folder")
    build.add_argument("--target", default="wasm-32-wasmrt-wasm_simd128,wasm-32-wasmrt",
                       help="comma-separated Halide target strings, one variant each "
                            "(default: %(default)s)")
    build.add_argument("--name", help="the npm package name (default: the generator's)")
    build.add_argument("--quiet", action="store_true", help="print nothing but errors")
    build.add_argument("--suspend", choices=("auto", "asyncify", "jspi"), default="auto",
                       help="how GPU variants wait for readbacks inside the pipeline (auto: "
                            "ASYNCIFY only where the host code reads a kernel's result)")
    build.add_argument("--c-source", action="append", metavar="FILE.c",
                       help="C code of your own linked into every variant (repeatable); on "
                            "the webgpu variant it may use webgpu.h on the package's device")
    build.add_argument("--export", action="append", metavar="NAME",
                       help="a function of the C sources to call from JavaScript as "
                            "p.module._NAME (repeatable)")
    build.add_argument("--autoschedule", nargs="?", const="Webhal", metavar="NAME",
                       help="schedule the generator with webhal's autoscheduler (or one of "
                            "Halide's names for it): its autoscheduler=NAME GeneratorParam; "
                            "generate() must give estimates (set_estimates)")
    build.add_argument("params", nargs="*", metavar="name=value",
                       help="GeneratorParams, as Halide's generator command line takes them")
    build.set_defaults(handler=_build)

    test = commands.add_parser(
        "test", help="run a generator on every runtime (host, wgpu, wasmtime, Node, headless "
                     "Chromium) and compare each result with the reference")
    from webhal.testing.command import add_arguments
    add_arguments(test)
    test.set_defaults(handler=_test)

    serve = commands.add_parser(
        "serve", help="serve a folder (a built package, a page) to a browser, with the headers "
                      "wasm threads need")
    serve.add_argument("directory")
    serve.add_argument("--port", type=int, default=8000, help="default: %(default)s; 0 picks one")
    serve.add_argument("--host", default="127.0.0.1", help="default: %(default)s (this machine)")
    serve.set_defaults(handler=_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `webhal` console script; returns the exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # GeneratorParams (name=value) may follow the options, which argparse cannot take as the
    # positional list it has already closed.
    if args.command in ("build", "test") and all("=" in e and not e.startswith("-") for e in extra):
        args.params = [*args.params, *extra]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
