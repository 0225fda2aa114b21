"""Every demo of demos/ as `webhal demo` builds it: its page runs in headless Chromium on every
variant (WebGPU on SwiftShader, wasm threads, SIMD and scalar), and in headless Firefox (WebGPU
on lavapipe), each output matches the reference evaluator within the demo's tolerance, the
screenshot shows the pictures, the page's picker, slider and file input run the pipeline
again, and the gallery links every demo and names the browsers it was checked in."""

from __future__ import annotations

import numpy as np
import pytest

from webhal import demo_page
from webhal.glue import package_data

SAMPLES = 2  # timed batches a variant: the tests check outputs; `webhal demo` times 7
VARIANTS = ["webgpu", "threads", "simd", "scalar"]
# The autoscheduled variants beside them (pkg-auto/), unless the demo's page says why not.
AUTO_VARIANTS = ["auto-webgpu", "auto-threads", "auto-simd"]


def variants_of(name: str) -> list[str]:
    return VARIANTS + ([] if name in demo_page.AUTO_SKIPPED else AUTO_VARIANTS)


@pytest.fixture(scope="module")
def out_root(tmp_path_factory):
    return tmp_path_factory.mktemp("demos")


@pytest.mark.slow
@pytest.mark.parametrize("name", demo_page.names())
def test_every_variant_matches_the_reference_in_chromium(name, out_root, emscripten,
                                                         browser_webgpu):
    from webhal.runners.browser import shared_runner

    demo = demo_page.load(name)
    page = demo_page.build_page(demo, str(out_root))
    done = demo_page.check(demo, page, str(out_root), shared_runner(), samples=SAMPLES)
    assert [v.variant for v in done.variants] == variants_of(name)
    for v in done.variants:
        assert v.ok, f"{name} {v.variant}: {v.message}"
        assert v.median_ms > 0
    assert done.variants[0].adapter == "google swiftshader"
    # Left to choose, the page skips SwiftShader (slower than wasm) for the threads variant:
    # `webhal serve` isolates the page.
    assert done.automatic.get("variant") == "threads", done.automatic
    assert "webgpu skipped: software adapter" in done.automatic["reason"]
    from PIL import Image

    shot = np.asarray(Image.open(done.screenshot).convert("L"), dtype=np.float64)
    assert shot.shape[0] > 400 and shot.shape[1] > 600
    # Not blank: the two pictures take a large share of the page, with real contrast.
    assert shot.std() > 20 and len(np.unique(shot)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("name", demo_page.names())
def test_every_variant_matches_the_reference_in_firefox(name, out_root, emscripten,
                                                        firefox_webgpu):
    from webhal.runners.firefox import shared_firefox_runner

    demo = demo_page.load(name)
    page = demo_page.build_page(demo, str(out_root))  # the build cache has its variants
    done = demo_page.check(demo, page, str(out_root), shared_firefox_runner(),
                           screenshot_name="screenshot-firefox.png", samples=SAMPLES)
    assert [v.variant for v in done.variants] == variants_of(name)
    for v in done.variants:
        assert v.ok, f"{name} {v.variant} in Firefox: {v.message}"
        assert v.median_ms > 0
    assert done.variants[0].adapter == "lavapipe (Vulkan)"
    from PIL import Image

    shot = np.asarray(Image.open(done.screenshot).convert("L"), dtype=np.float64)
    assert done.screenshot.endswith("screenshot-firefox.png") and shot.shape[0] > 400
    assert shot.std() > 20 and len(np.unique(shot)) > 100


def test_the_gallery_links_every_demo(tmp_path):
    demos = [demo_page.load(n) for n in demo_page.names()]
    path = demo_page.write_gallery(str(tmp_path), demos, {})
    html = open(path).read()
    for demo in demos:
        assert f'href="{demo.name}/index.html"' in html and demo.title in html
    assert "Not checked in a browser yet" in html
    assert "-webcam/" not in html  # no live-camera page was built
    html = open(demo_page.write_gallery(str(tmp_path), demos, {}, live=["unsharp"])).read()
    assert 'href="unsharp-webcam/index.html"' in html and "Live camera" in html


def test_the_gallery_notes_the_browsers_and_both_times(tmp_path):
    demo = demo_page.load("blur")
    checks = {browser: {"blur": demo_page.DemoCheck(demo, "", "", [demo_page.VariantCheck(
        "simd", "wasm-32-wasmrt-wasm_simd128", "cpu", ms, (ms, ms), True)])}
        for browser, ms in (("chromium", 1.25), ("firefox", 2.5))}
    path = demo_page.write_gallery(str(tmp_path), [demo], checks["chromium"],
                                   firefox=checks["firefox"],
                                   browsers=["Chromium 156.0", "Firefox 153.8.0"])
    html = open(path).read()
    assert "in Chromium 156.0 and Firefox 153.8.0." in html
    assert "<th>Firefox ms</th>" in html and '<td class="ms">2.50</td>' in html
    assert '<td class="ms">1.25</td>' in html


def test_each_demo_declares_what_its_page_needs():
    for name in demo_page.names():
        demo = demo_page.load(name)
        assert demo.layout in ("gray", "rgb") and demo.title and demo.description
        arguments = dict(demo.generator().arguments())
        assert {"input", "output"} <= set(arguments)
        assert arguments["input"].dimensions == (2 if demo.layout == "gray" else 3)
        for scalar, s in demo.scalars.items():
            assert scalar in arguments and s["min"] <= s["default"] <= s["max"]


_CANVAS = """(id) => {
  const c = document.getElementById(id);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height);
  return { width: c.width, height: c.height, data: Array.from(d.data) };
}"""


def _planes(page, canvas_id: str) -> np.ndarray:
    """A canvas's R, G and B as planes (3, height, width)."""
    c = page.evaluate(_CANVAS, canvas_id)
    rgba = np.array(c["data"], dtype=np.uint8).reshape(c["height"], c["width"], 4)
    return np.ascontiguousarray(rgba[..., :3].transpose(2, 0, 1))


@pytest.mark.slow
def test_the_picker_the_slider_and_an_image_of_ones_own_rerun_the_pipeline(
        out_root, emscripten, chromium):
    from webhal.runners.browser import shared_runner
    from webhal.testing.harness import Subject

    demo = demo_page.load("unsharp")
    demo_page.build_page(demo, str(out_root))
    runner = shared_runner()
    page = runner.session.open(runner.mount(out_root) + "/unsharp/index.html")
    try:
        page.wait_for_function("document.getElementById('status').textContent"
                               ".startsWith('webgpu')", timeout=120_000)
        page.select_option("#variant", "simd")
        page.evaluate("""() => { const s = document.getElementById('scalar-amount');
                                 s.value = '3'; s.dispatchEvent(new Event('input')); }""")
        page.evaluate("window.webhalIdle()")
        assert page.text_content("#status").startswith("simd: wasm-32-wasmrt-wasm_simd128")
        shown = {"slider": (_planes(page, "input"), _planes(page, "output"), 3.0)}
        page.set_input_files("#file", str(package_data.folder("demos") / "images"
                                          / "camera.png"))
        page.evaluate("window.webhalIdle()")
        shown["own image"] = (_planes(page, "input"), _planes(page, "output"), 3.0)
    finally:
        page.close()
    camera, _, _ = shown["own image"]
    assert camera.shape == (3, 512, 512) and (camera[0] == camera[1]).all()  # the grey photo
    for what, (image, output, amount) in shown.items():
        subject = Subject(f"{demo.path}:unsharp", inputs={"input": image, "amount": amount},
                          output_shapes={"output": image.shape})
        ok, _, message = subject.compare({"output": output})
        assert ok, f"{what}: {message}"


def test_the_table_shows_firefoxs_times_beside_chromiums():
    from rich.console import Console

    from webhal import demo as command

    def done(ms, adapter):
        return demo_page.DemoCheck(demo_page.load("blur"), "", "", [demo_page.VariantCheck(
            v, "", adapter if v == "webgpu" else "cpu", ms, (ms - 1, ms + 1), True)
            for v in VARIANTS], (512, 512))

    console = Console(record=True, width=120)
    console.print(command._summary([done(45.75, "google swiftshader")],
                                   {"blur": done(106.34, "lavapipe (Vulkan)")}))
    text = console.export_text()
    assert "Chromium and Firefox" in text and "Firefox ms" in text
    assert "45.75" in text and "106.34" in text and "(105.34-107.34)" in text
    assert "Firefox's webgpu variant ran on lavapipe (Vulkan)" in text
