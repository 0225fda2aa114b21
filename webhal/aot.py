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
from webhal.codegen.python_extension import python_extension_source
from webhal.errors import CompileError, user_location
from webhal.ir.module import Module
from webhal.ir.printer import stmt_to_string
from webhal.ir.schedule import DeviceAPI
from webhal.lower import lower
from webhal.toolchain import find_emscripten, run_tool
from webhal.toolchain.emscripten import INSTALL_HINT

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")

def _target(target):
    from webhal.target import Target, get_target_from_environment
    return get_target_from_environment() if target is None else Target(target)


def lower_for_aot(pipeline, arguments, fn_name: str, target) -> Module:
    outputs = [f.function() for f in pipeline.outputs()]
    functions = pipeline.functions()
    module = lower(outputs, functions, target, fn_name, arguments,
                   tuple(getattr(pipeline, "_requirements", ())))
    declared = {id(a) for a in module.arguments}
    for obj in [*module.images.values(), *module.params.values()]:
        # An hl.Buffer that is no argument is compiled in, data and all (as Halide embeds it).
        if id(obj) not in declared and type(obj).__name__ != "Buffer":
            kind = type(obj).__name__  # ImageParam or Param
            raise CompileError(
                f"the pipeline reads {kind} {obj.name()}, which is not among the arguments "
                f"given to compile ({', '.join(a.name() for a in module.arguments) or 'none'}); "
                "add it to the argument list", user_location())
    return module


# Device API -> the extension of its code next to the object (the manifest adds ".json")
DEVICE_FILES = {DeviceAPI.WebGPU: ".wgsl", DeviceAPI.Vulkan: ".spv"}


def _write_device_code(compiled: codegen.Compiled, path_prefix: str) -> None:
    """The kernels' code and its binding manifest next to the object: <prefix>.wgsl and
    <prefix>.wgsl.json for WebGPU (what the web build's runtime loads), <prefix>.spv (binary
    SPIR-V) and <prefix>.spv.json for Vulkan."""
    for api, (code, manifest) in compiled.device.items():
        path = path_prefix + DEVICE_FILES[api]
        with open(path, "wb" if isinstance(code, bytes) else "w") as f:
            f.write(code)
        with open(path + ".json", "w") as f:
            json.dump(manifest, f, indent=2)


def _archive(objects: list[str], out: str, target) -> None:
    if os.path.exists(out):
        os.remove(out)
    if target.is_wasm:
        emar = find_emscripten().emar
        run_tool([*emar, "rcs", out, *objects], what="emar",
                 hint=INSTALL_HINT)
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
    """<prefix>.a, <prefix>.h and, with GPU kernels, their code and manifest (<prefix>.wgsl
    and <prefix>.wgsl.json, or <prefix>.spv and <prefix>.spv.json) of a pipeline compiled for
    the "library" purpose."""
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


def _stmt_format(fmt) -> str:
    name = getattr(fmt, "name", fmt)
    if name not in ("Text", "HTML"):
        raise CompileError(f"unknown statement format {fmt!r}: use hl.StmtOutputFormat.Text or "
                           ".HTML", user_location())
    return name


def lowered_stmt_text(module: Module, fmt="Text") -> str:
    """The lowered statement of `module` as text, or as an HTML page (glue/stmt_html.py)."""
    names = [a.name() for a in module.arguments] + [o.name for o in module.outputs]
    text = (f"module name={module.name}, target={module.target}\n"
            f"func {module.name}({', '.join(names)}) {{\n{stmt_to_string(module.body, 1)}}}\n")
    if _stmt_format(fmt) == "Text":
        return text
    from webhal.glue.stmt_html import stmt_page
    funcs = {f.name for f in module.outputs} | {n.name for n in _realized(module.body)}
    return stmt_page(f"{module.name} ({module.target})", text, funcs)


def _realized(s) -> list:
    from webhal.ir import stmt as st
    from webhal.ir.visitor import walk
    return [n for n in walk(s) if isinstance(n, st.Realize | st.Allocate)]


def compile_to_lowered_stmt(pipeline, filename, arguments, fmt="Text", target=None,
                            fn_name="pipeline") -> None:
    """Halide's (filename, arguments, fmt, target); webhal's older third argument, the
    function's name, is still taken (a string), and a Target there is the target."""
    if isinstance(fmt, str) and fmt not in ("Text", "HTML"):
        fn_name, fmt = fmt, "Text"
    elif fmt is not None and not hasattr(fmt, "name") and not isinstance(fmt, str):
        target, fmt = fmt if target is None else target, "Text"  # a Target in third place
    t = _target(target)
    module = lower_for_aot(pipeline, arguments, fn_name, t)
    with open(filename, "w") as f:
        f.write(lowered_stmt_text(module, fmt or "Text"))


# What compile_to writes, by Halide's OutputFileType name, and compile_to_file's extensions.
OUTPUT_FILES = {"object": ".o", "static_library": ".a", "c_header": ".h", "assembly": ".s",
                "llvm_assembly": ".ll", "bitcode": ".bc", "stmt": ".stmt",
                "stmt_html": ".stmt.html", "python_extension": ".py.cpp"}


def compile_to(pipeline, outputs: dict, arguments, fn_name, target=None) -> None:
    """Halide's compile_to: each {OutputFileType: path} written from one lowering."""
    wanted = {getattr(k, "name", k): os.fspath(v) for k, v in outputs.items()}
    for kind in wanted:
        if kind not in OUTPUT_FILES:
            raise CompileError(f"compile_to: webhal does not write OutputFileType.{kind}; it "
                               f"writes {', '.join(OUTPUT_FILES)}", user_location())
    t = _target(target)
    if "python_extension" in wanted and (t.is_wasm or t.has_gpu_feature()):
        raise CompileError(f"compile_to: a python_extension calls a pipeline for this machine's "
                           f"CPU; target {t} is not one (compile it for host, or use realize or "
                           "compile_to_callable for other targets)", user_location())
    module = lower_for_aot(pipeline, arguments, fn_name, t)
    library = code = None
    if wanted.keys() & {"object", "static_library"}:
        library = codegen.compile(module, "library")
    if wanted.keys() & {"assembly", "llvm_assembly", "bitcode"}:
        code = codegen.compile(module, "code")
    for kind, path in wanted.items():
        match kind:
            case "object":
                with open(path, "wb") as f:
                    f.write(emit_object(library.object, t))
                _write_device_code(library, os.path.splitext(path)[0])
            case "static_library":
                _write_device_code(library, os.path.splitext(path)[0])
                with tempfile.TemporaryDirectory(prefix="webhal-aot-") as tmp:
                    obj = os.path.join(tmp, f"{module.name}.o")
                    with open(obj, "wb") as f:
                        f.write(emit_object(library.object, t))
                    _archive([obj], os.path.abspath(path), t)
            case "c_header":
                with open(path, "w") as f:
                    f.write(pipeline_header(module.name, entry_arguments(module)))
            case "assembly":
                with open(path, "w") as f:
                    f.write(emit_assembly(code.object, t))
            case "llvm_assembly":
                with open(path, "w") as f:
                    f.write(str(code.object))
            case "bitcode":
                with open(path, "wb") as f:
                    f.write(code.object.as_bitcode())
            case "python_extension":
                with open(path, "w") as f:
                    f.write(python_extension_source(module.name, entry_arguments(module)))
            case "stmt" | "stmt_html":
                with open(path, "w") as f:
                    f.write(lowered_stmt_text(module, "Text" if kind == "stmt" else "HTML"))


def compile_to_file(pipeline, filename_prefix, arguments, fn_name=None, target=None) -> None:
    """Halide's compile_to_file: <prefix>.o (.obj for Windows) and <prefix>.h."""
    fn_name = fn_name or os.path.basename(filename_prefix)
    obj = ".obj" if _target(target).os == "windows" else ".o"  # as Halide names them
    compile_to(pipeline, {"object": filename_prefix + obj, "c_header": filename_prefix + ".h"},
               arguments, fn_name, target)


def compile_to_bitcode(pipeline, filename, arguments, fn_name=None, target=None) -> None:
    """LLVM bitcode of the pipeline alone (no runtime), as compile_to_llvm_assembly's text."""
    if fn_name is not None and not isinstance(fn_name, str):  # Halide's (file, args, target)
        fn_name, target = None, fn_name
    name = fn_name or os.path.splitext(os.path.basename(filename))[0]
    compile_to(pipeline, {"bitcode": filename}, arguments, name, target)
