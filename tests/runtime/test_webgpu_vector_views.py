"""A package whose kernel reads and writes whole vec4s where the arguments allow
(passes/vector_buffers.py), run on dawn.node (SwiftShader, Tint) the way a page runs it: the
JS runtime launches the `_vec` kernel when the shapes make every vector's first index a
multiple of 4 and the scalar kernel otherwise, with typed arrays and with GPUBuffers of the
device, each output against numpy."""

from __future__ import annotations

import base64
import json
import pathlib

import numpy as np
import pytest

from webhal import build
from webhal.runners.node import run_node_source

GENERATORS = pathlib.Path(__file__).parent / "generators" / "vector_views.py"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu"]
# (width, height): 64 and 36 run the vector kernel; 66 (rows of 66 floats) and 37 do not.
SHAPES = [(64, 8), (36, 5), (66, 9), (37, 4)]

_SCRIPT = """
import { createRequire } from 'node:module';
import { create } from %(index)s;
const gpu = createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]);
const device = await (await gpu.requestAdapter()).requestDevice();
// Which entry point each dispatch ran: pipelines by entry point, passes' setPipeline watched.
const entries = new Map();
const makePipeline = device.createComputePipeline.bind(device);
device.createComputePipeline = (d) => {
  const p = makePipeline(d);
  entries.set(p, d.compute.entryPoint);
  return p;
};
const makeEncoder = device.createCommandEncoder.bind(device);
let ran = [];
device.createCommandEncoder = (...a) => {
  const e = makeEncoder(...a);
  const begin = e.beginComputePass.bind(e);
  e.beginComputePass = (...b) => {
    const pass = begin(...b);
    const set = pass.setPipeline.bind(pass);
    pass.setPipeline = (p) => { ran.push(entries.get(p)); return set(p); };
    return pass;
  };
  return e;
};
const p = await create({ device, variant: 'webgpu' });
const b64 = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const STORAGE = 0x80, COPY_DST = 0x8, COPY_SRC = 0x4, MAP_READ = 0x1;
const out = [];
for (const [w, h] of %(shapes)s) {
  const input = new Float32Array(w * h).map((_, i) => ((i * 37 + 11) %% 256) / 255);
  ran = [];
  const got = await p.run({ input: { data: input, shape: [w, h] }, gain: 1.5, bias: -0.25 },
                          { shape: [w, h] });
  const arrays = { ran, data: b64(got.data) };
  // The same on GPUBuffers of the device.
  const bytes = w * h * 4;
  const src = device.createBuffer({ size: bytes, usage: STORAGE | COPY_DST });
  device.queue.writeBuffer(src, 0, input);
  const dst = device.createBuffer({ size: bytes, usage: STORAGE | COPY_SRC });
  ran = [];
  await p.run({ input: { data: src, shape: [w, h] }, gain: 1.5, bias: -0.25 },
              { shape: [w, h], data: dst });
  const staging = device.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST });
  const e = device.createCommandEncoder();
  e.copyBufferToBuffer(dst, 0, staging, 0, bytes);
  device.queue.submit([e.finish()]);
  await staging.mapAsync(MAP_READ);
  const buffers = { ran, data: b64(new Float32Array(staging.getMappedRange().slice(0))) };
  out.push({ w, h, input: b64(input), arrays, buffers });
}
console.log(JSON.stringify(out));
process.exit(0);
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory, emscripten, dawn_node):
    root = tmp_path_factory.mktemp("vector-views")
    assert build.build(str(GENERATORS), "brighten_vec4", str(root / "p"), TARGETS, quiet=True)
    return root / "p"


def test_vector_kernel_where_aligned_scalar_elsewhere(package):
    wgsl = (package / "webgpu" / "brighten_vec4.wgsl").read_text()
    assert "array<vec4<f32>>" in wgsl
    source = _SCRIPT % {"index": json.dumps((package / "index.js").as_uri()),
                        "shapes": json.dumps(SHAPES)}
    runs = json.loads(run_node_source(source, dawn=True, what="vector views").stdout)
    for r in runs:
        w, h = r["w"], r["h"]
        image = np.frombuffer(base64.b64decode(r["input"]), np.float32)
        want = image * np.float32(1.5) + np.float32(-0.25)
        kernel = "kernel_0_output_vec" if w % 4 == 0 else "kernel_0_output"
        for how in ("arrays", "buffers"):
            assert r[how]["ran"] == [kernel], (w, h, how, r[how]["ran"])
            got = np.frombuffer(base64.b64decode(r[how]["data"]), np.float32)
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"{w}x{h} {how}")
