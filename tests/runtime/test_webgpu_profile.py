"""The profiler on a package's webgpu variant (issue 30, item 6): built with `profile`, the
JavaScript WebGPU runtime times each kernel (timestamp queries where the device has
'timestamp-query', else the wall clock of its submission) and each upload and readback, and
p.profile() adds them to the wasm's report in the sections the Python GPU runtimes print. On
dawn.node (SwiftShader), which offers timestamp-query; the wall clock on a device made without
it."""

from __future__ import annotations

import json
import pathlib

import pytest

from webhal import build
from webhal.runners.node import run_node_source
from webhal.runtime.profiler import parse_report

GENERATORS = pathlib.Path(__file__).parent / "generators" / "gpu_profile.py"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu-profile", "wasm-32-wasmrt-wasm_simd128"]

SCRIPT = """
import { createRequire } from 'node:module';
import { create } from %(index)s;
const gpu = createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS).create([]);
const [w, h] = [256, 192];
const input = new Float32Array(w * h).map((_, i) => (i %% 97) / 97);
const args = { input: { data: input, shape: [w, h] } };
const out = {};
// The GPU's float rounding differs from wasm's (a degree-32 polynomial): equal to 1e-4.
const same = (a, b) => a.length === b.length
  && a.every((v, i) => Math.abs(v - b[i]) <= 1e-4 * Math.max(1, Math.abs(b[i])));
const cpu = await create({ variant: 'simd' });
const want = (await cpu.run(args, { shape: [w, h] })).data;
out.cpuProfile = cpu.profile();
// timestamp-query: requested by create(); none: a device of the caller's without it.
for (const timing of ['timestamps', 'wall']) {
  const device = timing === 'wall' ? await (await gpu.requestAdapter()).requestDevice() : undefined;
  const p = await create({ gpu, device, variant: 'webgpu' });
  let equal = true;
  for (let i = 0; i < 3; i++) equal &&= same((await p.run(args, { shape: [w, h] })).data, want);
  const profile = p.profile();
  const reset = p.profile({ reset: true });
  const afterReset = p.profile();
  await p.run(args, { shape: [w, h] });
  out[timing] = { equal, profile, reset: reset.text === profile.text, afterReset,
    again: p.profile(), features: [...p.device.features] };
}
console.log(JSON.stringify(out));
process.exit(0);
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory, emscripten, dawn_node):
    root = tmp_path_factory.mktemp("gpu-profile")
    assert build.build(str(GENERATORS), "profiled_gpu_blur", str(root / "pkg"), TARGETS,
                       quiet=True)
    return root / "pkg"


@pytest.fixture(scope="module")
def profiles(package):
    index = json.dumps((package / "index.js").as_uri())
    return json.loads(run_node_source(SCRIPT % {"index": index}, dawn=True,
                                      what="profiled webgpu variant on dawn.node").stdout)


def _kernel_names(package) -> list[str]:
    [manifest] = (package / "webgpu").glob("*.wgsl.json")
    return [k["name"] for k in json.loads(manifest.read_text())["kernels"]]


@pytest.mark.parametrize("timing", ["timestamps", "wall"])
def test_kernels_and_copies_in_the_report(package, profiles, timing):
    got = profiles[timing]
    assert got["equal"]  # the wasm variant's result
    [p] = got["profile"]["pipelines"]
    assert p["name"] == "output" and p["runs"] == 3
    sections = {name: {r["name"]: r["ms"] for r in rows} for name, rows in p["sections"].items()}
    assert set(sections["funcs"]) == {"overhead", "blur_x", "output"}
    assert list(sections["gpu kernels"]) == _kernel_names(package)
    assert list(sections["buffer copies to device"]) == ["input"]
    assert list(sections["buffer copies to host"]) == ["output"]
    assert all(ms > 0 for rows in sections.values() for ms in rows.values() if rows is not
               sections["funcs"] and (timing == "timestamps" or rows is not
                                      sections["gpu kernels"]))
    kernels = sum(sections["gpu kernels"].values())
    assert kernels > 0
    # The Funcs (the wait for the GPU after the wasm returned as overhead) add up to the run,
    # and the kernels, waited for within it, fit in it.
    assert sum(sections["funcs"].values()) == pytest.approx(p["perRunMs"], abs=0.01)
    assert kernels <= p["perRunMs"] * 1.01
    if timing == "timestamps":
        assert "timestamp-query" in got["features"]
        assert p["kernelTiming"] == "timestamp-query"
    else:
        assert "timestamp-query" not in got["features"]
        assert p["kernelTiming"] == "wall clock per submission (no timestamp-query)"
    # Python's parser reads the same report (Halide's format, webhal's sections).
    [q] = parse_report(got["profile"]["text"])
    assert {s: [r[0] for r in rows] for s, rows in q["rows"].items()} == \
        {s: list(rows) for s, rows in sections.items()}
    # Reset empties both halves: the next run is reported alone.
    assert got["reset"] and got["afterReset"] == {"text": "", "pipelines": []}
    [again] = got["again"]["pipelines"]
    assert again["runs"] == 1 and list(again["sections"]) == list(p["sections"])
    assert again["sections"]["gpu kernels"][0]["percent"] <= 100


def test_unprofiled_variant_has_no_profile(profiles):
    assert profiles["cpuProfile"] is None
