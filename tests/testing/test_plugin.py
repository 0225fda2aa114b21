"""The pytest plugin as a user meets it: a small project of its own, run by pytest in a fresh
process, finds webhal's fixtures through the pytest11 entry point, runs its generator on every
runtime, and skips (locally) or fails (CI) where a runtime is missing."""

from __future__ import annotations

import pytest

PIPELINES = '''
import webhal as hl

x, y = hl.Var("x"), hl.Var("y")


@hl.generator(name="sharpen_edges")
class SharpenEdges:
    input = hl.InputBuffer(hl.UInt(8), 2)
    gain = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        d = hl.i16(g.input[x + 1, y + 1]) * 2 - g.input[x, y + 1] - g.input[x + 1, y]
        g.output[x, y] = hl.u8(hl.clamp(hl.f32(d) * g.gain, 0.0, 255.0))
        if g.target().has_gpu_feature():
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
        else:
            g.output.vectorize(x, 8)
'''

USER_TESTS = '''
import numpy as np

from pipelines import SharpenEdges


def test_sharpen(webhal_run, webhal_runtime):
    image = np.random.default_rng(3).integers(0, 256, (21, 33), dtype=np.uint8)
    out = webhal_run(SharpenEdges, {"input": image, "gain": 1.5}, runtime=webhal_runtime,
                     outputs={"output": (20, 32)})
    assert out.shape == (20, 32) and out.dtype == np.uint8
    d = image[1:, 1:].astype(np.int16) * 2 - image[1:, :-1] - image[:-1, 1:]
    np.testing.assert_array_equal(out, np.clip(d * np.float32(1.5), 0, 255).astype(np.uint8))
'''


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.delenv("WEBHAL_EXPECT_ALL", raising=False)
    pytester.makepyfile(pipelines=PIPELINES, test_user=USER_TESTS)
    return pytester


def test_a_users_test_runs_on_every_runtime(project, emscripten, chromium, firefox, dawn_node,
                                            wgpu_adapter):
    result = project.runpytest_subprocess("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    for runtime in ("host", "wgpu", "wasmtime", "node", "browser", "firefox"):
        result.stdout.fnmatch_lines([f"*test_sharpen?{runtime}? PASSED*"])


def test_runtime_markers_select_the_fast_set(project):
    result = project.runpytest_subprocess("-m", "not browser and not gpu", "-p",
                                          "no:cacheprovider", "-k", "host")
    result.assert_outcomes(passed=1, deselected=5)


def test_a_missing_runtime_skips_locally_and_fails_in_ci(project, monkeypatch):
    monkeypatch.setenv("CHROME_PATH", "/nonexistent/chrome")
    result = project.runpytest_subprocess("-rs", "-k", "browser and not firefox", "-p",
                                          "no:cacheprovider")
    result.assert_outcomes(skipped=1, deselected=5)
    result.stdout.fnmatch_lines(["*the browser runtime is not available*CHROME_PATH*"])
    monkeypatch.setenv("WEBHAL_EXPECT_ALL", "1")
    result = project.runpytest_subprocess("-k", "browser and not firefox", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(["*WEBHAL_EXPECT_ALL=1 forbids skipping*"])


def test_a_missing_firefox_names_its_install_and_fails_in_ci(project, monkeypatch):
    monkeypatch.setenv("FIREFOX_PATH", "/nonexistent/firefox")
    result = project.runpytest_subprocess("-rs", "-k", "firefox", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1, deselected=5)
    result.stdout.fnmatch_lines(["*the firefox runtime is not available*FIREFOX_PATH*",
                                 "*apt-get install firefox-esr*"])
    monkeypatch.setenv("WEBHAL_EXPECT_ALL", "1")
    result = project.runpytest_subprocess("-k", "firefox", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, deselected=5)
