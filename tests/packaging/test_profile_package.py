"""An npm package built for a target with `profile` (issue 30, item 6): p.profile() returns the
report of the runs so far, in Halide's format and as data whose Funcs are the pipeline's and
add up to the run; profile({ reset: true }) forgets them; without profile, p.profile() is
null. In Node."""

from __future__ import annotations

import json
import pathlib

import pytest

from webhal import build
from webhal.runners.node import run_node_source
from webhal.runtime.profiler import parse_report

GENERATORS = pathlib.Path(__file__).parent / "profile_generator.py"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-profile", "wasm-32-wasmrt"]

SCRIPT = """
import { create } from %(index)s;
const [w, h] = [512, 384];
const input = new Float32Array(w * h).map((_, i) => (i %% 97) / 97);
const out = {};
for (const variant of ['simd', 'scalar']) {
  const p = await create({ variant });
  const t0 = performance.now();
  const args = { input: { data: input, shape: [w, h] } };
  for (let i = 0; i < 3; i++) await p.run(args, { shape: [w, h] });
  out[variant] = { wallMs: performance.now() - t0, profile: p.profile() };
  if (variant === 'simd') out.reset = p.profile({ reset: true }) && p.profile();
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory, emscripten, node):
    root = tmp_path_factory.mktemp("profile-package")
    assert build.build(str(GENERATORS), "profiled_blur", str(root / "pkg"), TARGETS, quiet=True)
    return root / "pkg"


def test_profile_of_a_package(package):
    index = json.dumps((package / "index.js").as_uri())
    got = json.loads(run_node_source(SCRIPT % {"index": index}, what="profile in Node").stdout)
    simd = got["simd"]["profile"]
    [p] = simd["pipelines"]
    assert p["name"] == "output" and p["runs"] == 3
    funcs = {r["name"]: r for r in p["sections"]["funcs"]}
    assert set(funcs) - {"overhead"} == {"blur_x", "output"}
    # The Funcs add up to the run, and the runs' wasm time to (most of) the calls' wall clock.
    assert sum(r["ms"] for r in funcs.values()) == pytest.approx(p["perRunMs"], abs=0.01)
    assert 3 * p["perRunMs"] <= got["simd"]["wallMs"]
    assert [q["name"] for q in parse_report(simd["text"])] == ["output"]  # Halide's format
    assert got["reset"] == {"text": "", "pipelines": []}
    assert got["scalar"]["profile"] is None  # built without profile
