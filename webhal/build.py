"""`webhal build FILE.py -g NAME -o DIR --target T[,T2,...] [name=value ...]`: an npm package
of a generator, one variant per target (webhal.glue.npm_package writes it).

FILE.py is run as a module (its `@hl.generator` classes register themselves); `name=value`
arguments set GeneratorParams, as Halide's generator command line takes them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

from rich.console import Console

from webhal.errors import CompileError, HalideError
from webhal.glue.npm_package import build_package
from webhal.lang.generator import GeneratorContext, registered_generators


def load_generators(path: str) -> dict[str, type]:
    """The generators FILE.py registers, by name."""
    if not os.path.isfile(path):
        raise CompileError(f"no generator file {path}")
    before = set(registered_generators())
    spec = importlib.util.spec_from_file_location(
        f"webhal_generators_{abs(hash(os.path.abspath(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    found = {n: c for n, c in registered_generators().items()
             if n not in before or getattr(c, "__module__", "") == module.__name__}
    if not found:
        raise CompileError(f"{path} registers no generator (decorate a class with "
                           "@hl.generator(name=...))")
    return found


def parse_params(items: list[str]) -> dict[str, str]:
    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CompileError(f"generator parameter {item!r} is not name=value")
        params[key] = value
    return params


def build(path: str, generator: str, directory: str, targets: list[str], *,
          params: dict[str, str] | None = None, name: str | None = None,
          quiet: bool = False, cache: str | None = "", suspend: str | None = None,
          c_sources: list[str] | tuple[str, ...] = (),
          c_exports: list[str] | tuple[str, ...] = ()) -> dict:
    """Build generator `generator` of `path` into an npm package in `directory`; `cache`,
    `suspend`, `c_sources` and `c_exports` as for webhal.glue.npm_package.build_package."""
    generators = load_generators(path)
    if generator not in generators:
        raise CompileError(f"{path} has no generator {generator!r}; it has "
                           f"{', '.join(sorted(generators))}")
    cls = generators[generator]
    params = params or {}
    cls(**params)  # reject unknown GeneratorParams before compiling anything

    warned = []

    def make(target):
        with GeneratorContext(target):
            g = cls(**params)
            pipeline = g.build_pipeline()
            if not g.using_autoscheduler() and not warned:
                from webhal.autoschedule import unscheduled_warning
                warning = unscheduled_warning(pipeline.functions(),
                                              [f.function() for f in pipeline.outputs()],
                                              generator)
                if warning:
                    warned.append(warning)
                    print(warning.replace("the generator command line", "webhal build's "
                                          "command line"), file=sys.stderr)
            return pipeline, g.inputs()

    more = dict(suspend=suspend, c_sources=c_sources, c_exports=c_exports)
    if quiet:
        return build_package(make, targets, directory, generator=generator,
                             generator_params=params, name=name, cache=cache, **more)
    console = Console(stderr=True, highlight=False)
    with console.status(f"webhal build {generator}") as status:
        def progress(message: str) -> None:
            if message.endswith("..."):
                status.update(f"webhal build {generator}: {message}")
            else:
                console.print(f"webhal build {generator}: {message}", soft_wrap=True)

        return build_package(make, targets, directory, generator=generator,
                             generator_params=params, name=name, cache=cache,
                             progress=progress, **more)


def _with_autoscheduler(params: dict[str, str], name: str | None) -> dict[str, str]:
    """--autoschedule[=NAME]: the generator's autoscheduler=NAME GeneratorParam, unless the
    parameters already name one."""
    if name:
        params.setdefault("autoscheduler", name)
    return params


def main(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    targets = [t for t in args.target.split(",") if t]
    try:
        meta = build(args.file, args.generator, args.output, targets,
                     params=_with_autoscheduler(parse_params(args.params),
                                                getattr(args, "autoschedule", None)),
                     name=args.name, quiet=args.quiet,
                     suspend=None if args.suspend == "auto" else args.suspend,
                     c_sources=args.c_source or (), c_exports=args.export or ())
    except HalideError as e:
        print(f"webhal build: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        variants = ", ".join(f"{v['name']} ({v['target']})" for v in meta["variants"])
        print(f"built {meta['name']} in {args.output} ({time.perf_counter() - start:.1f} s): "
              f"{variants}")
    return 0
