"""webhal.runners.firefox.FirefoxRunner: built packages of each kind the correctness suite
covers (several types, a boundary condition, a reduction, two outputs, scalars, kernels, a CPU
stage feeding a kernel and one reading a kernel's result) on every variant in headless Firefox
(SpiderMonkey, and WebGPU on wgpu/naga over lavapipe), compared with the reference; errors
carry Firefox's message; a missing Firefox is named with its install command."""

from __future__ import annotations

import pathlib

import pytest

from webhal.errors import BrowserError
from webhal.testing import harness, runtimes
from webhal.toolchain import clear_caches

GENERATORS = pathlib.Path(__file__).parents[1] / "glue" / "generators" / "pipelines.py"
CPU_TARGETS = ["wasm-32-wasmrt-wasm_simd128-wasm_threads", "wasm-32-wasmrt-wasm_simd128",
               "wasm-32-wasmrt"]
CPU_VARIANTS = ["threads", "simd", "scalar"]

# One package per kind (tests/glue/generators/pipelines.py), with every variant it can have
# (a generator without a GPU schedule has no webgpu variant); the build cache shares the
# variants with the Chromium and Node tests that build the same generators.
KINDS = {
    "blur_gpu": "uint8 and uint16, two kernels, the intermediate packed on the device",
    "mixed_gpu": "a CPU stage feeding a kernel, a float32 scalar, float32 out",
    "blur_edges": "uint16 with a boundary condition, parallel strips",
    "stats": "int16 and float64 in, a reduction, two outputs, int32 and bool scalars",
}
GPU_KINDS = {"blur_gpu", "mixed_gpu"}


@pytest.fixture(scope="module")
def runner(firefox):
    from webhal.runners.firefox import shared_firefox_runner

    return shared_firefox_runner()


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_variant_of_each_kind_matches_the_reference(kind, runner, firefox_webgpu,
                                                          emscripten, tmp_path_factory):
    gpu = kind in GPU_KINDS
    subject = harness.Subject(f"{GENERATORS}:{kind}")
    targets = ["wasm-32-wasmrt-webgpu"] * gpu + CPU_TARGETS
    directory = subject.package(targets, str(tmp_path_factory.mktemp("firefox") / kind))
    for variant in ["webgpu"] * gpu + CPU_VARIANTS:
        run = runner.run_package(directory, subject.inputs, subject.output_shapes,
                                 variant=variant, samples=2, min_batch_ms=2)
        ok, _, message = subject.compare(run.outputs)
        assert ok, f"{kind} ({KINDS[kind]}), {variant} variant in Firefox: {message}"
        assert run.variant == variant and len(run.times_ms) == 2
        assert run.adapter_name == ("lavapipe (Vulkan)" if variant == "webgpu" else "cpu")
    assert runner.alive  # one Firefox for every run


def test_firefox_offers_lavapipe_crossorigin_isolated(runner, firefox_webgpu):
    assert firefox_webgpu.runtime == "firefox"
    assert firefox_webgpu.description == "lavapipe (Vulkan)"  # Firefox leaves the info empty
    assert runner.version.startswith("firefox/")


def test_a_page_that_throws_is_an_exception_with_its_message(runner, tmp_path):
    (tmp_path / "index.html").write_text(
        "<!doctype html><script>console.warn('about to fail');"
        "setTimeout(() => { throw new Error('the page broke') })</script>")
    with pytest.raises(BrowserError, match="threw in Firefox: .*the page broke") as caught:
        runner.run_page(runner.mount(tmp_path) + "/index.html", timeout_s=10)
    assert "warn: about to fail" in caught.value.console


def test_a_page_that_never_reports_times_out(runner, tmp_path):
    (tmp_path / "index.html").write_text("<!doctype html><title>silent</title>"
                                         "<script>console.log('still working')</script>")
    with pytest.raises(BrowserError, match="did not finish in Firefox within 3 s") as caught:
        runner.run_page(runner.mount(tmp_path) + "/index.html", timeout_s=3)
    assert "log: still working" in caught.value.console


def test_a_page_reports_cross_origin_isolated_and_is_screenshot(runner, tmp_path):
    (tmp_path / "index.html").write_text(
        "<!doctype html><body style='margin:0;background:#204080'>"
        "<script>window.webhalResult = { isolated: self.crossOriginIsolated,"
        " shared: typeof SharedArrayBuffer }</script>")
    shot = tmp_path / "shot.png"
    value, _ = runner.run_page(runner.mount(tmp_path) + "/index.html", screenshot=shot)
    assert value == {"isolated": True, "shared": "function"}
    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB"))
    assert tuple(pixels[10, 10]) == (0x20, 0x40, 0x80)


@pytest.fixture
def no_firefox(monkeypatch):
    monkeypatch.setenv("FIREFOX_PATH", "/nonexistent/firefox")
    clear_caches()
    yield
    monkeypatch.undo()
    clear_caches()


def test_a_missing_firefox_names_its_install_and_fails_under_ci(no_firefox, monkeypatch):
    why = harness.missing_runtime("firefox", "wasm-32-wasmrt")
    assert why is not None and "apt-get install firefox-esr" in str(why)
    monkeypatch.delenv(runtimes.EXPECT_ALL_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install firefox-esr"):
        runtimes.firefox()
    monkeypatch.setenv(runtimes.EXPECT_ALL_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="forbids skipping"):
        runtimes.firefox()


@pytest.mark.slow
def test_webhal_tests_report_names_firefoxs_adapter_and_keeps_the_console(runner, tmp_path,
                                                                          firefox_webgpu,
                                                                          emscripten):
    import xml.etree.ElementTree as ET

    from webhal.testing import report

    subject = harness.Subject(f"{GENERATORS}:blur_gpu")
    cases = harness.plan(["firefox"], ["wasm-32-wasmrt-webgpu", "wasm-32-wasmrt-wasm_simd128"])
    outcomes = harness.run_cases(subject, cases, str(tmp_path), samples=1)
    assert [(o.case.id, o.ok, o.adapter) for o in outcomes] == [
        ("firefox-webgpu", True, "lavapipe (Vulkan)"), ("firefox-simd", True, "cpu")]
    outcomes[1].console = ["warn: a line the page logged"]
    report.write_junit(tmp_path / "report.xml", "webhal.blur_gpu", outcomes)
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "report.xml").iter("testcase")}
    props = {p.get("name"): p.get("value") for p in cases["firefox-webgpu"].iter("property")}
    assert props["adapter"] == "lavapipe (Vulkan)" and float(props["median_ms"]) > 0
    assert cases["firefox-simd"].find("system-out").text == "warn: a line the page logged"
