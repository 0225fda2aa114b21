"""hl.main(): a Python file of generators run as Halide's generator command line,

    python my_generators.py -g NAME -o DIR [-f FUNCTION] [-n FILE_BASE] [-e EMITS]
                            target=TARGET [param=value ...]

writing DIR/FILE_BASE.<ext> for each of EMITS (Halide's OutputFileType names, comma separated;
`h` and `o` are c_header and object; by default c_header and static_library) through
Pipeline.compile_to. One target per run: Halide's multi-target builds are webhal's
`webhal build --target a,b` npm packages.
"""

from __future__ import annotations

import os
import sys

from webhal.errors import CompileError
from webhal.lang.generator import GeneratorContext, registered_generators
from webhal.target import Target

USAGE = """\
usage: python FILE.py -g GENERATOR_NAME -o OUTPUT_DIR [-f FUNCTION_NAME] [-n FILE_BASE_NAME]
                      [-e EMIT_OPTIONS] target=TARGET [generator_param=value ...]

 -e  a comma-separated list of files to emit: {emits} (h and o stand for c_header and
     object); by default c_header,static_library
"""

_ALIASES = {"h": "c_header", "o": "object"}
_IGNORED = {"-d", "-p", "-s", "-t", "-v"}  # Halide flags that change nothing in webhal


def _fail(message: str):
    from webhal.aot import OUTPUT_FILES
    sys.stderr.write(f"Error: {message}\n\n" + USAGE.format(emits=", ".join(OUTPUT_FILES)))
    raise CompileError(f"Generator failed: {message}")


def main(argv: list[str] | None = None) -> None:
    """Run the generator command line on sys.argv[1:] (or `argv`); raises CompileError (after
    printing the usage to stderr) on a mistake, as Halide's hl.main raises RuntimeError."""
    from webhal.aot import OUTPUT_FILES
    args = list(sys.argv[1:] if argv is None else argv)
    flags: dict[str, str] = {}
    params: dict[str, str] = {}
    while args:
        a = args.pop(0)
        if a.startswith("-"):
            if a in ("-h", "--help"):
                sys.stdout.write(USAGE.format(emits=", ".join(OUTPUT_FILES)))
                return
            if not args:
                _fail(f"flag {a} needs a value")
            flags[a] = args.pop(0)
        elif "=" in a:
            key, value = a.split("=", 1)
            params[key] = value
        else:
            _fail(f"unknown argument {a!r}: flags are -g, -o, -f, -n, -e; others are name=value")
    generators = registered_generators()
    for flag in flags:
        if flag == "-r":
            _fail("-r (a standalone runtime): webhal links its runtime into every library")
        if flag not in ("-g", "-o", "-f", "-n", "-e") and flag not in _IGNORED:
            _fail(f"unknown flag {flag}")
    name = flags.get("-g")
    if name is None:
        _fail("-g <name> must be given; the generators are: " + ", ".join(sorted(generators)))
    if name not in generators:
        _fail(f"no generator {name}; the generators are: {', '.join(sorted(generators))}")
    if "-o" not in flags:
        _fail("-o <output directory> must be given")
    target = params.pop("target", None)
    if not target:
        _fail("target=<target string> must be given (e.g. target=host or "
              "target=wasm-32-wasmrt-wasm_simd128)")
    if "," in target:
        _fail(f"target={target}: one target per run in webhal (for variants of several "
              "targets, use `webhal build --target a,b`)")
    emits = [_ALIASES.get(e.strip(), e.strip())
             for e in flags.get("-e", "c_header,static_library").split(",") if e.strip()]
    unknown = [e for e in emits if e not in OUTPUT_FILES]
    if unknown:
        _fail(f"webhal does not emit {', '.join(unknown)}; it emits {', '.join(OUTPUT_FILES)}")
    function = flags.get("-f", name)
    # As Halide's: files are named after -n, else the function (its last C++ namespace part).
    base = flags.get("-n", function.split("::")[-1])
    directory = flags["-o"]
    os.makedirs(directory, exist_ok=True)
    with GeneratorContext(Target(target)):
        g = generators[name](**params)
        pipeline = g.build_pipeline()
        if not g.using_autoscheduler():
            from webhal.autoschedule import unscheduled_warning
            warning = unscheduled_warning(pipeline.functions(),
                                          [f.function() for f in pipeline.outputs()], name)
            if warning:
                sys.stderr.write(warning + "\n")
        outputs = {e: os.path.join(directory, base + OUTPUT_FILES[e]) for e in emits}
        pipeline.compile_to(outputs, g.inputs(), function.split("::")[-1], Target(target))
