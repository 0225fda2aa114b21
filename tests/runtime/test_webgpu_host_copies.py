"""The webgpu variant's host copies at the floor (runtime_js/webgpu.js, issue 30): typed-array
inputs only kernels read go to the GPU straight from the caller's array; outputs come back
through staging buffers made once and reused, into the caller's array when run() is given
one; a run's dispatches are one submission, and one kernel dispatched several times in a run
keeps each dispatch's arguments. On dawn.node (SwiftShader), against the reference."""

from __future__ import annotations

import base64
import json
import pathlib

import numpy as np
import pytest

import webhal as hl
from webhal import build
from webhal.runners.node import run_node_source

GENERATORS = pathlib.Path(__file__).parent / "generators" / "gpu_io.py"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu", "wasm-32-wasmrt-wasm_simd128"]
W, H = 37, 5  # 185 elements: a uint8 input ends in a partial 4-byte word


@pytest.fixture(scope="module")
def packages(tmp_path_factory, emscripten, dawn_node):
    root = tmp_path_factory.mktemp("gpu-io")
    return {name: root / name for name in ("brighten_f32", "repeated_kernel")
            if build.build(str(GENERATORS), name, str(root / name), TARGETS, quiet=True)}


def _reference(name: str, inputs: dict) -> np.ndarray:
    generator = build.load_generators(str(GENERATORS))[name]()
    pipeline = generator.build_pipeline()
    for param in generator.inputs():
        value = inputs[param.name()]
        param.set(hl.Buffer(value) if isinstance(value, np.ndarray) else value)
    out = pipeline.realize([W, H], hl.Target("reference"))
    return np.asarray(out)


# Counts what the runtime asks of the device per run: buffers made, submissions, command
# encoders, and whether the input was written to the GPU from the caller's own array.
_COUNTING = """
import { createRequire } from 'node:module';
import { create } from %(index)s;
const gpu = createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]);
const [w, h] = [%(w)d, %(h)d];
const p = await create({ gpu, variant: 'webgpu' });
const device = p.device;
const counts = { createBuffer: 0, submit: 0, createCommandEncoder: 0, fromCaller: 0 };
let input = null;
for (const [object, name] of [[device, 'createBuffer'], [device, 'createCommandEncoder'],
                              [device.queue, 'submit'], [device.queue, 'writeBuffer']]) {
  const original = object[name].bind(object);
  object[name] = (...args) => {
    if (name === 'writeBuffer') counts.fromCaller += ArrayBuffer.isView(args[2])
      && args[2].buffer === input.buffer ? 1 : 0;
    else counts[name] += 1;
    return original(...args);
  };
}
const taken = () => { const c = { ...counts }; for (const k in counts) counts[k] = 0; return c; };
const b64 = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const out = { runs: [] };
%(body)s
console.log(JSON.stringify(out));
process.exit(0);
"""

_BRIGHTEN = """
input = new Float32Array(w * h).map((_, i) => ((i * 37 + 11) % 256) / 255);
const inputs = { input: { data: input, shape: [w, h] }, gain: 1.5, bias: -0.25 };
const fresh = await p.run(inputs, { shape: [w, h] });
out.runs.push({ ...taken(), data: b64(fresh.data) });
// In place, into a view that starts 16 bytes into its buffer: five runs, nothing made.
const backing = new Float32Array(w * h + 8).fill(7);
const mine = backing.subarray(4, 4 + w * h);
for (let i = 0; i < 5; i++) {
  const got = await p.run({ ...inputs, bias: i }, { shape: [w, h], data: mine });
  out.runs.push({ ...taken(), same: got.data === mine, data: b64(mine) });
}
out.untouched = [...backing.subarray(0, 4), ...backing.subarray(4 + w * h)].every((v) => v === 7);
const again = await p.run(inputs, { shape: [w, h] });
out.fresh = again.data !== fresh.data && b64(again.data) === b64(fresh.data);
out.afterFresh = taken();
const errors = { type: new Uint8Array(w * h), length: new Float32Array(w * h - 1) };
for (const [key, data] of Object.entries(errors)) {
  try { await p.run(inputs, { shape: [w, h], data }); out[key] = 'no error'; }
  catch (e) { out[key] = e.message; }
}
const cpu = await create({ variant: 'simd' });
const cpuOut = new Float32Array(w * h);
out.cpuSame = (await cpu.run(inputs, { shape: [w, h], data: cpuOut })).data === cpuOut;
out.cpu = b64(cpuOut);
"""

_REPEATED = """
input = new Uint8Array(w * h).map((_, i) => (i * 37 + 11) & 255);
for (const offset of [5, -3]) {
  const got = await p.run({ input: { data: input, shape: [w, h] }, offset }, { shape: [w, h] });
  out.runs.push({ ...taken(), offset, data: b64(got.data) });
}
"""


def _node(packages, name: str, body: str) -> dict:
    index = json.dumps((packages[name] / "index.js").as_uri())
    source = _COUNTING % {"index": index, "w": W, "h": H, "body": body}
    return json.loads(run_node_source(source, dawn=True, what=f"{name} on dawn.node").stdout)


def _decoded(text: str, dtype) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=dtype).reshape(H, W)


def test_typed_arrays_in_and_out_at_the_floor(packages):
    out = _node(packages, "brighten_f32", _BRIGHTEN)
    image = (((np.arange(W * H) * 37 + 11) % 256) / 255).astype(np.float32).reshape(H, W)
    first, *in_place = out["runs"]
    # The first run makes the device buffers, the args buffer and the staging buffer.
    assert first["createBuffer"] >= 1 and first["fromCaller"] == 1
    np.testing.assert_allclose(_decoded(first["data"], np.float32),
                               _reference("brighten_f32", {"input": image, "gain": 1.5,
                                                           "bias": -0.25}), rtol=1e-6)
    for i, run in enumerate(in_place):
        # No buffer made per call: the staging buffer is reused; one submission per run; the
        # input written to the GPU from the caller's Float32Array itself.
        assert (run["createBuffer"], run["submit"], run["createCommandEncoder"],
                run["fromCaller"]) == (0, 1, 1, 1), run
        assert run["same"]
        np.testing.assert_allclose(_decoded(run["data"], np.float32),
                                   _reference("brighten_f32", {"input": image, "gain": 1.5,
                                                               "bias": float(i)}), rtol=1e-6)
    assert out["untouched"] and out["fresh"] and out["afterFresh"]["createBuffer"] == 0
    assert out["type"] == ("brighten_f32.run: output.data must be a Float32Array (float32), "
                           "not a Uint8Array")
    assert out["length"] == (f"brighten_f32.run: output has {W * H - 1} elements, but its "
                             f"shape [{W}, {H}] needs {W * H}")
    assert out["cpuSame"]  # the CPU variants write in place too
    np.testing.assert_allclose(_decoded(out["cpu"], np.float32), _decoded(first["data"],
                                                                          np.float32), rtol=1e-6)


def test_one_kernel_dispatched_three_times_in_one_submission(packages):
    out = _node(packages, "repeated_kernel", _REPEATED)
    image = ((np.arange(W * H) * 37 + 11) % 256).astype(np.uint8).reshape(H, W)
    for run in out["runs"]:
        # Four dispatches (the pure stage, the update for r = 0, 1, 2): one encoder, one
        # submission; each update kept its own r.
        assert (run["submit"], run["createCommandEncoder"], run["fromCaller"]) == (1, 1, 1), run
        want = _reference("repeated_kernel", {"input": image, "offset": run["offset"]})
        np.testing.assert_array_equal(_decoded(run["data"], np.int32), want)
    assert out["runs"][1]["createBuffer"] == 0


_ERROR_SCOPES = """
input = new Float32Array(w * h).fill(0.5);
const STORAGE = 0x80, COPY_DST = 0x8, COPY_SRC = 0x4, MAP_READ = 0x1;
let scopes = 0;
const push = device.pushErrorScope.bind(device);
device.pushErrorScope = (f) => { scopes += 1; return push(f); };
const other = await (await gpu.requestAdapter()).requestDevice();
const theirs = other.createBuffer({ size: w * h * 4, usage: STORAGE | COPY_DST });
const src = device.createBuffer({ size: w * h * 4, usage: STORAGE | COPY_DST });
device.queue.writeBuffer(src, 0, input);
const dst = device.createBuffer({ size: w * h * 4, usage: STORAGE | COPY_SRC });
const outputs = { shape: [w, h], data: dst };
try {
  await p.run({ input: { data: theirs, shape: [w, h] }, gain: 2, bias: 0 }, outputs);
  out.theirs = 'no error';
} catch (e) { out.theirs = e.message; }
scopes = 0;
for (let i = 0; i < 3; i++) {
  await p.run({ input: { data: src, shape: [w, h] }, gain: 2, bias: i }, outputs);
}
out.scopes = scopes;  // the first run with these buffers checks them; later runs do not
const staging = device.createBuffer({ size: w * h * 4, usage: MAP_READ | COPY_DST });
const e = device.createCommandEncoder();
e.copyBufferToBuffer(dst, 0, staging, 0, w * h * 4);
device.queue.submit([e.finish()]);
await staging.mapAsync(MAP_READ);
out.last = [...new Float32Array(staging.getMappedRange())].every((v) => v === 3);
"""


def test_a_gpu_buffer_is_checked_on_its_first_run_only(packages):
    out = _node(packages, "brighten_f32", _ERROR_SCOPES)
    assert out["theirs"].startswith("brighten_f32.run: WebGPU rejected the GPUBuffers passed "
                                    "for input, output (they must be buffers of p.device)")
    assert out["scopes"] == 1 and out["last"]


_FRESH = """
// Workers the runtime starts, counted (it imports node:worker_threads when first needed).
const { syncBuiltinESMExports } = await import('node:module');
const threads = createRequire(import.meta.url)('node:worker_threads');
const Made = threads.Worker;
let workers = 0;
threads.Worker = class extends Made { constructor(...a) { super(...a); workers += 1; } };
syncBuiltinESMExports();
input = new Float32Array(w * h).fill(1);
const small = await p.run({ input: { data: input, shape: [w, h] }, gain: 2, bias: 1 },
                          { shape: [w, h] });
out.small = { workers, right: small.data.every((v) => v === 3) };
const [W, H] = [1024, 1025];  // 4 MiB and more of float32: a new array from the worker
input = Float32Array.from({ length: W * H }, (_, i) => i % 19);
const got = [];
for (const bias of [1, 2, 3]) {
  const r = await p.run({ input: { data: input, shape: [W, H] }, gain: 2, bias },
                        { shape: [W, H] });
  got.push([bias, r.data, taken()]);
}
// Checked after the last run: no run wrote into an earlier run's array.
out.fresh = got.map(([bias, d, c]) => ({ whole: d.length === W * H && d.byteOffset === 0
  && d.buffer.byteLength === W * H * 4, right: d.every((v, i) => v === input[i] * 2 + bias),
  createBuffer: c.createBuffer }));
out.distinct = new Set(got.map(([, d]) => d.buffer)).size;
out.workers = workers;
"""


def test_new_large_output_arrays_made_by_a_worker(packages):
    out = _node(packages, "brighten_f32", _FRESH)
    assert out["small"] == {"workers": 0, "right": True}  # small arrays are made as before
    assert out["workers"] == 1 and out["distinct"] == 3
    assert all(run["whole"] and run["right"] for run in out["fresh"]), out["fresh"]
    assert [run["createBuffer"] for run in out["fresh"][1:]] == [0, 0]


_LARGE_INPUT = """
// Buffers made with MAP_WRITE, and copies out of them, counted.
let uploadBuffers = 0, stagedCopies = 0;
const make = device.createBuffer.bind(device);
device.createBuffer = (d) => {
  const b = make(d);
  if (d.usage & 0x2) uploadBuffers += 1;
  return b;
};
const encoder = device.createCommandEncoder.bind(device);
device.createCommandEncoder = (...a) => {
  const e = encoder(...a);
  const copy = e.copyBufferToBuffer.bind(e);
  e.copyBufferToBuffer = (from, ...rest) => {
    if (from.usage & 0x2) stagedCopies += 1;
    return copy(from, ...rest);
  };
  return e;
};
const [W, H] = [1024, 1025];  // 4 MiB and more of float32: through a MAP_WRITE buffer
const mine = new Float32Array(W * H);
const arrays = [0, 1].map((k) => Float32Array.from({ length: W * H }, (_, i) => (i + k) % 23));
// Two arrays in turn, then the first changed in place: each run sends its own bytes.
for (const [k, bias] of [[0, 1], [1, 2], [0, 3], [0, 4]]) {
  input = arrays[k];
  if (bias === 4) input.fill(5, 0, 1000);
  await p.run({ input: { data: input, shape: [W, H] }, gain: 2, bias },
              { shape: [W, H], data: mine });
  out.runs.push({ ...taken(), uploadBuffers, stagedCopies,
    right: mine.every((v, i) => v === input[i] * 2 + bias) });
  uploadBuffers = stagedCopies = 0;
}
// Runs into a GPUBuffer, not awaited on the GPU, back to back: a run that finds the MAP_WRITE
// buffer still in use sends its input by writeBuffer; each is right and in order.
const dst = device.createBuffer({ size: W * H * 4, usage: 0x80 | 0x4 });
for (const bias of [6, 7, 8]) {
  await p.run({ input: { data: arrays[bias & 1], shape: [W, H] }, gain: 2, bias },
              { shape: [W, H], data: dst });
}
const back = device.createBuffer({ size: W * H * 4, usage: 0x1 | 0x8 });
const e = device.createCommandEncoder();
e.copyBufferToBuffer(dst, 0, back, 0, W * H * 4);
device.queue.submit([e.finish()]);
await back.mapAsync(0x1);
out.last = new Float32Array(back.getMappedRange()).every((v, i) => v === arrays[0][i] * 2 + 8);
await p.dispose();
out.disposed = true;
"""


def test_large_inputs_through_a_reused_map_write_buffer(packages):
    out = _node(packages, "brighten_f32", _LARGE_INPUT)
    first, *later = out["runs"]
    assert first["right"] and first["uploadBuffers"] == 1 and first["stagedCopies"] == 1, first
    for run in later:
        # No buffer made: the input goes through the MAP_WRITE buffer the first run made, its
        # copy submitted apart, not through writeBuffer (Dawn's staging per call).
        assert run["right"], run
        assert (run["createBuffer"], run["uploadBuffers"], run["stagedCopies"],
                run["fromCaller"], run["submit"]) == (0, 0, 1, 0, 2), run
    assert out["last"] and out["disposed"]
