"""Build every suite pipeline's static library with webhal and with Halide, link each with the
one harness (harness.c) through emcc, and run the results in Node and in headless Chromium.

One emcc output per (pipeline, implementation, target) serves both hosts: it is emitted with
`-sENVIRONMENT=web,node`; Node runs it with --no-experimental-fetch (Emscripten 3.1.6 would load
the .wasm with fetch), Chromium loads it from bench.html on a COOP/COEP server. The inputs go in
as a preloaded file (bench.data). Builds are kept under benchmarks/build/ and reused while
nothing that went into them changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from types import ModuleType

import numpy as np

import webhal
from benchmarks.measure import TARGET_SLUGS, THREADS, Measurement, Settings, load_average
from benchmarks.suite import Spec
from webhal.aot import INCLUDE_DIR as WEBHAL_INCLUDE
from webhal.errors import HalideError, ToolchainError
from webhal.runners.browser import browser_session
from webhal.runners.node import run_node
from webhal.toolchain import emcc, emcc_flags

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness.c"
BUILD_ROOT = HERE / "build"
PAGE = "bench.html"

_C_TYPES = {"u": "halide_type_uint", "i": "halide_type_int", "f": "halide_type_float"}

# Loads one build's bench.js (chosen by ?dir=) with the harness arguments (?args=, JSON) and
# keeps what it prints; window.benchDone is the flag the runner waits for.
_PAGE_HTML = """<!doctype html>
<meta charset="utf-8">
<title>webhal benchmark</title>
<script>
const query = new URLSearchParams(location.search);
const dir = query.get("dir");
window.benchLines = [];
window.benchResult = null;
window.benchError = null;
window.benchDone = false;
function finish(error) {
  if (error && !window.benchError) window.benchError = String(error);
  window.benchDone = true;
}
var Module = {
  arguments: JSON.parse(query.get("args") || "[]"),
  locateFile: (path) => dir + "/" + path,
  print: (text) => {
    window.benchLines.push(text);
    if (text.startsWith("{")) window.benchResult = text;
  },
  printErr: (text) => window.benchLines.push("stderr: " + text),
  onAbort: (what) => finish("aborted: " + what),
  postRun: [() => finish(null)],
};
window.addEventListener("error", (event) => finish(event.message));
const script = document.createElement("script");
script.src = dir + "/bench.js";
script.onerror = () => finish("could not load " + script.src);
document.head.appendChild(script);
</script>
"""


@dataclass
class WasmBuild:
    """One linked harness: benchmarks/build/<pipeline>/<impl>-<target>/bench.{js,wasm,data}."""

    pipeline: str
    impl: str
    target: str
    directory: Path
    ok: bool = False
    error: str = ""
    reused: bool = False
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def url_dir(self) -> str:
        return self.directory.relative_to(BUILD_ROOT).as_posix()


def target_slug(target: str) -> str:
    return TARGET_SLUGS[target]


def harness_args(settings: Settings) -> list[str]:
    return ["--batches", str(settings.batches), "--min-batch-ms", str(settings.min_batch_ms),
            "--warmup-ms", str(settings.warmup_ms)]


def write_inputs(spec: Spec, arrays: list[np.ndarray]) -> list[Path]:
    """The inputs as raw files in the harness's layout (numpy's C order is x innermost)."""
    directory = BUILD_ROOT / spec.name
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, array in enumerate(arrays):
        path = directory / f"input{i}.bin"
        data = np.ascontiguousarray(array).tobytes()
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        paths.append(path)
    return paths


def _buffer_line(name: str, dtype: np.dtype, shape: tuple[int, ...], file: str | None) -> str:
    dtype = np.dtype(dtype)
    extents = ", ".join(str(e) for e in reversed(shape))  # x first
    source = f'"{file}"' if file else "NULL"
    return (f'    {{"{name}", {_C_TYPES[dtype.kind]}, {dtype.itemsize * 8}, {len(shape)}, '
            f"{{{extents}}}, {source}}},")


def _c_literal(value: float, is_float: bool) -> str:
    if not is_float:
        return str(int(value))
    text = repr(float(value))
    return text + ("f" if ("." in text or "e" in text) else ".0f")


def spec_header(spec: Spec, hl: ModuleType, built, impl: str, target: str,
                arrays: list[np.ndarray]) -> str:
    """bench_spec.h: the buffers and the call, for harness.c."""
    lines = [f"/* Written by benchmarks/wasm.py for {spec.name}, {impl}, {target}. */",
             '#include "lib.h"', f'#define BENCH_PIPELINE "{spec.name}"',
             f'#define BENCH_IMPL "{impl}"', f'#define BENCH_TARGET "{target}"',
             f"#define BENCH_NUM_BUFFERS {len(arrays) + 1}", f"#define BENCH_OUTPUT {len(arrays)}",
             "static const bench_buffer_spec_t bench_buffers[BENCH_NUM_BUFFERS] = {"]
    call, b = [], 0
    for arg in built.args:
        if isinstance(arg, hl.ImageParam):
            lines.append(_buffer_line(arg.name(), arrays[b].dtype, arrays[b].shape,
                                      f"input{b}.bin"))
            call.append(f"&b[{b}]")
            b += 1
        else:
            call.append(_c_literal(built.params[arg.name()], arg.type().is_float()))
    lines.append(_buffer_line(built.output.name(), np.dtype(spec.output_dtype),
                              spec.output_shape, None))
    call.append(f"&b[{b}]")
    lines += ["};", "static int bench_call(halide_buffer_t *b) {",
              f"    return {spec.name}({', '.join(call)});", "}", ""]
    return "\n".join(lines)


def _tree_digest(root: Path, pattern: str) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob(pattern)):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def implementation_digest(impl: str, hl: ModuleType) -> str:
    """What a rebuild depends on, per implementation: webhal's sources or Halide's version."""
    if impl.startswith("webhal"):  # webhal-auto and -tuned too: the autoscheduler's sources
        return _tree_digest(Path(webhal.__file__).parent, "*.py")
    from importlib.metadata import version
    return "halide " + version("halide")


# Workers the threads harnesses start (fixed at link time); None: this machine's cores. Set it
# to the cores of the machine that runs them when that is another (--pool-size).
THREAD_POOL_SIZE: int | None = None


def _emcc_flags(target: str) -> list[str]:
    # With threads the memory cannot grow (emcc_flags), so it starts large enough for the suite.
    memory = 256 << 20 if target == THREADS else 64 << 20
    return emcc_flags(webhal.Target(target), environment=["web", "node"], initial_memory=memory,
                      thread_pool_size=THREAD_POOL_SIZE)


def include_dir(impl: str, hl: ModuleType) -> str:
    """Each implementation's own HalideRuntime.h: the harness compiles against either."""
    if impl == "webhal":
        return WEBHAL_INCLUDE
    return os.path.join(os.path.dirname(hl.__file__), "include")


def build_all(specs: Iterable[Spec], inputs: dict[str, list[np.ndarray]],
              implementations: dict[str, ModuleType], targets: list[str], *,
              rebuild: bool = False, log: Callable[[str], None] = print,
              extra_sources: Iterable[Path] = ()) -> list[WasmBuild]:
    """Compile every static library (here, one after another: both compilers run in this
    process) and link each with emcc (in parallel, one job per core). `extra_sources`: files
    that define `specs` besides suite.py (a change rebuilds)."""
    import time

    builds: list[WasmBuild] = []
    BUILD_ROOT.mkdir(parents=True, exist_ok=True)
    # The repository's package.json says "type": "module"; Emscripten's JS is CommonJS.
    (BUILD_ROOT / "package.json").write_text('{"type": "commonjs"}\n')
    digests = {impl: implementation_digest(impl, hl) for impl, hl in implementations.items()}
    common = hashlib.sha256(HARNESS.read_bytes() + (HERE / "suite.py").read_bytes()
                            + (HERE / "wasm.py").read_bytes()
                            + b"".join(Path(p).read_bytes() for p in extra_sources)).hexdigest()
    jobs = []
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for spec in specs:
            arrays = inputs[spec.name]
            input_paths = write_inputs(spec, arrays)
            input_digest = hashlib.sha256(b"".join(p.read_bytes() for p in input_paths))
            for impl, hl in implementations.items():
                for target in targets:
                    directory = BUILD_ROOT / spec.name / f"{impl}-{target_slug(target)}"
                    build = WasmBuild(spec.name, impl, target, directory)
                    builds.append(build)
                    key = json.dumps([common, digests[impl], input_digest.hexdigest(), target,
                                      _emcc_flags(target)])
                    key_file = directory / "build.key"
                    outputs = [directory / n for n in ("bench.js", "bench.wasm", "bench.data")]
                    if (not rebuild and key_file.exists() and key_file.read_text() == key
                            and all(p.exists() for p in outputs)):
                        build.ok = build.reused = True
                        continue
                    directory.mkdir(parents=True, exist_ok=True)
                    key_file.unlink(missing_ok=True)
                    start = time.perf_counter()
                    try:
                        built = spec.build(hl)
                        built.output.compile_to_static_library(
                            str(directory / "lib"), built.args, spec.name, hl.Target(target))
                    except Exception as exc:  # noqa: BLE001 - any compiler failure is a result
                        build.error = f"{impl} compile_to_static_library: {_first_lines(exc)}"
                        log(f"[red]FAILED[/] {spec.name} {impl} {target}: {build.error}")
                        continue
                    build.seconds["compile"] = time.perf_counter() - start
                    (directory / "bench_spec.h").write_text(
                        spec_header(spec, hl, built, impl, target, arrays))
                    preload = []
                    for path in input_paths:
                        preload += ["--preload-file", f"{path}@{path.name}"]
                    args = [*_emcc_flags(target), HARNESS, directory / "lib.a", f"-I{directory}",
                            f"-I{include_dir(impl, hl)}", *preload, "-o", directory / "bench.js"]
                    jobs.append((build, key_file, key, pool.submit(_link, args)))
        for build, key_file, key, future in jobs:
            error, seconds = future.result()
            build.seconds["link"] = seconds
            if error:
                build.error = f"emcc: {error}"
                log(f"[red]FAILED[/] {build.pipeline} {build.impl} {build.target}: {error}")
            else:
                build.ok = True
                key_file.write_text(key)
    return builds


def _link(args) -> tuple[str, float]:
    import time
    start = time.perf_counter()
    try:
        # the local Laplacian's Halide and webhal harnesses link in 70 s on a quiet 2-core VM
        # and passed 300 s beside other builds (2026-12-05): a stop there loses the harness
        emcc(args, timeout_s=900)
    except ToolchainError as exc:
        return _first_lines(exc, 12), time.perf_counter() - start
    return "", time.perf_counter() - start


def _first_lines(exc: BaseException, n: int = 6) -> str:
    text = str(exc).strip() or type(exc).__name__
    if not isinstance(exc, HalideError):
        text = f"{type(exc).__name__}: {text}"
    return "\n".join(text.splitlines()[:n])


# -- running -----------------------------------------------------------------------------------


def _parse(build: WasmBuild, env: str, lines: Iterable[str]) -> Measurement | None:
    for line in reversed(list(lines)):
        line = line.strip()
        if line.startswith("{"):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if not r.get("ok"):
                return Measurement(build.pipeline, env, build.impl, build.target, False,
                                   error=f"{r.get('error')} (code {r.get('code')})")
            return Measurement(
                build.pipeline, env, build.impl, build.target, True,
                median_ms=r["median_ms"], min_ms=r["min_ms"], checksum=int(r["checksum"], 16),
                sum=r["sum"], details={k: r[k] for k in ("batches", "calls_per_batch",
                                                          "first_call_ms", "inputs")})
    return None


def _failed(build: WasmBuild, env: str, error: str) -> Measurement:
    return Measurement(build.pipeline, env, build.impl, build.target, False, error=error)


def run_in_node(build: WasmBuild, settings: Settings) -> Measurement:
    if not build.ok:
        return _failed(build, "node", build.error or "not built")
    try:
        result = run_node(build.directory / "bench.js", harness_args(settings),
                          no_experimental_fetch=True, cwd=build.directory, timeout_s=300,
                          what=f"node {build.url_dir}/bench.js")
    except ToolchainError as exc:
        found = _parse(build, "node", exc.output.splitlines())
        return found or _failed(build, "node", _first_lines(exc, 12))
    found = _parse(build, "node", result.stdout.splitlines())
    return found or _failed(build, "node", "no JSON line on stdout:\n" + result.stdout[-800:])


def _with_load(m: Measurement) -> Measurement:
    """Note the load average right after the run: it says how busy the machine was."""
    load = load_average()
    m.load = [] if load is None else [load]
    return m


def run_all_in_node(builds: list[WasmBuild], settings: Settings,
                    log: Callable[[str], None] = print) -> list[Measurement]:
    rounds = [[_with_load(run_in_node(b, settings)) for b in builds]
              for _ in range(settings.rounds)]
    return _combine(rounds)


def run_all_in_chromium(builds: list[WasmBuild], settings: Settings,
                        log: Callable[[str], None] = print) -> list[Measurement]:
    """Every build in its own page of one headless Chromium (COOP/COEP server on 127.0.0.1)."""
    (BUILD_ROOT / PAGE).write_text(_PAGE_HTML)
    args = urllib.parse.quote(json.dumps(harness_args(settings)))
    rounds: list[list[Measurement]] = []
    with browser_session(BUILD_ROOT, timeout_s=120) as session:
        for _ in range(settings.rounds):
            measured = []
            for build in builds:
                if not build.ok:
                    measured.append(_failed(build, "chromium", build.error or "not built"))
                    continue
                page = session.open(f"/{PAGE}?dir={urllib.parse.quote(build.url_dir)}"
                                    f"&args={args}", timeout_s=300)
                try:
                    page.wait_for_function("window.benchDone === true", timeout=300_000)
                    state = page.evaluate("({lines: window.benchLines, error: window.benchError,"
                                          " isolated: self.crossOriginIsolated})")
                finally:
                    page.close()
                found = _parse(build, "chromium", state["lines"])
                if found is None:
                    found = _failed(build, "chromium", f"{state['error'] or 'no result'}: "
                                    + " | ".join(state["lines"][-8:]))
                found.details["cross_origin_isolated"] = state["isolated"]
                measured.append(_with_load(found))
            rounds.append(measured)
    return _combine(rounds)


def _combine(rounds: list[list[Measurement]]) -> list[Measurement]:
    """One Measurement per build: the median of the rounds' medians, the least minimum; an
    output that changed between rounds is an error."""
    combined = []
    for runs in zip(*rounds):
        good = [m for m in runs if m.ok]
        if len(good) < len(runs):
            combined.append(next(m for m in runs if not m.ok))
            continue
        first = good[0]
        if any(m.checksum != first.checksum for m in good):
            first.ok = False
            first.error = "the output differs between runs"
        first.round_medians_ms = [m.median_ms for m in good]
        first.load = [v for m in good for v in m.load]
        first.median_ms = median(m.median_ms for m in good)
        first.min_ms = min(m.min_ms for m in good)
        combined.append(first)
    return combined
