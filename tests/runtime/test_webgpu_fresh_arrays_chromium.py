"""New large output arrays in a page (runtime_js/webgpu.js FreshArrays, issue 30): in headless
Chromium (SwiftShader) an output of at least 4 MiB read back into a new typed array comes in
an ArrayBuffer a blob: worker made; each run's array is right and its own. The same page
served with a Content-Security-Policy that forbids workers still gets right arrays, made on
the main thread at once (not after the 5 s the runtime waits for a worker that never answers).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from webhal import build
from webhal.runners.server import ISOLATION_HEADERS, StaticServer

GENERATORS = pathlib.Path(__file__).parent / "generators" / "gpu_io.py"
TARGET = "wasm-32-wasmrt-wasm_simd128-webgpu"
W, H = 1024, 1025  # float32: 4 MiB and more, a new array from the worker
WORKER_WAIT_MS = 5000  # runtime_js/webgpu.js: how long a worker's answer is waited for

# Counts the workers the page starts (and how their constructor ended) and the policy's
# refusals, then runs the brighten three times into new arrays, each timed.
_PAGE = """<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<script type="module">
const made = [];
const violations = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(e.effectiveDirective));
const Original = window.Worker;
window.Worker = class extends Original {
  constructor(...a) {
    try { super(...a); } catch (e) { made.push(e.name); throw e; }
    made.push('started');
  }
};
const result = { made, violations };
try {
  const { create } = await import('./brighten_f32/index.js');
  const p = await create({ variant: 'webgpu' });
  const [w, h] = [%(w)d, %(h)d];
  const input = Float32Array.from({ length: w * h }, (_, i) => i %% 19);
  const got = [];
  for (const bias of [1, 2, 3]) {
    const t = performance.now();
    const r = await p.run({ input: { data: input, shape: [w, h] }, gain: 2, bias },
                          { shape: [w, h] });
    got.push([bias, r.data, performance.now() - t]);
  }
  // Checked after the last run: no run wrote into an earlier run's array.
  result.runs = got.map(([bias, d, ms]) => ({ ms, type: d.constructor.name,
    whole: d.length === w * h && d.byteOffset === 0 && d.buffer.byteLength === w * h * 4,
    right: d.every((v, i) => v === input[i] * 2 + bias) }));
  result.distinct = new Set(got.map(([, d]) => d.buffer)).size;
  await p.dispose?.();
} catch (e) {
  result.error = String(e && e.stack || e);
}
window.webhalResult = result;
</script>
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory, emscripten):
    root = tmp_path_factory.mktemp("fresh-arrays")
    assert build.build(str(GENERATORS), "brighten_f32", str(root / "brighten_f32"), [TARGET],
                       quiet=True)
    (root / "index.html").write_text(_PAGE % {"w": W, "h": H})
    return root


def _open(site: pathlib.Path, headers: dict[str, str]) -> dict:
    """The page's result, served by a server of its own with `headers`, in the shared
    runner's headless Chromium."""
    from webhal.runners.browser import shared_runner

    browser = shared_runner().session.browser
    with StaticServer(site, headers=headers) as server:
        page = browser.new_page()
        try:
            page.set_default_timeout(120_000)
            page.goto(server.url + "/index.html")
            page.wait_for_function("() => window.webhalResult !== undefined", timeout=120_000)
            result = page.evaluate("window.webhalResult")
        finally:
            page.close()
    assert "error" not in result, result["error"]
    return result


def _right(result: dict) -> None:
    assert len(result["runs"]) == 3 and result["distinct"] == 3, json.dumps(result)
    for run in result["runs"]:
        assert run["type"] == "Float32Array" and run["whole"] and run["right"], run


@pytest.mark.slow
@pytest.mark.browser
def test_new_arrays_from_a_worker_and_without_one_in_chromium(site, browser_webgpu):
    served = _open(site, ISOLATION_HEADERS)
    _right(served)
    # One blob: worker, started once for all three runs; the policy refused nothing.
    assert served["made"] == ["started"] and served["violations"] == [], served

    forbidden = _open(site, {**ISOLATION_HEADERS, "Content-Security-Policy": "worker-src 'none'"})
    _right(forbidden)
    # The policy did refuse the worker, and no run waited for it: each took far less than
    # the runtime's wait for a worker's answer.
    assert forbidden["violations"] and set(forbidden["violations"]) == {"worker-src"}, forbidden
    assert all(run["ms"] < WORKER_WAIT_MS / 2 for run in forbidden["runs"]), forbidden["runs"]


def test_the_wait_named_here_is_the_runtimes():
    source = (pathlib.Path(__file__).parents[2] / "runtime_js" / "webgpu.js").read_text()
    assert f"const WORKER_WAIT_MS = {WORKER_WAIT_MS};" in source
