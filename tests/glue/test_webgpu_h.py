"""A user's own C code on Emscripten's webgpu.h in an npm package (`webhal build --c-source
--export`): on the webgpu variant it runs its own compute shader on the package's GPUDevice
(through 3.1.6's stale bindings, forwarded), and the pipeline then reads the buffer it filled
in place; in Node on dawn.node and in headless Chromium. The wasm variants link it too."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from webhal import build
from webhal.errors import CompileError
from webhal.runners.node import run_node_source

HERE = pathlib.Path(__file__).parent
GENERATORS = HERE / "generators" / "pipelines.py"
C_SOURCE = HERE / "c" / "fill_on_gpu.c"
N = 1000

# Every variant: C fills a GPUBuffer on the package's device (or says it has no GPU), and the
# webgpu variant's pipeline reads that GPUBuffer as its input.
_SCRIPT = """
const results = {};
for (const variant of ['webgpu', 'simd']) {
  const p = await create({ variant });
  const code = p.module._fill_on_gpu(%(n)d);
  if (code !== 0) { results[variant] = { code }; continue; }
  const input = { data: p.module.filledByC, shape: [%(n)d] };
  const out = await p.run({ input }, { shape: [%(n)d] });
  let wrong = 0;
  for (let i = 0; i < %(n)d; i++) if (out.data[i] !== ((i * 7) %% 256) * 3 + 1) wrong++;
  results[variant] = { code, wrong, first: Array.from(out.data.slice(0, 4)) };
}
"""
EXPECTED = {"webgpu": {"code": 0, "wrong": 0, "first": [1, 22, 43, 64]}, "simd": {"code": -1}}


@pytest.fixture(scope="module")
def package(tmp_path_factory, emscripten):
    directory = tmp_path_factory.mktemp("webgpu-h") / "scale"
    build.build(str(GENERATORS), "scale_u32", str(directory),
                ["wasm-32-wasmrt-wasm_simd128-webgpu", "wasm-32-wasmrt-wasm_simd128"],
                quiet=True, c_sources=[str(C_SOURCE)], c_exports=["fill_on_gpu"])
    return directory


def test_c_on_webgpu_h_shares_the_device_in_node(package, dawn_node):
    source = f"import {{ create }} from {json.dumps((package / 'index.js').as_uri())};\n"
    source += _SCRIPT % {"n": N} + "console.log(JSON.stringify(results));\nprocess.exit(0);\n"
    done = run_node_source(source, dawn=True, what="C on webgpu.h in Node")
    assert json.loads(done.stdout.strip().splitlines()[-1]) == EXPECTED


def test_c_on_webgpu_h_shares_the_device_in_chromium(package, browser_webgpu, tmp_path):
    from webhal.runners.browser import shared_runner

    shutil.copytree(package, tmp_path / "scale")
    (tmp_path / "index.html").write_text(
        "<!doctype html><script type=module>\nimport { create } from './scale/index.js';\n"
        + _SCRIPT % {"n": N} + "window.webhalResult = results;\n</script>\n")
    runner = shared_runner()
    result, _ = runner.run_page(runner.mount(tmp_path) + "/index.html")
    assert result == EXPECTED


def test_a_missing_c_source_or_export_is_named(tmp_path):
    with pytest.raises(CompileError, match="C source .*nope.c is not"):
        build.build(str(GENERATORS), "brighten", str(tmp_path / "p"), ["wasm-32-wasmrt"],
                    quiet=True, c_sources=[str(tmp_path / "nope.c")])
