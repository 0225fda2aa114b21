"""Ahead-of-time output with Halide's names: objects, static libraries, headers, assembly, LLVM
IR and the lowered statement. The entry point is `int name(halide_buffer_t *..., scalars...,
halide_buffer_t *outputs...)`; its C declaration is in the header (codegen/c_header.py), which
carries the types of webhal/include/HalideRuntime.h."""

from __future__ import annotations

import json
import os
import tempfile

from webhal import codegen
from webhal.codegen.c_header import pipeline_header
from webhal.codegen.llvm.module import arguments as entry_arguments
from webhal.codegen.llvm.module import emit_assembly, emit_object
from webhal.errors import CompileError, user_location
from webhal.ir.module import Module
from webhal.ir.printer import stmt_to_string
from webhal.ir.schedule import DeviceAPI
from webhal.lower import lower
from webhal.toolchain import find_emscripten, run_tool

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")

def _target(target):
    from webhal.target import Target, get_target_from_environment
    return get_target_from_environment() if target is None else Target(target)


def lower_for_aot(pipeline, arguments, fn_name: str, target) -> Module:
    outputs = [f.function() for f in pipeline.outputs()]
    functions = pipeline.functions()
    module = lower(outputs, functions, target, fn_name, arguments)
    declared = {id(a) for a in module.arguments}
    for obj in [*module.images.values(), *module.params.values()]:
        if id(obj) not in declared:
            kind = type(obj).__name__  # Buffer, ImageParam or Param
            raise CompileError(
                f"the pipeline reads {kind} {obj.name()}, which is not among the arguments "
                f"given to compile ({', '.join(a.name() for a in module.arguments) or 'none'}); "
                + ("an hl.Buffer cannot be embedded in compiled output: use an hl.ImageParam"
                   if kind == "Buffer" else "add it to the argument list"), user_location())
    return module


def _write_device_code(compiled: codegen.Compiled, path_prefix: str) -> None:
    """<prefix>.wgsl and <prefix>.wgsl.json (the binding manifest) when the pipeline has WebGPU
    kernels: what the web build's runtime loads next to the object."""
    if DeviceAPI.WebGPU not in compiled.device:
        return
    wgsl, manifest = compiled.device[DeviceAPI.WebGPU]
    with open(path_prefix + ".wgsl", "w") as f:
        f.write(wgsl)
    with open(path_prefix + ".wgsl.json", "w") as f:
        json.dump(manifest, f, indent=2)


def _archive(objects: list[str], out: str, target) -> None:
    if os.path.exists(out):
        os.remove(out)
    if target.is_wasm:
        emar = find_emscripten().emar
        run_tool([*emar, "rcs", out, *objects], what="emar",
                 hint="install emscripten (apt-get install emscripten) or run `make setup`")
    else:
        run_tool(["ar", "rcs", out, *objects], what="ar", hint="apt-get install binutils")


def compile_to_object(pipeline, filename, arguments, fn_name, target=None) -> None:
    t = _target(target)
    compiled = codegen.compile(lower_for_aot(pipeline, arguments, fn_name, t), "library")
    with open(filename, "wb") as f:
        f.write(emit_object(compiled.object, t))
    _write_device_code(compiled, os.path.splitext(filename)[0])


def compile_to_header(pipeline, filename, arguments, fn_name, target=None) -> None:
    t = _target(target)
    module = lower_for_aot(pipeline, arguments, fn_name, t)
    with open(filename, "w") as f:
        f.write(pipeline_header(module.name, entry_arguments(module)))


def compile_to_static_library(pipeline, filename_prefix, arguments, fn_name=None,
                              target=None) -> None:
    """Write <prefix>.a (the pipeline and webhal's runtime; for wasm an archive emcc and wasm-ld
    accept) and <prefix>.h."""
    t = _target(target)
    fn_name = fn_name or os.path.basename(filename_prefix)
    module = lower_for_aot(pipeline, arguments, fn_name, t)
    write_static_library(codegen.compile(module, "library"), filename_prefix)


def write_static_library(compiled: codegen.Compiled, filename_prefix: str) -> None:
    """<prefix>.a, <prefix>.h and, with WebGPU kernels, <prefix>.wgsl and <prefix>.wgsl.json
    of a pipeline compiled for the "library" purpose."""
    module = compiled.module
    with open(filename_prefix + ".h", "w") as f:
        f.write(pipeline_header(module.name, compiled.arguments))
    _write_device_code(compiled, filename_prefix)
    with tempfile.TemporaryDirectory(prefix="webhal-aot-") as tmp:
        obj = os.path.join(tmp, f"{module.name}.o")
        with open(obj, "wb") as f:
            f.write(emit_object(compiled.object, module.target))
        _archive([obj], os.path.abspath(filename_prefix + ".a"), module.target)


def compile_to_assembly(pipeline, filename, arguments, fn_name, target=None) -> None:
    t = _target(target)
    compiled = codegen.compile(lower_for_aot(pipeline, arguments, fn_name, t), "code")
    with open(filename, "w") as f:
        f.write(emit_assembly(compiled.object, t))


def compile_to_llvm_assembly(pipeline, filename, arguments, fn_name, target=None) -> None:
    t = _target(target)
    compiled = codegen.compile(lower_for_aot(pipeline, arguments, fn_name, t), "code")
    with open(filename, "w") as f:
        f.write(str(compiled.object))


def compile_to_lowered_stmt(pipeline, filename, arguments, fn_name="pipeline",
                            target=None) -> None:
    t = _target(target)
    module = lower_for_aot(pipeline, arguments, fn_name, t)
    names = [a.name() for a in module.arguments] + [o.name for o in module.outputs]
    with open(filename, "w") as f:
        f.write(f"module name={fn_name}, target={t}\n"
                f"func {fn_name}({', '.join(names)}) {{\n{stmt_to_string(module.body, 1)}}}\n")
