"""npm packages from generators: one variant per target, each the pipeline's static library
linked by emcc into an ES-module factory and its .wasm, plus index.js (the variants and the
arguments, read by runtime_js/pipeline.js), index.d.ts, package.json and a README, rendered
from templates/npm_*.j2.

The package is written to a temporary folder beside the destination and moved into place only
when every variant has linked, so a failed build leaves no half-written package behind.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import pathlib
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from webhal import codegen
from webhal.aot import lower_for_aot, write_static_library
from webhal.codegen.llvm.module import arguments as entry_arguments
from webhal.errors import CompileError, ToolchainError
from webhal.glue import npm_arguments, package_data
from webhal.glue.emcc_link import LinkGlue, link, link_glue, suspend_path
from webhal.glue.web_page import environment
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.printer import stmt_to_string
from webhal.ir.schedule import DeviceAPI
from webhal.ir.visitor import walk
from webhal.target import Target
from webhal.toolchain import find_emscripten
from webhal.toolchain.emcc_flags import SUSPENDERS

# The order variants are tried in at load time: the fastest first.
VARIANT_ORDER = ("webgpu", "threads", "simd", "scalar")
_RUNTIME_FILES = ("abi.js", "buffers.js", "gpu_images.js", "image_data.js", "pipeline.js",
                  "webgpu.js", "profile.js")
_NPM_NAME = re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$")
_TS_ARRAYS = npm_arguments.ARRAYS


@dataclass(frozen=True)
class Variant:
    name: str      # "webgpu", "threads", "simd", "scalar"
    target: Target
    js: str        # paths inside the package
    wasm: str
    suspend: str | None = None   # how the entry waits for a GPU readback, if it must
    device_arguments: list[str] = field(default_factory=list)  # may be GPUBuffers


def variant_name(target: Target) -> str:
    """The name a target's build has in a package."""
    if not target.is_wasm:
        raise ToolchainError(f"target {target}: npm packages hold WebAssembly builds",
                             hint="use a wasm-32-wasmrt[-wasm_simd128] target")
    if target.has_gpu_feature():
        if not target.has_feature("webgpu"):
            raise ToolchainError(f"target {target}: npm packages reach GPUs through WebGPU",
                                 hint="use the webgpu feature")
        return "webgpu"
    if target.has_feature("wasm_threads"):
        return "threads"
    return "simd" if target.has_feature("wasm_simd128") else "scalar"


def npm_name(name: str) -> str:
    """`name` as an npm package name (lower case; other characters become dashes)."""
    scope, _, base = name.rpartition("/") if name.startswith("@") else ("", "", name)
    base = re.sub(r"[^a-z0-9._~-]+", "-", base.lower()).strip("-._~") or "pipeline"
    return f"{scope}/{base}" if scope else base


def c_identifier(name: str) -> str:
    """`name` as a C function name."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return ident if re.match(r"[A-Za-z_]", ident) else "_" + ident


def build_package(make: Callable[[Target], tuple], targets: Sequence[str | Target],
                  directory: str, *, generator: str, generator_params: dict | None = None,
                  name: str | None = None, version: str = "0.1.0",
                  cache: str | None = "", progress: Callable[[str], None] = lambda _: None,
                  suspend: str | None = None, c_sources: Sequence[str] = (),
                  c_exports: Sequence[str] = ()) -> dict:
    """Build an npm package in `directory` (replaced if it exists) with one variant per target.

    make(target) returns the (Pipeline, inputs) to compile for that target: a generator's
    pipeline, built under GeneratorContext(target) (see webhal.build). `generator` names it
    (the package's default name, the entry function's), `generator_params` are recorded.
    `progress` receives what is being done (ending in "...") and what was done.
    Each variant is kept in `cache` (default: default_cache_dir(); None: no cache) under a
    digest of everything it depends on, so an unchanged generator is not compiled again.
    suspend ("asyncify" or "jspi") makes GPU variants wait for readbacks inside the entry
    function even when only outputs are read back (by default only pipelines whose host code
    reads a kernel's result use ASYNCIFY).
    c_sources are C files linked into every variant, their functions `c_exports` callable as
    `p.module._name`; on the webgpu variant they may use webgpu.h on the package's device
    (emscripten_webgpu_get_device; WEBHAL_WEBGPU is defined there).
    Returns the package's meta data (what index.js holds, without the loaders)."""
    if suspend not in (None, *SUSPENDERS):
        raise ValueError(f"suspend must be None or one of {SUSPENDERS}, not {suspend!r}")
    cache = default_cache_dir() if cache == "" else cache
    params = dict(generator_params or {})
    package = name or npm_name(generator)
    if not _NPM_NAME.match(package) or len(package) > 214:
        raise CompileError(f"{package!r} is not a valid npm package name (lower case letters, "
                           "digits and - . _ ~, optionally @scope/)")
    targets = [t if isinstance(t, Target) else Target(t) for t in targets]
    names = [variant_name(t) for t in targets]
    if len(set(names)) != len(names):
        raise ToolchainError(f"two targets make the same variant ({', '.join(names)})",
                             hint="give one target per variant (webgpu, threads, simd, scalar)")
    function = c_identifier(generator)
    sources = _read_c_sources(c_sources)
    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    staging = _new_folder(parent, ".webhal-build-")
    try:
        arguments, variants = None, []
        for target, vname in sorted(zip(targets, names), key=lambda p: VARIANT_ORDER.index(p[1])):
            progress(f"{vname}: building for {target}...")
            pipeline, inputs = make(target)
            args, about, reused = _build_variant(pipeline, inputs, target, function,
                                                 staging, vname, cache, suspend, sources,
                                                 tuple(c_exports))
            progress(f"{vname}: {'unchanged, from the cache' if reused else 'compiled'} "
                     f"({target})")
            if arguments is not None and args != arguments:
                raise CompileError(f"generator {generator} has other arguments for target "
                                   f"{target}")
            arguments = args
            variants.append(Variant(vname, target, f"{vname}/{function}.mjs",
                                    f"{vname}/{function}.wasm", **about))
        progress("writing index.js, index.d.ts, package.json...")
        meta = _write_package(staging, package, version, generator, params, function,
                              arguments, variants)
        if os.path.exists(directory):
            shutil.rmtree(directory)
        os.replace(staging, directory)
        return meta
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging)


def _new_folder(parent: str, prefix: str) -> str:
    """A new folder of a unique name in `parent`, made as any file tool makes one (0777 less
    the umask, so 0755 as a rule): tempfile.mkdtemp's are 0700, which a package and its cache
    entries must not be (a web server or another user reads them)."""
    for _ in range(100):
        path = os.path.join(parent, prefix + secrets.token_hex(4))
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free name for a folder {prefix}* in {parent}")


def _read_c_sources(paths: Sequence[str]) -> dict[str, bytes]:
    """The user's C files by their names in the link folder (which must differ)."""
    sources: dict[str, bytes] = {}
    for path in paths:
        if not os.path.isfile(path) or not path.endswith((".c", ".cc", ".cpp")):
            raise CompileError(f"C source {path} is not a .c, .cc or .cpp file")
        base = os.path.basename(path)
        if base in sources:
            raise CompileError(f"two C sources are named {base}; rename one")
        with open(path, "rb") as f:
            sources[base] = f.read()
    return sources


def _build_variant(pipeline, inputs, target: Target, function: str, staging: str,
                   vname: str, cache: str | None, forced: str | None = None,
                   c_sources: dict[str, bytes] | None = None, c_exports: tuple[str, ...] = ()
                   ) -> tuple[list[dict], dict, bool]:
    """Compile and link one variant into staging/vname; returns its arguments, what index.js
    says of it beyond its files (how its entry waits for the GPU, None when it need not; the
    arguments that may be GPUBuffers) and whether it came from the cache."""
    folder = os.path.join(staging, vname)
    module = lower_for_aot(pipeline, inputs, function, target)
    device = codegen.device_code(module)
    suspend = None
    if target.has_feature("webgpu"):
        suspend = forced or _gpu_suspension(module, device, target)
    about = {"suspend": suspend, "device_arguments": _device_arguments(module, device)}
    emscripten = find_emscripten()
    arguments = npm_arguments.describe([_argument(a) for a in entry_arguments(module)], module,
                                       pipeline.functions())
    c_sources = c_sources or {}
    linked = dict(c_sources=tuple(c_sources), c_exports=c_exports)
    # The glue without the suspension path (known only once compiled) keys the cache.
    probe = link_glue(target, emscripten.capabilities, function, suspend=suspend, **linked)
    key = _variant_key(module, device, arguments, emscripten, probe, c_sources)
    cached = os.path.join(cache, key) if cache else None
    if cached and os.path.isdir(cached):
        shutil.copytree(cached, folder)
        return arguments, about, True
    compiled = codegen.compile(module, "library", device)
    path = suspend_path(compiled.object, function) if suspend else ()
    glue = link_glue(target, emscripten.capabilities, function, suspend=suspend,
                     suspend_path=path, **linked)
    with tempfile.TemporaryDirectory(prefix="webhal-link-") as work:
        prefix = os.path.join(work, function)
        write_static_library(compiled, prefix)
        for base, text in c_sources.items():
            with open(os.path.join(work, base), "wb") as f:
                f.write(text)
        link(glue, work, folder)
        for extra in (".a", ".h", ".wgsl", ".wgsl.json"):  # for users who link from C
            if os.path.exists(prefix + extra):
                shutil.copy(prefix + extra, folder)
    if target.has_feature("wasm_threads"):
        # Emscripten's pthread worker script is CommonJS; the package is "type": "module".
        with open(os.path.join(folder, "package.json"), "w", encoding="utf-8") as f:
            f.write('{ "type": "commonjs" }\n')
    if cached:  # written whole, then renamed: a cache entry is never half there
        os.makedirs(cache, exist_ok=True)
        partial = _new_folder(cache, ".partial-")
        shutil.copytree(folder, partial, dirs_exist_ok=True)
        try:
            os.rename(partial, cached)
        except OSError:  # another build stored it first
            shutil.rmtree(partial)
    return arguments, about, False


def _variant_key(module, device, arguments, emscripten, glue: LinkGlue,
                 c_sources: dict[str, bytes]) -> str:
    """What a variant's files depend on: webhal's own code, the lowered host statement, the
    device code, the arguments, the target, emcc's version, the link glue and C sources."""
    h = hashlib.sha256()
    parts = [_webhal_source_digest(), str(module.target), module.name,
             stmt_to_string(module.body), json.dumps({k.value: v for k, v in device.items()}),
             json.dumps(arguments), str(emscripten.version), json.dumps(glue.files),
             *(f"{name}:{hashlib.sha256(text).hexdigest()}" for name, text in
               sorted(c_sources.items()))]
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


@functools.cache
def _webhal_source_digest() -> str:
    """A digest of webhal's Python sources: a changed compiler never reuses old builds."""
    root = pathlib.Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def default_cache_dir() -> str:
    """$WEBHAL_CACHE_DIR, else $XDG_CACHE_HOME/webhal, else ~/.cache/webhal; npm/ in it."""
    base = os.environ.get("WEBHAL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "webhal")
    return os.path.join(base, "npm")


def _gpu_suspension(module, device: dict, target: Target) -> str | None:
    """A GPU variant needs kernels. Returns how its entry waits for a readback: None when the
    host code reads nothing a kernel wrote before the pipeline ends (the outputs are read back
    after the entry returns), else "asyncify"."""
    if DeviceAPI.WebGPU not in device:
        raise CompileError(f"target {target}: the generator schedules nothing on the GPU "
                           "(use gpu_tile or gpu_blocks when self.target() has webgpu), so a "
                           "webgpu variant would be the CPU one")
    _, manifest = device[DeviceAPI.WebGPU]
    written = {b["id"]: b["name"] for b in manifest["buffers"] if not b["read_only"]}
    outputs = {f.name for f in module.outputs}
    readbacks: dict[int, int] = {}
    for node in walk(module.body):
        if isinstance(node, ir.Call) and node.name == "webhal_gpu_copy_to_host":
            bid = ops.as_const(node.args[0])
            readbacks[bid] = readbacks.get(bid, 0) + 1
    early = [b for b, n in readbacks.items()
             if b in written and (written[b] not in outputs or n > 1)]
    return "asyncify" if early else None


def _device_arguments(module, device: dict) -> list[str]:
    """The buffer arguments only kernels touch (the host code neither loads nor stores them):
    a GPU variant takes a GPUBuffer of the caller's for these."""
    if DeviceAPI.WebGPU not in device:
        return []
    on_device = {b["name"] for b in device[DeviceAPI.WebGPU][1]["buffers"]}
    on_host = {n.name for n in walk(module.body) if isinstance(n, (ir.Load, st.Store))}
    return sorted(a.name for a in entry_arguments(module)
                  if a.is_buffer and a.name in on_device and a.name not in on_host)


def _argument(a) -> dict:
    t = a.type
    type_name = "bool" if t.is_bool() else str(t)
    if type_name not in _TS_ARRAYS:
        raise CompileError(f"argument {a.name} has type {type_name}, which JavaScript cannot "
                           "pass to wasm here (64-bit and float16 values are not supported in "
                           "npm packages yet)")
    return {"name": a.name, "kind": "buffer" if a.is_buffer else "scalar", "type": type_name,
            "dimensions": a.dimensions, "output": a.is_output}


def _write_package(staging: str, package: str, version: str, generator: str, params: dict,
                   function: str, arguments: list[dict], variants: list[Variant]) -> dict:
    runtime = os.path.join(staging, "runtime")
    os.makedirs(runtime)
    source = package_data.folder("runtime_js")
    for f in _RUNTIME_FILES:
        with open(os.path.join(runtime, f), "w", encoding="utf-8") as out:
            out.write((source / f).read_text(encoding="utf-8"))
    device = {name for v in variants for name in v.device_arguments}
    inputs = [_described(a, a["name"] in device) for a in arguments if not a["output"]]
    outputs = [_described(a, a["name"] in device) for a in arguments if a["output"]]
    variant_data = [{"name": v.name, "target": str(v.target), "js": v.js, "wasm": v.wasm,
                     "features": sorted(f for f in ("wasm_simd128", "wasm_threads",
                                                    "wasm_mvponly", "webgpu", "profile")
                                        if v.target.has_feature(f)),
                     "suspend": v.suspend, "device_arguments": v.device_arguments}
                    for v in variants]
    for v in variant_data:
        stem = v["wasm"].removesuffix(".wasm")
        v["files"] = {"wasm": v["wasm"]}
        if "wasm_threads" in v["features"]:
            if os.path.exists(os.path.join(staging, stem + ".worker.mjs")):
                # Emscripten before 3.1.58: pthreads run a worker script of their own, which
                # webhal made an ES module (browsers) beside Emscripten's classic one (Node).
                v["module_worker"], v["worker_name"] = stem + ".worker.mjs", None
                v["files"]["nodeWorker"] = stem + ".worker.js"
            else:  # later ones run the module itself in a worker of this name
                v["module_worker"], v["worker_name"] = v["js"], "em-pthread"
            v["files"]["worker"] = v["module_worker"]
        if "webgpu" in v["features"]:
            v["wgsl"] = stem + ".wgsl"
            v["manifest"] = v["wgsl"] + ".json"
            v["files"].update(wgsl=v["wgsl"], manifest=v["manifest"])
    shape = f"{{ shape: {outputs[0]['shape']} }}" if len(outputs) == 1 else \
        "{ " + ", ".join(f"{a['name']}: {{ shape: {a['shape']} }}" for a in outputs) + " }"
    settings = dict(package=package, generator=generator, function=function,
                    arguments=arguments, inputs=inputs, outputs=outputs, variants=variant_data,
                    params=", ".join(f"{k}={v}" for k, v in sorted(params.items())),
                    output_example=shape)
    env = environment()
    for template, out in (("npm_index.js.j2", "index.js"), ("npm_index.d.ts.j2", "index.d.ts")):
        with open(os.path.join(staging, out), "w", encoding="utf-8") as f:
            f.write(env.get_template(template).render(**settings))
    inline = [{**v, "embedded": _embedded(staging, v)} for v in variant_data]
    with open(os.path.join(staging, "inline.js"), "w", encoding="utf-8") as f:
        f.write(env.get_template("npm_inline.js.j2").render(**{**settings, "variants": inline}))
    settings["sizes"] = _entry_sizes(staging, variant_data)
    with open(os.path.join(staging, "README.md"), "w", encoding="utf-8") as f:
        f.write(env.get_template("npm_README.md.j2").render(**settings))
    manifest = {
        "name": package,
        "version": version,
        "description": f"The webhal pipeline {generator}, compiled to WebAssembly",
        "type": "module",
        "main": "./index.js",
        "types": "./index.d.ts",
        "exports": {".": ENTRY_CONDITIONS,
                    "./inline": {"types": "./index.d.ts", "default": "./inline.js"},
                    "./files": {"types": "./index.d.ts", "default": "./index.js"},
                    "./package.json": "./package.json"},
        "files": ["index.js", "inline.js", "index.d.ts", "README.md", "runtime/",
                  *sorted({v.name + "/" for v in variants})],
        "sideEffects": False,
        "engines": {"node": ">=18"},
        "webhal": {"generator": generator, "params": {k: str(v) for k, v in params.items()},
                   "variants": {v["name"]: v["target"] for v in variant_data}},
    }
    with open(os.path.join(staging, "package.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")
    return {"name": package, "function": function, "arguments": arguments,
            "variants": variant_data}


# Which entry a tool gets for the package's name: the first key among the tool's export
# conditions, nested ones in turn. index.js names its files with `new URL("./...",
# import.meta.url)`, which webpack ("webpack"), Vite ("browser" with "development" or
# "production", always set) and Node ("node") follow; esbuild ("browser", "import", "module",
# "default") and Rollup's node-resolve ("default", "module", "import", "development" or
# "production"; "browser" only with `browser: true`, which makes its conditions Vite's) leave
# those URLs as they are, so they get inline.js, which holds its files.
ENTRY_CONDITIONS = {"types": "./index.d.ts", "webpack": "./index.js", "node": "./index.js",
                    "browser": {"development": "./index.js", "production": "./index.js",
                                "default": "./inline.js"},
                    "default": "./inline.js"}

# The pthread worker's import of the factory (webhal.glue.emcc_link.module_worker), which
# inline.js makes an import of the factory's blob: URL.
_WORKER_IMPORT = re.compile(r"^import webhalFactory from '\./[^']+\.mjs';\n", re.M)


def _embedded(staging: str, v: dict) -> dict:
    """A variant's files as inline.js holds them: the wasm in base64, the WGSL and manifest as
    text; the threads variant's module as text (its `factory`) and its pthread worker's source
    without the import of the factory (`worker`; None where the module is its own worker)."""
    def text(path: str) -> str:
        with open(os.path.join(staging, path), encoding="utf-8") as f:
            return f.read()

    with open(os.path.join(staging, v["wasm"]), "rb") as f:
        embedded = {"wasm": base64.b64encode(f.read()).decode("ascii")}
    if "wgsl" in v:
        embedded.update(wgsl=text(v["wgsl"]), manifest=text(v["manifest"]))
    if "wasm_threads" in v["features"]:
        embedded["factory"] = text(v["js"])
        worker = None
        if v["module_worker"] != v["js"]:
            worker, count = _WORKER_IMPORT.subn("", text(v["module_worker"]), count=1)
            if count != 1:
                raise CompileError(f"{v['module_worker']} does not import the factory as "
                                   "webhal.glue.emcc_link.module_worker writes it: inline.js "
                                   "cannot make its worker")
        embedded["worker"] = worker
    return embedded


def _entry_sizes(staging: str, variants: list[dict]) -> dict:
    """What each entry weighs, in kB (1000 bytes), for the README: inline.js whole, the
    variants' wasm, and index.js with every variant's files (the .a and .h are for C callers
    and not counted)."""
    def size(path: str) -> int:
        return os.path.getsize(os.path.join(staging, path))

    files = {path for v in variants for path in (v["js"], *v["files"].values())}
    return {"inline": round(size("inline.js") / 1000),
            "wasm": round(sum(size(v["wasm"]) for v in variants) / 1000),
            "files": round((size("index.js") + sum(map(size, files))) / 1000)}


def _described(a: dict, device: bool) -> dict:
    """What the templates say of an argument; `device`: the webgpu variant takes a GPUBuffer."""
    a = {**a, "key": a["name"] if re.fullmatch(r"[A-Za-z_$][\w$]*", a["name"])
         else json.dumps(a["name"]),
         "type_name": "".join(w[:1].upper() + w[1:] for w in re.split(r"[\W_]+", a["name"]))}
    if a["kind"] == "scalar":
        ts = "boolean" if a["type"] == "bool" else "number"
        return {**a, "ts": ts, "doc": npm_arguments.doc(a, False),
                "example": npm_arguments.example(a), "device": False}
    array = _TS_ARRAYS[a["type"]]
    shape = npm_arguments.ts_shape(a)
    ts = f"Buffer<{array}, readonly {shape}>"
    if device:
        ts += f" | Buffer<GPUBufferLike, readonly {shape}>"
    return {**a, "ts": ts, "ts_shape": shape, "array": array,
            "doc": npm_arguments.doc(a, device), "example": npm_arguments.example(a),
            "shape": npm_arguments.shape_words(a, npm_arguments.EXAMPLE_NAMES),
            "device": device}
