"""Runs on GPUBuffers replayed (runtime_js/webgpu.js, issue 30): a run whose arguments are the
same GPUBuffers, shapes and scalars as an earlier run's submits that run's dispatches again
without calling the wasm, and any change (a scalar, a buffer, a shape, a buffer of the
runtime's remade, host data uploaded) runs the pipeline. On dawn.node (SwiftShader), each
output read back from its GPUBuffer and checked against the pipeline's definition (small
integers in float32, so every result is exact)."""

from __future__ import annotations

import json
import pathlib

import pytest

from webhal import build
from webhal.runners.node import run_node_source

HERE = pathlib.Path(__file__).parent / "generators"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu"]
PACKAGES = {"brighten_f32": HERE / "gpu_io.py", "two_kernels": HERE / "gpu_replay.py",
            "host_table": HERE / "gpu_replay.py"}


@pytest.fixture(scope="module")
def packages(tmp_path_factory, emscripten, dawn_node):
    root = tmp_path_factory.mktemp("gpu-replay")
    for name, generators in PACKAGES.items():
        build.build(str(generators), name, str(root / name), TARGETS, quiet=True)
    return root


# `step` runs p once (the output cleared first) and notes how often the wasm entry was called
# and how many submissions the run made, and whether the output is `want(i)` at every i.
_SCRIPT = """
import { createRequire } from 'node:module';
const gpu = createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]);
const device = await (await gpu.requestAdapter()).requestDevice();
const load = async (name) => (await import(%(root)s + name + '/index.js')).create(
  { device, variant: 'webgpu' });
const STORAGE = 0x80, COPY_DST = 0x8, COPY_SRC = 0x4, MAP_READ = 0x1;
let submits = 0;
const submit = device.queue.submit.bind(device.queue);
device.queue.submit = (b) => { submits++; return submit(b); };
const buffer = (bytes) => device.createBuffer({ size: Math.ceil(bytes / 4) * 4,
  usage: STORAGE | COPY_DST | COPY_SRC });
const write = (b, array) => {
  const words = new Uint8Array(Math.ceil(array.byteLength / 4) * 4);
  words.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  device.queue.writeBuffer(b, 0, words);
};
const read = async (b, Type, count) => {
  const staging = device.createBuffer({ size: b.size, usage: MAP_READ | COPY_DST });
  const e = device.createCommandEncoder();
  e.copyBufferToBuffer(b, 0, staging, 0, b.size);
  submit([e.finish()]);
  await staging.mapAsync(MAP_READ);
  const got = new Type(staging.getMappedRange().slice(0)).subarray(0, count);
  staging.destroy();
  return got;
};
const out = {};
const watch = (p, name) => {
  const call = p._callNow;
  const seen = { entries: 0 };
  p._callNow = (a) => { seen.entries++; return call(a); };
  out[name] = [];
  return async (what, inputs, outputs, Type, want) => {
    if (want) {
      const e = device.createCommandEncoder();
      e.clearBuffer(outputs.data);
      submit([e.finish()]);
    }
    const [entries, submitted] = [seen.entries, submits];
    let step;
    try {
      const result = await p.run(inputs, outputs);
      step = { what, entries: seen.entries - entries, submits: submits - submitted,
        same: result.data === outputs.data && result.shape.join() === outputs.shape.join() };
    } catch (error) {
      out[name].push({ what, error: error.message });
      return;
    }
    const count = outputs.shape.reduce((a, b) => a * b);
    const got = await read(outputs.data, Type, count);
    const bad = got.findIndex((v, i) => v !== want(i));
    step.wrong = bad < 0 ? null : [bad, got[bad], want(bad)];
    out[name].push(step);
  };
};

// brighten_f32: output = input * gain + bias.
{
  const p = await load('brighten_f32');
  const step = watch(p, 'brighten');
  const [w, h] = [37, 5];
  let values = Float32Array.from({ length: w * h }, (_, i) => i %% 17);
  const input = buffer(w * h * 4);
  write(input, values);
  const [a, b] = [buffer(w * h * 4), buffer(w * h * 4)];
  const args = (gain, bias, data = input, shape = [w, h]) => ({ input: { data, shape }, gain,
    bias });
  const f = (gain, bias, x = values) => (i) => x[i] * gain + bias;
  await step('first', args(2, 1), { shape: [w, h], data: a }, Float32Array, f(2, 1));
  await step('again', args(2, 1), { shape: [w, h], data: a }, Float32Array, f(2, 1));
  await step('bias changed', args(2, 5), { shape: [w, h], data: a }, Float32Array, f(2, 5));
  await step('bias back', args(2, 1), { shape: [w, h], data: a }, Float32Array, f(2, 1));
  await step('-0 for 0', args(2, -0), { shape: [w, h], data: a }, Float32Array, f(2, 0));
  await step('another output', args(2, 1), { shape: [w, h], data: b }, Float32Array, f(2, 1));
  await step('the first output', args(2, 1), { shape: [w, h], data: a }, Float32Array, f(2, 1));
  values = Float32Array.from({ length: w * h }, (_, i) => (i * 5) %% 23);
  write(input, values);
  await step('new input data', args(2, 1), { shape: [w, h], data: a }, Float32Array, f(2, 1));
  const narrow = (i) => values[Math.floor(i / (w - 1)) * (w - 1) + (i %% (w - 1))] * 2 + 1;
  await step('narrower', args(2, 1, input, [w - 1, h]), { shape: [w - 1, h], data: a },
    Float32Array, narrow);
  await step('unknown input', { ...args(2, 1), gian: 3 }, { shape: [w, h], data: a });
  await step('bad scalar', args('2', 1), { shape: [w, h], data: a });
  await step('missing output data', args(2, 1), { shape: [w, h], data: {} });
  await step('after the errors', args(2, 1), { shape: [w, h], data: a }, Float32Array, f(2, 1));
  // Ping-pong: each run reads the other's output.
  write(a, values);
  let chain = values;
  for (const [what, from, to] of [['ping', a, b], ['pong', b, a], ['ping again', a, b],
                                  ['pong again', b, a]]) {
    const x = chain;
    await step(what, args(2, 1, from), { shape: [w, h], data: to }, Float32Array, f(2, 1, x));
    chain = Float32Array.from(x, (v) => v * 2 + 1);
  }
}

// two_kernels: an intermediate of the runtime's sized by the output.
{
  const p = await load('two_kernels');
  const step = watch(p, 'two_kernels');
  const values = Float32Array.from({ length: 38 * 7 }, (_, i) => (i * 7) %% 13);
  const input = buffer(values.byteLength);
  write(input, values);
  const output = buffer(37 * 5 * 4);
  const run = (what, w, h, array = false) => {
    const at = (x, y) => values[y * (w + 1) + x];  // the input's shape is [w + 1, h + 2]
    const sums = (x, y) => at(x, y) + at(x + 1, y);
    const data = array ? values.subarray(0, (w + 1) * (h + 2)) : input;
    return step(what, { input: { data, shape: [w + 1, h + 2] } },
      { shape: [w, h], data: output }, Float32Array,
      (i) => sums(i %% w, Math.floor(i / w)) + 2 * sums(i %% w, Math.floor(i / w) + 1));
  };
  await run('first', 37, 5);
  await run('again', 37, 5);
  // A run that leaves no replay (its input is an array) remakes the intermediate smaller.
  await run('smaller, from an array', 20, 3, true);
  await run('first shape again', 37, 5);
  await run('and again', 37, 5);
  await run('smaller', 20, 3);
  await run('first shape once more', 37, 5);
}

// host_table: the host computes a table from `scale` and uploads it.
{
  const p = await load('host_table');
  const step = watch(p, 'host_table');
  const [w, h] = [37, 5];
  const values = Uint8Array.from({ length: w * h }, (_, i) => (i * 37 + 11) & 255);
  const input = buffer(w * h);
  write(input, values);
  const output = buffer(w * h * 4);
  for (const [what, scale] of [['first', 3], ['again', 3], ['scale changed', 7], ['back', 3]]) {
    await step(what, { input: { data: input, shape: [w, h] }, scale },
      { shape: [w, h], data: output }, Int32Array, (i) => values[i] * scale + 1);
  }
}
console.log(JSON.stringify(out));
process.exit(0);
"""


@pytest.fixture(scope="module")
def runs(packages):
    root = json.dumps(packages.as_uri() + "/")
    # (the last line: WebGPU's uncaptured errors, if any, come before it)
    stdout = run_node_source(_SCRIPT % {"root": root}, dawn=True,
                             what="replays on dawn.node").stdout
    return json.loads(stdout.strip().splitlines()[-1])


def _steps(runs, name):
    return {step["what"]: step for step in runs[name]}


def test_the_same_arguments_replay_and_any_change_runs_the_pipeline(runs):
    steps = _steps(runs, "brighten")
    replayed = {"again", "bias back", "the first output", "new input data", "after the errors",
                "ping again", "pong again"}
    for what, step in steps.items():
        if "error" in step:
            continue
        # Every output is right; one submission a run; the wasm runs unless it is a replay.
        assert step["wrong"] is None and step["same"], step
        assert step["submits"] == 1, step
        assert step["entries"] == (0 if what in replayed else 1), step
    assert steps["unknown input"]["error"] == ('brighten_f32.run: unknown input "gian"; the '
                                               'inputs are input, gain, bias')
    assert steps["bad scalar"]["error"] == "brighten_f32.run: gain must be a number (float32), " \
        "not string"
    assert steps["missing output data"]["error"].startswith(
        "brighten_f32.run: the data of output output must be a GPUBuffer")


def test_a_buffer_of_the_runtime_remade_voids_the_replays(runs):
    steps = _steps(runs, "two_kernels")
    for step in steps.values():
        assert step["wrong"] is None and step["submits"] == 1, step
    # The intermediate was remade at the smaller size: the first shape runs the pipeline again.
    assert [s["entries"] for s in steps.values()] == [1, 0, 1, 1, 0, 1, 1]


def test_a_run_that_uploads_host_data_is_never_replayed(runs):
    steps = _steps(runs, "host_table")
    for step in steps.values():
        assert step["wrong"] is None and step["entries"] == 1, step
