"""The web pages of the demos in demos/: each demo's npm package (every variant), its page
(templates/demo_page.html.j2 with runtime_js/demo_page.js) and photo, the headless check of
every variant against the reference evaluator, and the gallery that links them.

A demo is demos/NAME/NAME.py: a generator registered as NAME (input `input`, uint8, grey
(x, y) or planar colour (x, y, c); output `output`, uint8) and a dict DEMO with title,
description, image (a file of demos/images), color ("gray" or "rgb"), scalars (name ->
default, min, max, step: the sliders), tolerance (largest difference allowed from the
reference) and margin (how many pixels smaller in x and y the output is; default 0)."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import statistics
from dataclasses import dataclass, field

import numpy as np

from webhal import build
from webhal.errors import CompileError
from webhal.glue import package_data
from webhal.glue.web_page import environment
from webhal.runners.package_run import adapter_label

TARGETS = ("wasm-32-wasmrt-wasm_simd128-webgpu", "wasm-32-wasmrt-wasm_simd128-wasm_threads",
           "wasm-32-wasmrt-wasm_simd128", "wasm-32-wasmrt")
# The autoscheduled variants (pkg-auto/ beside the hand-scheduled pkg/, "auto-" in the
# picker): the web's two machines and SIMD alone; scalar wasm stays hand-scheduled only.
AUTO_TARGETS = TARGETS[:3]
# Demos whose autoscheduled package is not built, and why (the page says so). Measured
# 2026-12-04 at load 7 on 2 cores: lowering the local Laplacian's autoschedule for one
# variant took 50 s, and building its three variants passed 100 s of CPU (7 min of wall)
# unfinished, where the hand schedules come from the build cache.
AUTO_SKIPPED: dict[str, str] = {}  # demo -> why its page has no autoscheduled variants
_PAGE_SCRIPTS = ("demo_page.js", "harness.js")


@dataclass
class Demo:
    name: str
    path: str
    title: str
    description: str
    image: str
    layout: str  # runtime_js/image_data.js's: "gray" or "rgb" (planar)
    scalars: dict
    tolerance: float = 0
    margin: int = 0

    def generator(self):
        return build.load_generators(self.path)[self.name]


@dataclass
class VariantCheck:
    """One variant of a demo in headless Chromium."""

    variant: str
    target: str
    adapter: str = ""
    median_ms: float | None = None
    spread_ms: tuple[float, float] | None = None
    ok: bool = False
    max_error: float | None = None
    message: str = ""


@dataclass
class DemoCheck:
    demo: Demo
    page: str
    screenshot: str
    variants: list[VariantCheck] = field(default_factory=list)
    input_shape: tuple = ()
    # What create() with no options took on the page: {variant, reason} or {error}.
    automatic: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.variants) and all(v.ok for v in self.variants)


def names() -> list[str]:
    """Every demo in demos/, in name order."""
    root = package_data.folder("demos")
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and (p / f"{p.name}.py").is_file())


def load(name: str) -> Demo:
    """Demo NAME from demos/NAME/NAME.py; CompileError names what is missing."""
    path = package_data.folder("demos") / name / f"{name}.py"
    if not path.is_file():
        raise CompileError(f"no demo {name!r}; the demos are {', '.join(names())}")
    namespace: dict = {"__file__": str(path), "__name__": f"webhal_demo_{name}"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    info = namespace.get("DEMO")
    if not isinstance(info, dict):
        raise CompileError(f"{path} has no DEMO dict (title, image, color, ...)")
    return Demo(name=name, path=str(path), title=info["title"],
                description=info.get("description", ""), image=info["image"],
                layout={"gray": "gray", "rgb": "rgb"}[info.get("color", "gray")],
                scalars=dict(info.get("scalars", {})), tolerance=info.get("tolerance", 0),
                margin=info.get("margin", 0))


def build_page(demo: Demo, out_root: str, *, cache: str | None = "") -> str:
    """Write dist/demos/NAME/ (under `out_root`): the package in pkg/, the page, its scripts
    and the photo. Returns the page's folder."""
    page = os.path.join(out_root, demo.name)
    os.makedirs(page, exist_ok=True)
    meta = build.build(demo.path, demo.name, os.path.join(page, "pkg"), list(TARGETS),
                       quiet=True, cache=cache)
    auto = build_auto_package(demo, page, cache=cache)
    scripts = package_data.folder("runtime_js")
    for script in _PAGE_SCRIPTS:
        with open(os.path.join(page, script), "w", encoding="utf-8") as f:
            f.write((scripts / script).read_text(encoding="utf-8"))
    with (package_data.folder("demos") / "images" / demo.image).open("rb") as src, \
            open(os.path.join(page, demo.image), "wb") as dst:
        shutil.copyfileobj(src, dst)
    settings = {"title": demo.title, "layout": demo.layout, "image": demo.image,
                "input": "input", "margin": demo.margin, "scalars": demo.scalars,
                "samples": 7, "minBatchMs": 20, "auto": bool(auto["variants"])}
    html = environment().get_template("demo_page.html.j2").render(
        name=demo.name, title=demo.title, description=demo.description, image=demo.image,
        variants=meta["variants"] + auto["variants"], settings=settings,
        auto_skipped=auto.get("skipped"))
    with open(os.path.join(page, "index.html"), "w", encoding="utf-8") as f:
        f.write(html)
    return page


def build_auto_package(demo: Demo, page: str, *, cache: str | None = "") -> dict:
    """pkg-auto/ in the page's folder: the demo's generator with its schedules removed and
    webhal's autoscheduler applied for the photo's size (AUTO_TARGETS). Returns its variants
    as the picker names them ("auto-simd", ...) and the seconds autoscheduling took per
    target, or {"variants": [], "skipped": why} for a demo in AUTO_SKIPPED."""
    from webhal.autoschedule.generators import AutoscheduledGenerator
    from webhal.glue.npm_package import build_package
    from webhal.imageio import imread
    if demo.name in AUTO_SKIPPED:
        return {"variants": [], "skipped": AUTO_SKIPPED[demo.name]}
    photo = imread(package_data.folder("demos") / "images" / demo.image)
    make = AutoscheduledGenerator(demo.generator(), (photo.shape[-1], photo.shape[-2]),
                                  demo.margin, {k: v["default"] for k, v in demo.scalars.items()})
    meta = build_package(make, list(AUTO_TARGETS), os.path.join(page, "pkg-auto"),
                         generator=demo.name, generator_params={"autoscheduler": make.name},
                         cache=cache)
    return {"variants": [{**v, "name": f"auto-{v['name']}"} for v in meta["variants"]],
            "seconds": make.seconds}


# The reference outputs by demo and decoded photo: a page checked in Chromium and then in
# Firefox is evaluated once (the local Laplacian's reference takes minutes).
_subjects: dict[tuple, object] = {}


def check(demo: Demo, page: str, out_root: str, runner, *,
          screenshot_name: str = "screenshot.png", samples: int | None = None) -> DemoCheck:
    """Open the page headless with ?check in `runner`'s browser (webhal.runners.browser's or
    .firefox's): every variant on the photo, each output compared with the reference evaluator
    on the pixels the page decoded; saves `screenshot_name` in the page's folder. `samples`
    times that many batches a variant instead of the page's 7."""
    from webhal.testing.harness import Subject

    screenshot = os.path.join(page, screenshot_name)
    query = "check" + (f"&samples={samples}" if samples else "")
    result, _ = runner.run_page(runner.mount(out_root) + f"/{demo.name}/index.html?{query}",
                                screenshot=screenshot, timeout_s=600)
    done = DemoCheck(demo, page, screenshot)
    image = _decoded(result["input"])
    done.input_shape = image.shape
    done.automatic = result.get("automatic") or {}
    shape = tuple(e - demo.margin if i >= image.ndim - 2 else e
                  for i, e in enumerate(image.shape))
    inputs = {"input": image, **{k: v["default"] for k, v in demo.scalars.items()}}
    key = (demo.path, image.shape, hashlib.sha256(image.tobytes()).hexdigest())
    subject = _subjects.get(key)
    if subject is None:
        subject = _subjects[key] = Subject(f"{demo.path}:{demo.name}", inputs=inputs,
                                           output_shapes={"output": shape},
                                           tolerance=demo.tolerance)
    for variant, r in result["variants"].items():
        v = VariantCheck(variant, r["target"])
        if "error" in r:
            v.message = r["error"]
        else:
            v.adapter = adapter_label(r.get("adapter"))
            v.median_ms = statistics.median(r["timesMs"])
            v.spread_ms = (min(r["timesMs"]), max(r["timesMs"]))
            v.ok, v.max_error, v.message = subject.compare({"output": _decoded(r["output"])})
        done.variants.append(v)
    return done


def _decoded(buffer: dict) -> np.ndarray:
    data = np.frombuffer(base64.b64decode(buffer["data"]), dtype=np.uint8)
    return data.reshape(buffer["shape"][::-1]).copy()


def write_gallery(out_root: str, demos: list[Demo], checks: dict[str, DemoCheck], *,
                  firefox: dict[str, DemoCheck] | None = None,
                  browsers: list[str] | tuple[str, ...] = (),
                  live: list[str] | tuple[str, ...] = ()) -> str:
    """dist/demos/index.html: a card per demo, with its screenshot and times when checked
    (`checks` in Chromium, `firefox` beside them); `browsers` names the browsers (and their
    versions) the pages were checked in; the demos of `live` link their webcam page."""
    cards = []
    for demo in demos:
        done = checks.get(demo.name)
        in_firefox = {v.variant: v for v in (firefox or {}).get(demo.name, DemoCheck(
            demo, "", "")).variants}
        rows = [{"variant": v.variant, "adapter": v.adapter or "-",
                 "ms": "" if v.median_ms is None else f"{v.median_ms:.2f}",
                 "ok": "yes" if v.ok else "NO",
                 "firefox_ms": _ms(in_firefox.get(v.variant)),
                 "firefox_ok": _verdict(in_firefox.get(v.variant))}
                for v in (done.variants if done else [])]
        cards.append({"name": demo.name, "title": demo.title, "description": demo.description,
                      "screenshot": bool(done and os.path.isfile(done.screenshot)),
                      "rows": rows, "live": demo.name in live})
    path = os.path.join(out_root, "index.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(environment().get_template("demo_gallery.html.j2").render(
            demos=cards, browsers=list(browsers), firefox=bool(firefox)))
    return path


def _ms(v: VariantCheck | None) -> str:
    return "" if v is None or v.median_ms is None else f"{v.median_ms:.2f}"


def _verdict(v: VariantCheck | None) -> str:
    return "-" if v is None else "yes" if v.ok else "NO"
