"""The webcam page of a demo (issue 30, item 5): demos/NAME's pipeline filtering the camera
live in a page (templates/webcam_page.html.j2 with runtime_js/webcam_page.js), sliders for its
scalars, frames per second and each stage's time. On the webgpu variant a frame goes from the
camera to a WebGPU canvas without the CPU (runtime_js/gpu_images.js); the CPU variants are the
fallback, through an ImageData. A demo with a colour (x, y, c) uint8 input and an output of its
size fits (unsharp, local_laplacian)."""

from __future__ import annotations

import os

from webhal import build
from webhal.demo_page import TARGETS, load
from webhal.errors import CompileError
from webhal.glue import package_data
from webhal.glue.web_page import environment

_SCRIPTS = ("webcam_page.js", "harness.js")
WEBCAM_DEMOS = ("unsharp",)  # the demos `webhal demo` gives a live-camera page


def build_page(name: str, out_root: str, *, targets=TARGETS, cache: str | None = "") -> str:
    """Write OUT_ROOT/NAME-webcam/: demo NAME's npm package (`targets`, fastest first) in pkg/,
    index.html and its scripts. Returns the page's folder. Serve it from a secure context
    (localhost or https) for the camera; `?check=N` (see runtime_js/webcam_page.js) reports
    frames per second and N captured frames to window.webhalResult."""
    demo = load(name)
    if demo.layout != "rgb" or demo.margin:
        raise CompileError(f"demo {name} is not a colour filter of the frame's size (its input "
                           f"is {demo.layout}, its margin {demo.margin}); the webcam page takes "
                           "a colour (x, y, c) input and an output of the same size")
    page = os.path.join(out_root, f"{name}-webcam")
    os.makedirs(page, exist_ok=True)
    meta = build.build(demo.path, demo.name, os.path.join(page, "pkg"), list(targets),
                       quiet=True, cache=cache)
    scripts = package_data.folder("runtime_js")
    for script in _SCRIPTS:
        with open(os.path.join(page, script), "w", encoding="utf-8") as f:
            f.write((scripts / script).read_text(encoding="utf-8"))
    settings = {"layout": demo.layout, "input": "input", "scalars": demo.scalars}
    html = environment().get_template("webcam_page.html.j2").render(
        name=demo.name, title=demo.title, description=demo.description,
        variants=meta["variants"], settings=settings)
    with open(os.path.join(page, "index.html"), "w", encoding="utf-8") as f:
        f.write(html)
    return page
