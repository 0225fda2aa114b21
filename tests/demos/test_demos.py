"""Every demo of demos/ as `webhal demo` builds it: its page runs in headless Chromium on every
variant (WebGPU on SwiftShader, wasm threads, SIMD and scalar), each output matches the
reference evaluator within the demo's tolerance, the screenshot shows the pictures, and the
gallery links every demo."""

from __future__ import annotations

import numpy as np
import pytest

from webhal import demo_page

VARIANTS = ["webgpu", "threads", "simd", "scalar"]


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
    done = demo_page.check(demo, page, str(out_root), shared_runner())
    assert [v.variant for v in done.variants] == VARIANTS
    for v in done.variants:
        assert v.ok, f"{name} {v.variant}: {v.message}"
        assert v.median_ms > 0
    assert done.variants[0].adapter == "google swiftshader"
    from PIL import Image

    shot = np.asarray(Image.open(done.screenshot).convert("L"), dtype=np.float64)
    assert shot.shape[0] > 400 and shot.shape[1] > 600
    # Not blank: the two pictures take a large share of the page, with real contrast.
    assert shot.std() > 20 and len(np.unique(shot)) > 100


def test_the_gallery_links_every_demo(tmp_path):
    demos = [demo_page.load(n) for n in demo_page.names()]
    path = demo_page.write_gallery(str(tmp_path), demos, {})
    html = open(path).read()
    for demo in demos:
        assert f'href="{demo.name}/index.html"' in html and demo.title in html


def test_each_demo_declares_what_its_page_needs():
    for name in demo_page.names():
        demo = demo_page.load(name)
        assert demo.layout in ("gray", "rgb") and demo.title and demo.description
        arguments = dict(demo.generator().arguments())
        assert {"input", "output"} <= set(arguments)
        assert arguments["input"].dimensions == (2 if demo.layout == "gray" else 3)
        for scalar, s in demo.scalars.items():
            assert scalar in arguments and s["min"] <= s["default"] <= s["max"]
