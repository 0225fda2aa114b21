"""webhal.runners.browser.BrowserRunner: a built package on each variant in headless Chromium
(WebGPU on SwiftShader), compared with the reference; a page that throws, a missing WebGPU
adapter and a timeout become BrowserErrors carrying the browser's message."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from webhal.errors import BrowserError
from webhal.testing import harness

GENERATORS = pathlib.Path(__file__).parents[1] / "glue" / "generators" / "pipelines.py"
TARGETS = ["wasm-32-wasmrt-webgpu", "wasm-32-wasmrt-wasm_simd128-wasm_threads",
           "wasm-32-wasmrt-wasm_simd128", "wasm-32-wasmrt"]
NO_WEBGPU = "Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined });"


@pytest.fixture(scope="module")
def blur(tmp_path_factory, emscripten):
    subject = harness.Subject(f"{GENERATORS}:blur_gpu")
    directory = subject.package(TARGETS, str(tmp_path_factory.mktemp("runner") / "blur"))
    return subject, directory


@pytest.fixture(scope="module")
def runner(chromium):
    from webhal.runners.browser import shared_runner

    return shared_runner()


def test_every_variant_matches_the_reference_and_is_timed(blur, runner, browser_webgpu):
    subject, directory = blur
    for variant in ("webgpu", "threads", "simd", "scalar"):
        run = runner.run_package(directory, subject.inputs, subject.output_shapes,
                                 variant=variant, samples=3, min_batch_ms=5)
        ok, _, message = subject.compare(run.outputs)
        assert ok, f"{variant}: {message}"
        assert run.variant == variant and len(run.times_ms) == 3 and run.batch >= 1
        assert all(t > 0 for t in run.times_ms)
        assert run.adapter_name == ("google swiftshader" if variant == "webgpu" else "cpu")
    assert runner is not None and runner.alive  # one browser for every run


def test_the_input_size_comes_from_a_bounds_query():
    subject = harness.Subject(f"{GENERATORS}:blur_gpu")  # no package: this test is fast
    assert subject.output_shapes == {"output": (48, 64)}
    assert subject.inputs["input"].shape == (50, 66)  # the blur reads two pixels beyond


def test_a_page_that_throws_is_an_exception_with_its_message(blur, runner):
    subject, directory = blur
    with pytest.raises(BrowserError, match="threw in Chromium: the page broke"):
        runner.run_package(directory, subject.inputs, subject.output_shapes, variant="simd",
                           init_script="setTimeout(() => { throw new Error('the page broke') })")


def test_bad_arguments_come_back_with_the_packages_message(blur, runner):
    subject, directory = blur
    with pytest.raises(BrowserError, match=r"blur_gpu.run: .*input"):
        runner.run_package(directory, {}, subject.output_shapes, variant="scalar")


def test_no_webgpu_adapter_is_named(blur, runner):
    subject, directory = blur
    with pytest.raises(BrowserError, match="variant webgpu: no WebGPU here"):
        runner.run_package(directory, subject.inputs, subject.output_shapes, variant="webgpu",
                           init_script=NO_WEBGPU)


def test_a_page_that_never_reports_times_out(runner, tmp_path):
    (tmp_path / "index.html").write_text("<!doctype html><title>silent</title>"
                                         "<script>console.log('still working')</script>")
    with pytest.raises(BrowserError, match="within 1 s") as caught:
        runner.run_page(runner.mount(tmp_path) + "/index.html", timeout_s=1)
    assert "log: still working" in caught.value.console


def test_a_page_reports_and_is_screenshot(runner, tmp_path):
    (tmp_path / "index.html").write_text(
        "<!doctype html><body style='margin:0;background:#204080'>"
        "<script>window.webhalResult = { isolated: self.crossOriginIsolated }</script>")
    shot = tmp_path / "shot.png"
    value, _ = runner.run_page(runner.mount(tmp_path) + "/index.html", screenshot=shot)
    assert value == {"isolated": True}
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB"))
    assert tuple(pixels[10, 10]) == (0x20, 0x40, 0x80)
