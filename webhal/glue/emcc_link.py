"""The Emscripten link of one npm package variant: emcc's response file and the --pre-js,
rendered from templates/emcc_link.rsp.j2 and templates/emcc_pre.js.j2 with the flags that
webhal.toolchain.emcc_flags picks for the Emscripten version in use.

A GPU variant whose host code reads a kernel's result before the pipeline ends must wait for
WebGPU's mapAsync inside the entry function: it is linked with ASYNCIFY (or JSPI), and only the
functions on the call path from the entry to `webhal_gpu_copy_to_host` are instrumented. Every
other GPU variant reads its outputs back after the entry returns and needs no suspension.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass

import llvmlite.binding as binding

from webhal.errors import CompileError
from webhal.glue.web_page import environment
from webhal.target import Target
from webhal.toolchain import (
    EmscriptenCapabilities,
    JsModule,
    emcc,
    emcc_flags,
    format_version,
    suspend_flags,
)

READBACK = "webhal_gpu_copy_to_host"
POOL_SIZE = "Module.webhalPoolSize"  # Emscripten's PTHREAD_POOL_SIZE, set by runtime_js
_C_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
JS_LIBRARY = "library_webhal_gpu.js"
PRE_JS = "webhal_pre.js"
EXTERN_PRE_JS = "webhal_extern_pre.js"
RESPONSE_FILE = "link.rsp"


@dataclass(frozen=True)
class LinkGlue:
    """What emcc is run with for one variant: file name -> text, and the files it writes."""

    files: dict[str, str]
    outputs: tuple[str, ...]   # relative to the folder emcc runs in


def link_glue(target: Target, capabilities: EmscriptenCapabilities, function: str, *,
              suspend: str | None = None, suspend_path: tuple[str, ...] = (),
              thread_pool_size: int = 4, c_sources: tuple[str, ...] = (),
              c_exports: tuple[str, ...] = ()) -> LinkGlue:
    """The response file, pre-js and (GPU variants) js-library that link `function`'s static
    library (`<function>.a`, in the folder emcc runs in) into `<function>.mjs` + `.wasm`
    (+ `.worker.js` with wasm_threads). suspend: None, "asyncify" or "jspi"; suspend_path:
    the wasm functions from the entry to the readback (asyncify instruments only these).
    c_sources: the user's own C files (in that folder) linked in, with `c_exports` callable
    from JavaScript; on GPU variants they get Emscripten's webgpu.h bindings, the package's
    GPUDevice (emscripten_webgpu_get_device) and WEBHAL_WEBGPU defined."""
    threads = target.has_feature("wasm_threads")
    gpu = target.has_feature("webgpu")
    for name in c_exports:
        if not _C_NAME.match(name) or name in (function, "malloc", "free"):
            raise CompileError(f"cannot export C function {name!r}: give the name of a "
                               f"function of the C sources (not {function}, malloc or free)")
    # Web only where Node need not run Emscripten's own loader (runtime_js reads the .wasm):
    # pthread workers in Node do, so the threads variant keeps Node's code.
    places = ["web", "worker", "node"] if threads else ["web"]
    runtime = ["HEAPU8", *(["ccall"] if suspend == "asyncify" else [])]
    # The threads variant sets its thread count at create(): Halide's halide_set_num_threads.
    # p.profile() reads the profiler's report (target feature profile).
    profiler = ["webhal_profiler_report_text", "halide_profiler_reset"] \
        if target.has_feature("profile") else []
    exported = (function, "malloc", "free", *(["halide_set_num_threads"] if threads else []),
                *profiler, *c_exports)
    module = JsModule(f"create_{function}", exported, tuple(runtime), es6=True)
    flags = emcc_flags(target, capabilities, environment=places, module=module,
                       gpu_bindings=False, thread_pool_size=thread_pool_size,
                       grow_shared_memory=True) + ["-sFILESYSTEM=0"]
    if "node" in places:
        # A library must not take over the process: no uncaughtException/unhandledRejection
        # listeners of Emscripten's (one pair per create(), rethrowing the app's own errors).
        flags += ["-sNODEJS_CATCH_EXIT=0", "-sNODEJS_CATCH_REJECTION=0"]
    bindings = webgpu_h_bindings(capabilities, target) if gpu and c_sources else None
    if bindings:
        flags += [capabilities.flag(bindings), "-DWEBHAL_WEBGPU=1"]
    if threads:
        # The pool is as large as create({ threads }) asks (less the calling thread): an
        # expression Emscripten evaluates when the module starts (--pre-js sets it).
        flags = [f"-sPTHREAD_POOL_SIZE={POOL_SIZE}" if f.startswith("-sPTHREAD_POOL_SIZE=")
                 else f for f in flags]
        # No `import.meta` in the output: Emscripten's workers are made by runtime_js through
        # index.js (`new Worker(new URL(...), { type: "module" })`, which bundlers follow),
        # never from a URL Emscripten computes (--pre-js routes `new Worker` there).
        flags.append("-sUSE_ES6_IMPORT_META=0")
    if suspend is not None:
        flags += suspend_flags(capabilities, target, suspend, imports=[READBACK],
                               exports=[function], only=suspend_path)
    settings = dict(function=function, target=str(target), node=threads, threads=threads,
                    suspend=suspend,
                    emscripten=format_version(capabilities.version),
                    webgpu_h=bindings is not None, stale_webgpu_h=bindings == "use_webgpu")
    env = environment()
    pre_js = env.get_template("emcc_pre.js.j2").render(**settings)
    outputs = [f"{function}.mjs", f"{function}.wasm"]
    if threads and "pthread_worker_js" in capabilities:
        outputs += [f"{function}.worker.js", f"{function}.worker.mjs"]
    rsp = env.get_template("emcc_link.rsp.j2").render(
        flags=flags, pre_js=PRE_JS, js_library=JS_LIBRARY if gpu else None,
        extern_pre_js=EXTERN_PRE_JS if "node" in places else None,
        inputs=[f"{function}.a", *c_sources], output=outputs[0])
    files = {RESPONSE_FILE: rsp, PRE_JS: pre_js}
    if "node" in places:
        files[EXTERN_PRE_JS] = env.get_template("emcc_extern_pre.js.j2").render(**settings)
    if gpu:
        files[JS_LIBRARY] = env.get_template("emcc_library.js.j2").render(**settings)
    return LinkGlue(files, tuple(outputs))


def webgpu_h_bindings(capabilities: EmscriptenCapabilities, target: Target) -> str:
    """The capability by which C code reaches webgpu.h: Dawn's emdawnwebgpu from the version
    that has it (it is downloaded while linking), else Emscripten's own -sUSE_WEBGPU."""
    for name in ("emdawnwebgpu", "use_webgpu"):
        if name in capabilities:
            return name
    raise CompileError(f"target {target}: Emscripten {format_version(capabilities.version)} "
                       "has no webgpu.h bindings for the C sources")


def link(glue: LinkGlue, folder: str, destination: str) -> list[str]:
    """Write the glue into `folder` (which holds the static library), run emcc there and move
    what it wrote into `destination`; returns the moved files' names."""
    for name, text in glue.files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    emcc(["@" + RESPONSE_FILE], cwd=folder)
    for name in glue.outputs:
        if name.endswith(".worker.mjs"):
            classic = os.path.join(folder, name.removesuffix(".mjs") + ".js")
            with open(classic, encoding="utf-8") as f:
                text = module_worker(f.read(), name.removesuffix(".worker.mjs"))
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
    os.makedirs(destination, exist_ok=True)
    for name in glue.outputs:
        shutil.move(os.path.join(folder, name), os.path.join(destination, name))
    return list(glue.outputs)


# How Emscripten before 3.1.58 has its pthread worker script load the module: by a URL the main
# thread sends, else the file beside it.
_WORKER_IMPORT = re.compile(r'\(e\.data\.urlOrBlob\?import\(e\.data\.urlOrBlob\):'
                            r'import\("\./(?P<file>[^"]+)"\)\)')


def module_worker(classic: str, function: str) -> str:
    """Emscripten's pthread worker script (`<function>.worker.js`, a classic script that
    import()s the module by URL) as an ES module that imports `<function>.mjs` statically:
    `new Worker(new URL(...), { type: "module" })` of it is what Vite and webpack bundle, with
    the module, and what a plain page loads as is. Node keeps the classic script.

    CompileError when the script does not load the module as Emscripten 3.1.x does."""
    found = list(_WORKER_IMPORT.finditer(classic))
    if len(found) != 1 or found[0]["file"] != f"{function}.mjs":
        raise CompileError(f"Emscripten's {function}.worker.js does not import "
                           f"{function}.mjs as webhal expects (an Emscripten other than "
                           "3.1.x?): the threads variant cannot get an ES-module worker")
    body = classic[:found[0].start()] + "Promise.resolve({default:webhalFactory})" + \
        classic[found[0].end():]
    # `require` bound here: its Node branch never runs in a module worker, and bundlers must
    # not resolve what it names.
    return (f"// {function}'s pthread worker as an ES module (webhal.glue.emcc_link)\n"
            f"import webhalFactory from './{function}.mjs';\nvar require;\n" + body)


def suspend_path(module: binding.ModuleRef, entry: str) -> tuple[str, ...]:
    """The functions defined in `module` on a direct-call path from `entry` to the readback
    import, in a stable order; empty when the entry never reads a kernel's result back.

    CompileError when the readback is reached only through a function pointer (a parallel
    loop's body): instrumenting the thread pool for ASYNCIFY is not supported."""
    calls: dict[str, set[str]] = {}     # direct callees
    refers: dict[str, set[str]] = {}    # functions passed as pointers (parallel loop bodies)
    defined = {fn.name for fn in module.functions}
    for fn in module.functions:
        if fn.is_declaration:
            continue
        callees, pointers = calls.setdefault(fn.name, set()), refers.setdefault(fn.name, set())
        for block in fn.blocks:
            for inst in block.instructions:
                operands = list(inst.operands)
                if inst.opcode in ("call", "invoke") and operands and operands[-1].name:
                    callees.add(operands[-1].name)
                    operands = operands[:-1]
                pointers.update(o.name for o in operands if o.name in defined)
    reaches: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in reaches and (READBACK in callees or callees & reaches):
                reaches.add(name)
                changed = True

    def closure(edges) -> set[str]:
        seen, stack = set(), [entry]
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                stack.extend(n for e in edges for n in e.get(name, ()))
        return seen
    path = closure([calls]) & reaches
    stray = (closure([calls, refers]) & reaches) - path
    if stray:
        raise CompileError(f"the GPU readback in {', '.join(sorted(stray))} is not on a direct "
                           f"call path from {entry} (a parallel loop reads a kernel's result): "
                           "schedule that loop serially, or its consumer on the GPU")
    return tuple(sorted(path))
