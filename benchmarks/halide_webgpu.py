"""Halide's own WebGPU code for the demos, autoscheduled by Halide's Li2018, run in Node on
dawn.node: the peer the autoschedule benchmark compares webhal's WebGPU autoschedules with
(`python -m benchmarks.autoschedule --webgpu --li2018`).

Halide 21 (PyPI) compiles each demo's algorithm (its generator run with every scheduling
directive a no-op, as benchmarks.autoschedule.algorithm_only does) with Li2018's schedule for
`wasm-32-wasmrt-webgpu`; the static library links with HARNESS below through emcc 3.1.6
(`-sUSE_WEBGPU=1 -sASYNCIFY`) and runs in Node with dawn.node as navigator.gpu.

Why not elsewhere: Halide's `host-webgpu` JIT loads a native webgpu library written against
Dawn's API of late 2023. wgpu-native 0.32 (wgpu-py's) lacks two of its entry points
(wgpuDeviceTick, wgpuBufferReference; it has wgpuDevicePoll and wgpuBufferAddRef), and with
those two forwarded by a shim library it crashes in wgpuInstanceRequestAdapter, whose callback
arguments differ (wgpu-native takes a callback-info struct): not usable without rewriting
Halide's runtime. Emscripten 3.1.6's WebGPU bindings (2022) lack four things Halide's wasm runtime
needs against today's WebGPU: wgpuBufferGetSize, wgpuComputePassEncoderDispatchWorkgroups, the
'internal' error filter, and layout "auto" for a pipeline without a layout; SHIM_JS below
supplies them (a JS library linked in, no change to Halide's code).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import types
from pathlib import Path

BUILD = Path(__file__).resolve().parent / "build" / "halide_webgpu"
TARGET = "wasm-32-wasmrt-webgpu"

SHIM_JS = """
// What Halide 21's WebGPU runtime calls that Emscripten 3.1.6's bindings lack (or spell the
// 2022 way).
mergeInto(LibraryManager.library, {
  wgpuBufferGetSize__deps: ['$WebGPU'],
  wgpuBufferGetSize: function(bufferId) { return WebGPU.mgrBuffer.get(bufferId)["size"]; },
  wgpuComputePassEncoderDispatchWorkgroups__deps: ['$WebGPU'],
  wgpuComputePassEncoderDispatchWorkgroups: function(passId, x, y, z) {
    WebGPU.mgrComputePassEncoder.get(passId)["dispatchWorkgroups"](x, y, z);
  },
  // the filters of Halide's header: 0 validation, 1 out-of-memory, 2 internal
  wgpuDevicePushErrorScope__deps: ['$WebGPU'],
  wgpuDevicePushErrorScope: function(deviceId, filter) {
    WebGPU.mgrDevice.get(deviceId)["pushErrorScope"](
      ['validation', 'out-of-memory', 'internal'][filter]);
  },
  // no layout: "auto" (required now; optional in 2022)
  wgpuDeviceCreateComputePipeline__deps: ['$WebGPU'],
  wgpuDeviceCreateComputePipeline: function(deviceId, descriptor) {
    var layoutId = {{{ makeGetValue('descriptor',
                                    C_STRUCTS.WGPUComputePipelineDescriptor.layout, '*') }}};
    var desc = {
      "layout": layoutId ? WebGPU.mgrPipelineLayout.get(layoutId) : "auto",
      "compute": WebGPU.makeProgrammableStageDescriptor(
        descriptor + {{{ C_STRUCTS.WGPUComputePipelineDescriptor.compute }}}),
    };
    return WebGPU.mgrComputePipeline.create(
      WebGPU.mgrDevice.get(deviceId)["createComputePipeline"](desc));
  },
});
"""

PRE_JS = """
const dawn = require(process.env.HL_WEBGPU_NODE_BINDINGS);
Object.assign(globalThis, dawn.globals);
globalThis.navigator = { gpu: dawn.create([]) };
"""

# spec.h defines: the entry function's declaration, BUFFERS (dims, extents, bits per buffer,
# the output last) and CALL(b) calling it with the demo's scalars.
HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <emscripten.h>
#include "HalideRuntime.h"
#include "spec.h"
int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    double round_ms = argc > 2 ? atof(argv[2]) : 50.0;
    halide_buffer_t b[NBUF];
    halide_dimension_t dims[NBUF][3];
    memset(b, 0, sizeof b);
    for (int k = 0; k < NBUF; k++) {
        int n = 1, stride = 1;
        for (int d = 0; d < SPEC[k].dims; d++) {
            dims[k][d].min = 0; dims[k][d].extent = SPEC[k].extent[d];
            dims[k][d].stride = stride; dims[k][d].flags = 0;
            stride *= SPEC[k].extent[d];
        }
        n = stride;
        b[k].host = (uint8_t *)malloc((size_t)n * SPEC[k].bits / 8);
        b[k].type.code = (halide_type_code_t)SPEC[k].code; b[k].type.bits = SPEC[k].bits;
        b[k].type.lanes = 1; b[k].dimensions = SPEC[k].dims; b[k].dim = dims[k];
        if (k < NBUF - 1) {  // inputs: the pattern the webhal side gets, host dirty
            for (int i = 0; i < n; i++) b[k].host[i] = (uint8_t)((i * 7919 + (i >> 9) * 13) % 251);
            b[k].flags = halide_buffer_flag_host_dirty;
        }
    }
    halide_buffer_t *out = &b[NBUF - 1];
    int err = CALL(b);
    err |= halide_copy_to_host(NULL, out);
    if (err) { printf("{\"ok\": false, \"error\": %d}\n", err); return 1; }
    double sum = 0;
    size_t count = 1;
    for (int d = 0; d < out->dimensions; d++) count *= out->dim[d].extent;
    for (size_t i = 0; i < count; i++) sum += out->type.bits == 8 ? out->host[i] : 0;
    double t = emscripten_get_now();  // calls for ~round_ms a round
    err |= CALL(b);
    err |= halide_copy_to_host(NULL, out);  // waits for the GPU (a read back of the output)
    double once = emscripten_get_now() - t;
    int k = (int)(round_ms / (once + 1e-3)) + 1;
    if (k > 1000) k = 1000;
    if (once > 1000 && rounds > 2) rounds = 2;  // seconds a call: two rounds will do
    printf("{\"ok\": true, \"sum\": %.17g, \"calls\": %d, \"ms\": [", sum, k);
    for (int r = 0; r < rounds; r++) {
        t = emscripten_get_now();
        for (int i = 0; i < k; i++) err |= CALL(b);
        err |= halide_copy_to_host(NULL, out);  // waits for the GPU (a read back of the output)
        printf("%s%.4f", r ? ", " : "", (emscripten_get_now() - t) / k);
    }
    printf("], \"error\": %d}\n", err);
    return 0;
}
"""


class _NoSchedules:
    """Within it, Halide's Funcs and Stages ignore scheduling directives (the generators
    schedule their Outputs, which algorithm_only's proxy Func does not reach)."""

    def __enter__(self):
        import halide

        from benchmarks.autoschedule import SCHEDULING
        self.saved = []
        for cls in (halide.Func, halide.Stage):
            for name in SCHEDULING:
                if hasattr(cls, name):
                    self.saved.append((cls, name, getattr(cls, name)))
                    setattr(cls, name, lambda self, *a, **k: self)
        return self

    def __exit__(self, *exc):
        for cls, name, method in self.saved:
            setattr(cls, name, method)


def _halide_generator(name: str):
    """Demo `name`'s generator class, defined over Halide with its schedules no-ops."""
    import halide

    from benchmarks.autoschedule import algorithm_only
    path = Path(__file__).resolve().parent.parent / "demos" / name / f"{name}.py"
    source = path.read_text().replace("import webhal as hl\n", "")
    mod = types.ModuleType(f"_halide_{name}")
    mod.hl = algorithm_only(halide)
    exec(compile(source, str(path), "exec"), mod.__dict__)
    return next(v for v in mod.__dict__.values()
                if isinstance(v, type) and issubclass(v, halide.Generator) and
                v is not halide.Generator)


def build(name: str, size: int, channels: int, scalars: dict, margin: int) -> Path:
    """Demo `name` autoscheduled by Halide's Li2018 for TARGET at size^2 and linked with the
    harness: BUILD/name/bench.js."""
    import halide

    from benchmarks.autoschedule import _halide_plugin
    halide.load_plugin(_halide_plugin("Li2018"))
    out_dir = BUILD / name
    out_dir.mkdir(parents=True, exist_ok=True)
    (BUILD / "package.json").write_text('{"type": "commonjs"}\n')  # Emscripten's JS
    target = halide.Target(TARGET)
    with halide.GeneratorContext(target), _NoSchedules():
        g = _halide_generator(name)()
        pipeline = g._build_pipeline()
    infos = g._get_arginfos()
    in_shape = [size, size] + ([channels] if channels else [])
    out_shape = [size - margin, size - margin] + ([channels] if channels else [])
    args, spec, call = [], [], []
    for info in infos:
        obj = getattr(g, info.name)
        if info.name == "output" or str(info.dir).endswith("Output"):
            continue
        args.append(obj)
        if isinstance(obj, halide.ImageParam):
            obj.set_estimates([(0, e) for e in in_shape[:obj.dimensions()]])
            spec.append((obj.type(), in_shape[:obj.dimensions()]))
            call.append(f"&b[{len(spec) - 1}]")
        else:
            value = scalars.get(info.name, 1.0)
            obj.set_estimate(value)
            call.append(repr(float(value)) + "f")
    output = pipeline.outputs()[0]
    output.set_estimates([(0, e) for e in out_shape[:output.dimensions()]])
    spec.append((output.type(), out_shape[:output.dimensions()]))
    call.append(f"&b[{len(spec) - 1}]")
    start = time.perf_counter()
    result = pipeline.apply_autoscheduler(target, halide.AutoschedulerParams("Li2018", {}))
    seconds = time.perf_counter() - start
    (out_dir / "schedule.txt").write_text(result.schedule_source)
    pipeline.compile_to_static_library(str(out_dir / "lib"), args, f"{name}_li2018", target)
    codes = {"uint": 1, "int": 0, "float": 2}
    rows = ", ".join(
        f"{{{len(ext)}, {{{', '.join(map(str, ext))}}}, "
        f"{codes[next(k for k in codes if str(t).startswith(k))]}, {t.bits()}}}"
        for t, ext in spec)
    decl = ", ".join(["halide_buffer_t *" if c.startswith("&") else "float" for c in call])
    (out_dir / "spec.h").write_text(
        f"extern \"C\" int {name}_li2018({decl});\n"
        f"struct Spec {{ int dims; int extent[3]; int code; int bits; }};\n"
        f"#define NBUF {len(spec)}\nstatic const Spec SPEC[NBUF] = {{{rows}}};\n"
        f"#define CALL(b) {name}_li2018({', '.join(call)})\n")
    (out_dir / "main.cpp").write_text(HARNESS)
    (out_dir / "shim.js").write_text(SHIM_JS)
    (out_dir / "pre.js").write_text(PRE_JS)
    include = Path(halide.__file__).parent / "include"
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    subprocess.run(["em++", "-O2", f"-I{include}", f"-I{out_dir}", str(out_dir / "main.cpp"),
                    str(out_dir / "lib.a"), "-sUSE_WEBGPU=1", "-sASYNCIFY",
                    "-sALLOW_MEMORY_GROWTH", "-sENVIRONMENT=node", "-Wno-deprecated",
                    "--js-library", str(out_dir / "shim.js"), "--pre-js",
                    str(out_dir / "pre.js"), "-o", str(out_dir / "bench.js")],
                   check=True, env=env, capture_output=True, text=True)
    (out_dir / "autoschedule_seconds").write_text(f"{seconds:.3f}")
    return out_dir / "bench.js"


def run(bench: Path, rounds: int, icd: str | None, round_ms: float = 50.0) -> dict:
    """The harness's JSON: ms per call each round of about `round_ms` (device-resident
    buffers after the first call, synchronized), the output's sum; {"ok": False, "error":
    ...} where it failed."""
    from webhal.errors import ToolchainError
    from webhal.runners.node import run_node
    extra = {"VK_ICD_FILENAMES": icd, "VK_DRIVER_FILES": icd} if icd else None
    try:
        done = run_node(bench, [str(rounds), str(round_ms)], dawn=True,
                        no_experimental_fetch=True, env=extra, cwd=bench.parent,
                        timeout_s=1800)
    except ToolchainError as e:
        return {"ok": False, "error": str(e)[-300:]}
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"ok": False, "error": (done.stderr or done.stdout)[-300:]}
    return json.loads(lines[-1])


def pattern(shape: list[int]):
    """The harness's input, as numpy (x innermost): byte i of the buffer is
    (i * 7919 + (i >> 9) * 13) % 251."""
    import numpy as np
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return ((i * 7919 + (i >> 9) * 13) % 251).astype(np.uint8).reshape(list(reversed(shape)))


def reference_sum(name: str, size: int, channels: int, scalars: dict, margin: int) -> float:
    """The sum of webhal's output (the demo's hand schedule, on the host) for the harness's
    input: what Halide's output must sum to."""
    import numpy as np

    import webhal as hl
    from webhal import demo_page
    demo = demo_page.load(name)
    shape = [size, size] + ([channels] if channels else [])
    out = [size - margin, size - margin] + ([channels] if channels else [])
    with hl.GeneratorContext(hl.get_host_target()):
        g = demo.generator()()
        pipeline = g.build_pipeline()
        for a in g.inputs():
            if isinstance(a, hl.ImageParam):
                a.set(hl.Buffer(pattern(shape)))
            else:
                a.set(scalars.get(a.name(), a.get()))
        return float(np.asarray(pipeline.realize(out)).astype(np.float64).sum())
