"""npm packages from generators (`webhal build`), run in plain Node on every variant and
compared with the reference evaluator; JavaScript's errors name the argument and leave the
package usable; a name that needs escaping; golden package.json and index.d.ts."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import re
import shutil

import numpy as np
import pytest

import webhal as hl
from webhal import build
from webhal.glue.npm_package import build_package, npm_name
from webhal.runners.node import run_node_source
from webhal.testing import runtimes
from webhal.toolchain.process import run_tool

GENERATORS = pathlib.Path(__file__).parent / "generators" / "pipelines.py"
GOLDEN = pathlib.Path(__file__).parent / "golden"
UPDATE = os.environ.get("WEBHAL_UPDATE_GOLDEN", "") not in ("", "0")
TARGETS = ["wasm-32-wasmrt-wasm_simd128-wasm_threads", "wasm-32-wasmrt-wasm_simd128",
           "wasm-32-wasmrt"]
GPU_TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu"]

# Runs each variant of the package on the inputs (base64 in Halide's axis order, x first) and
# prints the outputs the same way.
_RUN = """
import { createRequire } from 'node:module';
import { create } from %(index)s;
const spec = JSON.parse(process.argv[2]);
// dawn.node (npm webgpu), loaded by path as webhal.runners.node sets it, for webgpu variants.
const gpu = () => createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]);
const ARRAYS = { uint8: Uint8Array, uint16: Uint16Array, int16: Int16Array, int32: Int32Array,
                 float32: Float32Array, float64: Float64Array };
const decode = (b64, type) => {
  const bytes = Buffer.from(b64, 'base64');
  const copy = new Uint8Array(bytes.length); copy.set(bytes);
  return new ARRAYS[type](copy.buffer);
};
const results = {};
for (const variant of spec.variants) {
  const p = await create(variant === 'webgpu' ? { variant, gpu: gpu() } : { variant });
  const inputs = {};
  for (const [name, v] of Object.entries(spec.inputs)) {
    inputs[name] = v.scalar !== undefined ? v.scalar
      : { data: decode(v.data, v.type), shape: v.shape };
  }
  const out = await p.run(inputs, spec.outputs);
  const outs = spec.single ? { [spec.single]: out } : out;
  results[variant] = { target: p.target, variant: p.variant, outputs: Object.fromEntries(
    Object.entries(outs).map(([k, o]) => [k, { shape: o.shape,
      data: Buffer.from(o.data.buffer, o.data.byteOffset, o.data.byteLength)
        .toString('base64') }])) };
}
console.log(JSON.stringify(results));
process.exit(0);  // dawn.node keeps Node alive otherwise
"""


class _Packages(dict):
    """Generator name -> (package folder, meta), each built on first use (a test builds only
    the packages it reads: `make fast` runs a few of these tests), then kept for the module.
    The variants come from the session's build cache (tests/conftest.py) when unchanged."""

    def __init__(self, root: pathlib.Path):
        super().__init__()
        self.root = root

    def __missing__(self, name: str):
        directory = self.root / npm_name(name)
        targets = [*GPU_TARGETS, *TARGETS] if "gpu" in name else TARGETS
        self[name] = (directory, build.build(str(GENERATORS), name, str(directory), targets,
                                             quiet=True))
        return self[name]


@pytest.fixture(scope="module")
def packages(tmp_path_factory, emscripten, node):
    """The test generators' packages (brighten, blur_edges, stats, "My Blur's <v2>" with the
    CPU variants; brighten_gpu, blur_gpu, mixed_gpu, reads_gpu_result_on_cpu with webgpu too),
    built when a test first asks for one."""
    return _Packages(tmp_path_factory.mktemp("npm"))


def _run(directory, inputs: dict, outputs: dict, single: str | None, variants) -> dict:
    spec = {"variants": variants, "inputs": {}, "outputs": outputs, "single": single}
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            spec["inputs"][name] = {"type": str(value.dtype), "shape": list(value.shape[::-1]),
                                    "data": base64.b64encode(value.tobytes()).decode()}
        else:
            spec["inputs"][name] = {"scalar": value}
    index = json.dumps((directory / "index.js").as_uri())
    result = run_node_source(_RUN % {"index": index}, [json.dumps(spec)],
                             dawn="webgpu" in variants, what="a package's variants in Node")
    return json.loads(result.stdout)


def _decoded(out: dict, dtype) -> np.ndarray:
    data = np.frombuffer(base64.b64decode(out["data"]), dtype=dtype)
    return data.reshape(out["shape"][::-1])  # numpy order


def _reference(generator: str, inputs: dict, sizes: dict) -> dict:
    """Each output of the generator realized on the reference evaluator (numpy order)."""
    cls = build.load_generators(str(GENERATORS))[generator]
    g = cls()
    pipeline = g.build_pipeline()
    for p in g.inputs():
        value = inputs[p.name()]
        p.set(hl.Buffer(value) if isinstance(value, np.ndarray) else value)
    outs = pipeline.realize([hl.Buffer(f.type(), sizes[f.name()]) for f in pipeline.outputs()],
                            hl.Target("reference"))
    outs = outs if isinstance(outs, list) else [outs]
    return {f.name(): np.asarray(o) for f, o in zip(pipeline.outputs(), outs)}


def _check(packages, generator: str, inputs: dict, sizes: dict) -> None:
    directory, meta = packages[generator]
    variants = [v["name"] for v in meta["variants"]]
    single = next(iter(sizes)) if len(sizes) == 1 else None
    outputs = {"shape": sizes[single]} if single else {k: {"shape": v} for k, v in sizes.items()}
    got = _run(directory, inputs, outputs, single, variants)
    want = _reference(generator, inputs, sizes)
    assert sorted(got) == sorted(variants)
    for variant, result in got.items():
        assert result["variant"] == variant
        for name, w in want.items():
            g = _decoded(result["outputs"][name], w.dtype)
            np.testing.assert_array_equal(g, w, err_msg=f"{generator} {name} on {variant}")


def test_brighten_every_variant(packages):
    image = np.random.default_rng(1).integers(0, 256, (23, 37), dtype=np.uint8)
    _check(packages, "brighten", {"input": image, "amount": 1.7}, {"output": [37, 23]})


def test_stencil_with_a_boundary_condition(packages):
    image = np.random.default_rng(2).integers(0, 65536, (19, 41), dtype=np.uint16)
    _check(packages, "blur_edges", {"input": image}, {"output": [41, 19]})


def test_two_outputs_a_reduction_and_scalars_of_each_kind(packages):
    rng = np.random.default_rng(3)
    values = rng.integers(-30000, 30000, (7, 13), dtype=np.int16)
    weights = rng.standard_normal(13)
    for negate in (True, False):
        _check(packages, "stats", {"values": values, "weights": weights, "offset": -1234,
                                   "negate": negate},
               {"row_sums": [7], "shifted": [13, 7]})


def test_webgpu_variant_on_dawn_and_its_cpu_fallbacks(packages, dawn_node):
    image = np.random.default_rng(4).integers(0, 256, (24, 64), dtype=np.uint8)
    _check(packages, "brighten_gpu", {"input": image, "amount": 1.3}, {"output": [64, 24]})


def test_two_kernels_with_a_packed_intermediate_on_dawn(packages, dawn_node):
    image = np.random.default_rng(5).integers(0, 256, (31, 70), dtype=np.uint8)
    _check(packages, "blur_gpu", {"input": image}, {"output": [68, 29]})


def test_a_cpu_stage_feeding_a_kernel_on_dawn(packages, dawn_node):
    image = np.random.default_rng(7).integers(0, 256, (16, 33), dtype=np.uint8)
    _check(packages, "mixed_gpu", {"input": image, "gain": 0.75}, {"output": [32, 16]})


_LOST = """
import { createRequire } from 'node:module';
import { create } from %(index)s;
const gpu = createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]);
const inputs = { input: { data: new Uint8Array(64 * 8).fill(50), shape: [64, 8] }, amount: 3 };
const out = {};
const p = await create({ gpu, variant: 'webgpu' });  // SwiftShader: not taken unless forced
const first = p.device;
first.destroy();
await first.lost;
const again = await p.run(inputs, { shape: [64, 8] });  // a new device, asked for again
out.recovered = [again.data[0], p.device !== first];
const adapter = await gpu.requestAdapter();
const mine = await adapter.requestDevice();
const q = await create({ device: mine });  // a device of the caller's is taken as it is
out.mine = (await q.run(inputs, { shape: [64, 8] })).data[0];
out.reason = q.reason;
mine.destroy();
await mine.lost;
try { await q.run(inputs, { shape: [64, 8] }); out.after = 'no error'; }
catch (e) { out.after = e.message; }
console.log(JSON.stringify(out));
process.exit(0);
"""


def test_a_lost_device_is_replaced_or_named(packages, dawn_node):
    directory, _ = packages["brighten_gpu"]
    index = json.dumps((directory / "index.js").as_uri())
    out = json.loads(run_node_source(_LOST % {"index": index}, dawn=True).stdout)
    assert out["recovered"] == [150, True]
    assert out["mine"] == 150
    assert out["reason"] == ("webgpu: the GPUDevice passed to create() on software adapter "
                             "SwiftShader driver 5.0.0 (google swiftshader)")
    assert out["after"].startswith("brighten_gpu.run: the GPUDevice passed to create() was "
                                   "lost")


_GPU_BUFFERS = """
import { createRequire } from 'node:module';
import { create } from %(index)s;
const gpu = createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]);
const [w, h] = [67, 35];
const STORAGE = 0x80, COPY_DST = 0x8, COPY_SRC = 0x4, MAP_READ = 0x1;
const data = new Uint8Array(w * h).map((_, i) => (i * 37) & 255);
const p = await create({ gpu, variant: 'webgpu' });
const want = await p.run({ input: { data, shape: [w, h] } }, { shape: [w - 2, h - 2] });
const device = p.device;
const words = (n) => Math.ceil(n / 4) * 4;  // uint8 data is packed four to a 32-bit word
const input = device.createBuffer({ size: words(w * h), usage: STORAGE | COPY_DST });
const padded = new Uint8Array(words(w * h));
padded.set(data);
device.queue.writeBuffer(input, 0, padded);
const size = words((w - 2) * (h - 2));
const output = device.createBuffer({ size, usage: STORAGE | COPY_SRC });
const got = await p.run({ input: { data: input, shape: [w, h] } },
                        { shape: [w - 2, h - 2], data: output });
const staging = device.createBuffer({ size, usage: MAP_READ | COPY_DST });
const encoder = device.createCommandEncoder();
encoder.copyBufferToBuffer(output, 0, staging, 0, size);
device.queue.submit([encoder.finish()]);
await staging.mapAsync(MAP_READ);
const bytes = new Uint8Array(staging.getMappedRange()).slice(0, (w - 2) * (h - 2));
const out = { same: got.data === output, shape: got.shape,
              equal: bytes.every((v, i) => v === want.data[i]) };
const half = await p.run({ input: { data: input, shape: [w, h] } }, { shape: [w - 2, h - 2] });
out.half = half.data.every((v, i) => v === want.data[i]);  // a GPUBuffer in, an array out
const errors = {
  small: [{ input: { data: input, shape: [w, h + 1] } }, { shape: [w - 2, h - 2] }],
  usage: [{ input: { data: staging, shape: [w - 2, h - 2] } }, { shape: [w - 4, h - 4] }],
  not_a_buffer: [{ input: { data, shape: [w, h] } }, { shape: [w - 2, h - 2], data: {} }],
  wrong_array: [{ input: { data, shape: [w, h] } },
                { shape: [w - 2, h - 2], data: new Float32Array((w - 2) * (h - 2)) }],
};
for (const [name, [i, o]] of Object.entries(errors)) {
  try { await p.run(i, o); out[name] = 'no error'; } catch (e) { out[name] = e.message; }
}
const cpu = await create({ variant: 'simd' });
try { await cpu.run({ input: { data: input, shape: [w, h] } }, { shape: [w - 2, h - 2] }); }
catch (e) { out.cpu = e.message; }
console.log(JSON.stringify(out));
process.exit(0);
"""


def test_gpu_buffers_of_the_callers_chain_without_a_trip_through_the_cpu(packages, dawn_node):
    directory, meta = packages["blur_gpu"]
    assert meta["variants"][0]["device_arguments"] == ["input", "output"]
    assert packages["mixed_gpu"][1]["variants"][0]["device_arguments"] == ["output"]
    index = json.dumps((directory / "index.js").as_uri())
    out = json.loads(run_node_source(_GPU_BUFFERS % {"index": index}, dawn=True).stdout)
    assert out["same"] and out["equal"] and out["half"] and out["shape"] == [65, 33]
    assert out["small"] == "blur_gpu.run: GPUBuffer input has 2348 bytes; its shape needs 2412"
    assert out["usage"] == "blur_gpu.run: GPUBuffer input needs the usage STORAGE " \
        "(GPUBufferUsage.STORAGE)"
    assert out["not_a_buffer"].startswith("blur_gpu.run: the data of output output must be a "
                                          "GPUBuffer or a Uint8Array to write in place when "
                                          "it is given")
    assert out["wrong_array"] == ("blur_gpu.run: output.data must be a Uint8Array (uint8), "
                                  "not a Float32Array")
    assert out["cpu"] == ("blur_gpu.run: input input is a GPUBuffer, which only the webgpu "
                          "variant takes; this pipeline runs the simd variant")


_FALLBACK = """
import { create } from %(index)s;
const out = {};
const p = await create();  // Node 20 has no navigator.gpu: the fastest CPU variant
out.chosen = p.variant;
out.reason = p.reason;
try { await create({ variant: 'webgpu' }); } catch (e) { out.forced = e.message; }
console.log(JSON.stringify(out));
"""


def test_without_webgpu_the_cpu_variant_runs_and_forcing_webgpu_says_why(packages, node):
    directory, meta = packages["brighten_gpu"]
    assert [v["name"] for v in meta["variants"]] == ["webgpu", "threads", "simd", "scalar"]
    index = json.dumps((directory / "index.js").as_uri())
    out = json.loads(run_node_source(_FALLBACK % {"index": index}).stdout)
    assert out["chosen"] == "threads"  # Node has SharedArrayBuffer
    assert re.fullmatch(r"webgpu skipped: no WebGPU here: .*; threads: SharedArrayBuffer "
                        r"available", out["reason"]), out["reason"]
    assert out["forced"].startswith("brighten_gpu: create: variant webgpu: no WebGPU here")
    assert "pass { gpu }" in out["forced"]


_FROM_ENVIRONMENT = """
import { create } from %(index)s;
const inputs = { input: { data: new Uint8Array(64 * 8).fill(100), shape: [64, 8] }, amount: 2 };
const out = {};
// No gpu passed: HL_WEBGPU_NODE_BINDINGS names dawn.node, whose adapter is SwiftShader.
for (const [name, opts] of [['auto', {}], ['forced', { variant: 'webgpu' }],
                            ['allowed', { allowSoftwareGpu: true }]]) {
  const p = await create(opts);
  const first = (await p.run(inputs, { shape: [64, 8] })).data[0];
  out[name] = { variant: p.variant, reason: p.reason, first };
}
console.log(JSON.stringify(out));
process.exit(0);
"""

_SWIFTSHADER = "software adapter SwiftShader driver 5.0.0 (google swiftshader)"


def test_a_software_adapter_falls_to_the_cpu_variants_unless_forced(packages, dawn_node):
    directory, _ = packages["brighten_gpu"]
    index = json.dumps((directory / "index.js").as_uri())
    out = json.loads(run_node_source(_FROM_ENVIRONMENT % {"index": index}, dawn=True).stdout)
    assert out["auto"] == {"variant": "threads", "first": 200, "reason": (
        f"webgpu skipped: {_SWIFTSHADER}, slower than the CPU variants (create({{ variant: "
        "'webgpu' }) forces it); threads: SharedArrayBuffer available")}
    assert out["forced"] == {"variant": "webgpu", "first": 200, "reason": "webgpu: forced "
                             f"with create({{ variant: 'webgpu' }}) on {_SWIFTSHADER}"}
    assert out["allowed"] == {"variant": "webgpu", "first": 200, "reason":
                              f"webgpu: create({{ allowSoftwareGpu: true }}) on {_SWIFTSHADER}"}


def test_hl_webgpu_node_bindings_that_do_not_load_are_named(packages, node):
    directory, _ = packages["brighten_gpu"]
    index = json.dumps((directory / "index.js").as_uri())
    bad = run_node_source(_FALLBACK % {"index": index},
                          env={"HL_WEBGPU_NODE_BINDINGS": "/nonexistent/dawn.node"})
    assert "HL_WEBGPU_NODE_BINDINGS=/nonexistent/dawn.node does not load" in \
        json.loads(bad.stdout)["forced"]


def test_host_code_reading_a_kernels_result_waits_for_it_with_asyncify(packages, dawn_node):
    directory, meta = packages["reads_gpu_result_on_cpu"]
    suspend = {v["name"]: v["suspend"] for v in meta["variants"]}
    assert suspend == {"webgpu": "asyncify", "threads": None, "simd": None, "scalar": None}
    assert {v["name"]: v["suspend"] for v in packages["blur_gpu"][1]["variants"]}["webgpu"] \
        is None  # outputs only: read back after the entry returns, no ASYNCIFY
    values = np.random.default_rng(8).standard_normal(300).astype(np.float32)
    _check(packages, "reads_gpu_result_on_cpu", {"input": values}, {"output": [300]})


def test_a_gpu_variant_needs_kernels(tmp_path):
    with pytest.raises(hl.CompileError, match="schedules nothing on the GPU"):
        build.build(str(GENERATORS), "brighten", str(tmp_path / "p"),
                    ["wasm-32-wasmrt-webgpu"], quiet=True)


def test_a_name_that_needs_escaping(packages):
    directory, meta = packages["My Blur's <v2>"]
    assert meta["name"] == "my-blur-s-v2" and meta["function"] == "My_Blur_s__v2_"
    manifest = json.loads((directory / "package.json").read_text())
    assert manifest["webhal"]["generator"] == "My Blur's <v2>"
    index = (directory / "index.js").read_text()
    assert "<v2>" not in index and "\\u003cv2\\u003e" in index  # escaped where it reaches JS
    _check(packages, "My Blur's <v2>", {"image": np.arange(200, dtype=np.uint8)},
           {"result": [200]})


_ERRORS = """
import { create } from %(index)s;
const p = await create({ variant: 'scalar' });
const w = 16, h = 4, data = new Uint8Array(w * h);  // the vector width is 16
const ok = { input: { data, shape: [w, h] }, amount: 2 };
const cases = {
  wrong_array: [{ input: { data: new Float32Array(w * h), shape: [w, h] }, amount: 2 },
                { shape: [w, h] }],
  wrong_shape: [{ input: { data, shape: [w, h + 1] }, amount: 2 }, { shape: [w, h] }],
  missing: [{ input: { data, shape: [w, h] } }, { shape: [w, h] }],
  extra: [{ ...ok, gain: 3 }, { shape: [w, h] }],
  not_a_number: [{ input: { data, shape: [w, h] }, amount: '2' }, { shape: [w, h] }],
  no_output_shape: [ok, {}],
  out_of_bounds: [ok, { shape: [w + 1, h] }],
};
const out = {};
for (const [name, [inputs, outputs]] of Object.entries(cases)) {
  try { await p.run(inputs, outputs); out[name] = 'no error'; }
  catch (e) { out[name] = `${e.constructor.name}: ${e.message}`; }
}
data.fill(100);
out.after = Array.from((await p.run(ok, { shape: [w, h] })).data.slice(0, 3));
try { await create({ variant: 'webgpu' }); }
catch (e) { out.variant = `${e.constructor.name}: ${e.message}`; }
console.log(JSON.stringify(out));
"""


def test_bad_arguments_from_javascript_are_named(packages):
    directory, _ = packages["brighten"]
    index = json.dumps((directory / "index.js").as_uri())
    out = json.loads(run_node_source(_ERRORS % {"index": index}).stdout)
    assert out["wrong_array"] == ("TypeError: brighten.run: input.data must be a Uint8Array "
                                  "(uint8), not a Float32Array")
    assert out["wrong_shape"].startswith("RangeError: brighten.run: input has 64 elements, but "
                                         "its shape [16, 5] needs 80")
    assert out["missing"] == "TypeError: brighten.run: missing input amount (float32)"
    assert out["extra"].startswith('TypeError: brighten.run: unknown input "gain"')
    assert out["not_a_number"].startswith("TypeError: brighten.run: amount must be a number")
    assert out["no_output_shape"].startswith("TypeError: brighten.run: missing the shape of "
                                             "output output")
    assert out["out_of_bounds"] == ("Error: brighten.run: Input buffer input is accessed at "
                                    "0..16, outside 0..15 in dimension 0 "
                                    "(access_out_of_bounds -4)")
    assert out["after"] == [200, 200, 200]  # still usable
    assert out["variant"] == ('RangeError: brighten: create: no variant "webgpu"; this package '
                              "has threads, simd, scalar")


@pytest.mark.parametrize("file", ["package.json", "index.d.ts", "index.js"])
def test_generated_files_match_golden(packages, file):
    directory, _ = packages["stats"]
    text = (directory / file).read_text()
    path = GOLDEN / f"stats.{file}"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"no golden file {path.name}; run with WEBHAL_UPDATE_GOLDEN=1")
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{file} changed; WEBHAL_UPDATE_GOLDEN=1 updates it"


def test_a_failed_build_leaves_no_package(tmp_path, emscripten):
    directory = tmp_path / "pkg"
    with pytest.raises(hl.HalideError, match="reach GPUs through WebGPU"):
        build.build(str(GENERATORS), "brighten", str(directory),
                    ["wasm-32-wasmrt", "wasm-32-wasmrt-vulkan"], quiet=True)
    cls = build.load_generators(str(GENERATORS))["brighten"]

    def make(target):  # the second variant fails after the first has linked
        if not target.has_feature("wasm_simd128"):
            raise hl.CompileError("this variant does not compile")
        g = cls()
        return g.build_pipeline(), g.inputs()
    directory.mkdir()
    (directory / "kept.txt").write_text("an earlier package")
    with pytest.raises(hl.CompileError, match="does not compile"):
        build_package(make, TARGETS, str(directory), generator="brighten")
    assert [p.name for p in directory.iterdir()] == ["kept.txt"]  # the old package stands
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]  # and no staging folder


def test_unknown_generator_and_param_are_named(tmp_path):
    with pytest.raises(hl.CompileError, match="has no generator 'blur'; it has"):
        build.build(str(GENERATORS), "blur", str(tmp_path / "p"), TARGETS)
    with pytest.raises(hl.CompileError, match="has no GeneratorParam gain"):
        build.build(str(GENERATORS), "brighten", str(tmp_path / "p"), TARGETS,
                    params={"gain": "2"})


_APP = """
import { create } from 'brighten';
const p = await create();
const out = await p.run({ input: { data: new Uint8Array(32).fill(10), shape: [16, 2] },
                          amount: 3 }, { shape: [16, 2] });
console.log(JSON.stringify({ variant: p.variant, first: out.data[0] }));
"""


def _installed_app(packages, tmp_path) -> pathlib.Path:
    """A fresh npm project with the brighten package installed from its `npm pack` tarball."""
    npm = shutil.which("npm")
    if npm is None:
        runtimes.missing("npm", "not on PATH", "install Node.js with npm")
    directory, _ = packages["brighten"]
    run_tool([npm, "pack", str(directory), "--silent"], cwd=tmp_path, what="npm pack")
    tarball = tmp_path / "brighten-0.1.0.tgz"
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "app", "private": true, "type": "module"}')
    run_tool([npm, "install", "--offline", "--no-audit", "--no-fund", str(tarball)], cwd=app,
             what="npm install of the packed package")
    return app


def test_npm_pack_then_install_in_a_fresh_project_and_import(packages, tmp_path):
    app = _installed_app(packages, tmp_path)
    installed = sorted(p.name for p in (app / "node_modules" / "brighten").iterdir())
    assert installed == ["README.md", "index.d.ts", "index.js", "inline.js", "package.json",
                         "runtime", "scalar", "simd", "threads"]
    (app / "main.mjs").write_text(_APP)
    out = json.loads(run_tool([shutil.which("node"), "main.mjs"], cwd=app,
                              what="the app").stdout)
    assert out == {"variant": "threads", "first": 30}
    # The inline entry (every file inside) in Node: its threads variant starts blob: module
    # workers, which Node has not, so create() says so and takes the next variant.
    (app / "inline.mjs").write_text(_APP.replace("'brighten'", "'brighten/inline'")
                                    .replace("variant: p.variant", "variant: p.variant, "
                                             "reason: p.reason"))
    out = json.loads(run_tool([shutil.which("node"), "inline.mjs"], cwd=app,
                              what="the app on the inline entry").stdout)
    assert out["variant"] == "simd" and out["first"] == 30
    assert "threads skipped: there is no Worker here" in out["reason"], out["reason"]


def test_an_unchanged_generator_comes_from_the_cache(tmp_path, emscripten, capsys):
    cache = str(tmp_path / "cache")
    first, again, other = (str(tmp_path / n) for n in ("first", "again", "other"))
    build.build(str(GENERATORS), "brighten", first, TARGETS, cache=cache)
    assert capsys.readouterr().err.count("compiled (") == len(TARGETS)
    build.build(str(GENERATORS), "brighten", again, TARGETS, cache=cache)
    assert capsys.readouterr().err.count("unchanged, from the cache") == len(TARGETS)
    for variant in ("threads", "simd", "scalar"):
        for suffix in (".wasm", ".mjs", ".a"):
            a = pathlib.Path(first, variant, "brighten" + suffix).read_bytes()
            assert a == pathlib.Path(again, variant, "brighten" + suffix).read_bytes()
    build.build(str(GENERATORS), "brighten", other, TARGETS, cache=cache,
                params={"vector": "8"})  # another schedule: compiled anew
    assert capsys.readouterr().err.count("compiled (") == len(TARGETS)


_PAGE = """<!doctype html>
<meta charset="utf-8">
<script type="module">
import { create } from './%(package)s/index.js';
const spec = %(spec)s;
const decode = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const encode = (bytes) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));
try {
  const results = {};
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter in this browser');
  for (const variant of spec.variants) {
    const p = await create({ variant });
    const inputs = { input: { data: decode(spec.input), shape: spec.shape }, ...spec.scalars };
    const out = await p.run(inputs, { shape: spec.out });
    results[variant] = { target: p.target, data: encode(out.data) };
  }
  const auto = await create();
  window.webhalResult = { results, auto: auto.variant, reason: auto.reason,
                          isolated: crossOriginIsolated };
} catch (e) {
  window.webhalResult = { error: String(e && e.stack || e) };
}
</script>
"""


_AUTO_PAGE = """<!doctype html>
<meta charset="utf-8">
<script type="module">
import { create } from './%(package)s/index.js';
create().then((p) => { window.webhalResult = { auto: p.variant, reason: p.reason,
                                                isolated: crossOriginIsolated }; },
              (e) => { window.webhalResult = { error: String(e && e.stack || e) }; });
</script>
"""


def test_every_variant_in_headless_chromium(packages, chromium, tmp_path):
    # Its own browser session, not the session-wide `browser` fixture: Playwright's sync API
    # cannot start again in this thread while that one runs (web_page and the demo start it).
    from webhal.runners.browser import browser_session

    image = np.random.default_rng(6).integers(0, 256, (20, 70), dtype=np.uint8)
    cases = {"brighten_gpu": ({"amount": 1.3}, [70, 20]), "blur_gpu": ({}, [68, 18])}
    for generator, (scalars, out) in cases.items():
        directory, meta = packages[generator]
        shutil.copytree(directory, tmp_path / directory.name)
        variants = [v["name"] for v in meta["variants"]]
        spec = {"variants": variants, "input": base64.b64encode(image.tobytes()).decode(),
                "shape": [70, 20], "out": out, "scalars": scalars}
        (tmp_path / f"{generator}.html").write_text(
            _PAGE % {"package": directory.name, "spec": json.dumps(spec)})
    (tmp_path / "auto.html").write_text(_AUTO_PAGE % {"package": packages["blur_gpu"][0].name})
    with browser_session(tmp_path) as session:
        results = {}
        for generator in cases:
            page = session.open(f"{generator}.html")
            page.wait_for_function("window.webhalResult !== undefined", timeout=120_000)
            results[generator] = page.evaluate("window.webhalResult")
            page.close()
        # The same choice on a page served without the cross-origin isolation headers.
        page = session.browser.new_page()
        page.route("**/auto.html", lambda route: route.fulfill(response=route.fetch(), headers={
            "content-type": "text/html"}))
        page.goto(session.url + "/auto.html")
        page.wait_for_function("window.webhalResult !== undefined", timeout=120_000)
        plain = page.evaluate("window.webhalResult")
        page.close()
    for generator, (scalars, out) in cases.items():
        result = results[generator]
        if "no WebGPU adapter in this browser" in result.get("error", ""):
            runtimes.missing("WebGPU in headless Chromium", "navigator.gpu gave no adapter",
                             "Debian's chromium with SwiftShader (make setup)")
        assert "error" not in result, result.get("error")
        # Chromium's WebGPU here is SwiftShader: slower than wasm, so create() skips it.
        assert result["isolated"] and result["auto"] == "threads", result
        assert re.fullmatch(r"webgpu skipped: software adapter SwiftShader.*; threads: "
                            r"SharedArrayBuffer available \(the page is cross-origin isolated\)",
                            result["reason"]), result["reason"]
        want = _reference(generator, {"input": image, **scalars}, {"output": out})["output"]
        for variant in result["results"]:
            got = np.frombuffer(base64.b64decode(result["results"][variant]["data"]), np.uint8)
            np.testing.assert_array_equal(got.reshape(want.shape), want,
                                          err_msg=f"{generator} {variant}")
        assert sorted(result["results"]) == sorted(v["name"] for v in
                                                   packages[generator][1]["variants"])
    assert "error" not in plain, plain.get("error")
    assert not plain["isolated"] and plain["auto"] == "simd", plain
    assert re.fullmatch(r"webgpu skipped: software adapter SwiftShader.*; threads skipped: the "
                        r"page is not crossOriginIsolated.*; simd: WebAssembly SIMD available",
                        plain["reason"]), plain["reason"]


VITE = pathlib.Path(__file__).resolve().parents[2] / "node_modules" / "vite" / "bin" / "vite.js"


_VITE_MAIN = """import { create } from 'brighten';
const inputs = { input: { data: new Uint8Array(64 * 32).fill(10), shape: [64, 32] }, amount: 3 };
window.webhalResult = (async () => {
  const out = {};
  for (const variant of [undefined, 'simd', 'scalar']) {
    const p = await create({ variant });
    out[p.variant] = (await p.run(inputs, { shape: [64, 32] })).data.slice(0, 2).join(',');
  }
  return out;
})().catch((e) => ({ error: String(e && e.stack || e) }));
"""


def test_a_vite_app_bundles_the_package_with_its_wasm(packages, chromium, tmp_path, node):
    if not VITE.is_file():
        runtimes.missing("Vite", f"{VITE} is missing", "make setup (npm ci installs it)")
    app = _installed_app(packages, tmp_path)
    (app / "index.html").write_text('<!doctype html><script type="module" src="/main.js">'
                                    "</script>\n")
    (app / "main.js").write_text(_VITE_MAIN)
    result = run_tool([shutil.which("node"), str(VITE), "build", "--logLevel", "warn"], cwd=app,
                      what="vite build")
    assert "externalized" not in result.stdout + result.stderr  # nothing Node-only leaks in
    assets = sorted(p.name for p in (app / "dist" / "assets").iterdir())
    assert sum(name.endswith(".wasm") for name in assets) == 3, assets  # one per variant
    # The threads variant's pthread worker, an ES module that Vite bundled with the module
    # it imports (Emscripten's worker protocol and factory in one file).
    workers = [p.read_text() for p in (app / "dist" / "assets").glob("brighten.worker-*.js")]
    assert len(workers) == 1 and "processThreadQueue" in workers[0], assets
    assert "create_brighten" in workers[0] or "wasmMemory" in workers[0]
    wasm = sorted((app / "dist" / "assets").glob("*.wasm"))
    packaged = {(packages["brighten"][0] / v / "brighten.wasm").read_bytes()
                for v in ("threads", "simd", "scalar")}
    assert {p.read_bytes() for p in wasm} == packaged
    # The bundle runs, threads included (the server sends COOP/COEP: crossOriginIsolated).
    from webhal.runners.browser import browser_session
    with browser_session(app / "dist") as session:
        page = session.open("index.html")
        result = page.evaluate("window.webhalResult")
        page.close()
    assert result == {"threads": "30,30", "simd": "30,30", "scalar": "30,30"}
