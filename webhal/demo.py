"""`webhal demo`, the main job: compile the default demo (a blur of a photograph kept in demos/)
for every CPU target that works here, run each, check it against the reference evaluator, write
the output images, and print a table. Also prints what this machine can build and run."""

from __future__ import annotations

import argparse
import os
import statistics
import time
import types

import numpy as np
from rich.table import Table

import webhal as hl
from webhal import doctor
from webhal.glue import package_data, web_page
from webhal.jit import compile_jit
from webhal.runtime.webgpu import adapter_name

# In demos/ (shipped as the package data webhal.demos).
IMAGE = "images/camera.png"
BLUR = "blur/blur.py"
PAGE_TARGET = "wasm-32-wasmrt-wasm_simd128"
# (label, target, schedule): the CPU schedule or the GPU one of demos/blur/blur.py.
TARGETS = [("host", "host", "blur"), ("wasm scalar", "wasm-32-wasmrt", "blur"),
           ("wasm SIMD", "wasm-32-wasmrt-wasm_simd128", "blur"),
           ("WebGPU, host code JIT", "host-webgpu", "blur_gpu"),
           ("WebGPU, host code wasm", "wasm-32-wasmrt-webgpu", "blur_gpu")]


def _load_blur() -> types.ModuleType:
    source = package_data.folder("demos") / BLUR
    module = types.ModuleType("webhal_demo_blur")
    module.__file__ = str(source)
    exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), module.__dict__)
    return module


def _load_image() -> tuple[np.ndarray, hl.ImageParam]:
    """The photograph as uint8 grey pixels, and an ImageParam bound to them."""
    from PIL import Image

    with (package_data.folder("demos") / IMAGE).open("rb") as f:
        pixels = np.asarray(Image.open(f).convert("L"))
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    image.set(hl.Buffer(pixels))
    return pixels, image


def _out_size(pixels: np.ndarray) -> tuple[int, int]:
    return pixels.shape[1] - 2, pixels.shape[0] - 2  # the blur reads two pixels beyond


def build_page(page_dir: str, reps: int = 25) -> dict:
    """Build the demo's web page into `page_dir` (index.html, blur.js, blur.wasm, the input and
    the generated C): the blur for wasm SIMD linked by emcc, as `webhal demo` runs it in
    headless Chromium. Returns the page's settings (webhal.glue.web_page.build); needs emcc."""
    pixels, image = _load_image()
    return web_page.build(_load_blur().blur(image), image, pixels, _out_size(pixels),
                          hl.Target(PAGE_TARGET), page_dir, "blur", reps)


def run_blur(console, out_dir: str, runs: int = 25) -> bool:
    from PIL import Image
    pixels, image = _load_image()
    demo = _load_blur()
    pipelines = {name: hl.Pipeline(getattr(demo, name)(image)) for name in ("blur", "blur_gpu")}
    w, h = _out_size(pixels)
    expected = np.asarray(pipelines["blur"].realize([w, h], hl.Target("reference")))
    table = Table(title=f"3x3 blur of demos/{IMAGE} ({w}x{h} uint8 out)")
    for column in ("target", "compile", "median run*", "matches reference", "output"):
        table.add_column(column)
    all_ok = True
    os.makedirs(out_dir, exist_ok=True)
    for label, target_string, schedule in TARGETS:
        target = hl.Target(target_string)
        pipeline = pipelines[schedule]
        t0 = time.perf_counter()
        compiled, lowered = compile_jit(pipeline, target)
        compile_s = time.perf_counter() - t0
        out = hl.Buffer(hl.UInt(8), [w, h])
        times = []
        for _ in range(runs):
            pipeline.realize(out, target)
            times.append(compiled.last_call_seconds)
        result = np.asarray(out)
        ok = bool(np.array_equal(result, expected))
        all_ok &= ok
        path = os.path.join(out_dir, f"blur_{target_string}.png")
        Image.fromarray(result).save(path)
        if compiled.gpu is not None:
            label += f" on {adapter_name()}"
        table.add_row(f"{label} ({target_string})", f"{compile_s * 1000:.0f} ms",
                      f"{statistics.median(times) * 1000:.3f} ms",
                      "[green]yes[/green]" if ok else "[red]NO[/red]",
                      os.path.relpath(path, os.getcwd()))
    all_ok &= _browser_row(table, pipelines["blur"], image, pixels, (w, h), expected, out_dir)
    console.print(table)
    console.print("* one call of the compiled pipeline; for WebGPU rows it includes the copies "
                  "to and from the device.", highlight=False)
    return all_ok


def _browser_row(table, pipeline, image, pixels, size, expected, out_dir) -> bool:
    """The same blur linked by emcc into a page and run in headless Chromium."""
    from PIL import Image

    page_dir = os.path.join(out_dir, "web")
    t0 = time.perf_counter()
    settings = web_page.build(pipeline.outputs()[0], image, pixels, size,
                              hl.Target(PAGE_TARGET), page_dir, "blur")
    build_s = time.perf_counter() - t0
    run = web_page.run(page_dir, settings)
    ok = bool(np.array_equal(run.output, expected))
    path = os.path.join(out_dir, "blur_chromium.png")
    Image.fromarray(run.output).save(path)
    browser = next((p for p in run.user_agent.split() if p.startswith("Chrom")), "Chromium")
    table.add_row(f"wasm SIMD in headless {browser.replace('/', ' ')} (emcc page)",
                  f"{build_s * 1000:.0f} ms", f"{run.median_ms:.3f} ms",
                  "[green]yes[/green]" if ok else "[red]NO[/red]",
                  os.path.relpath(path, os.getcwd()))
    return ok


def run(args: argparse.Namespace, console=None) -> int:
    """Print what this machine can do, then build and run the blur demo; 0 when all is well."""
    console = console or doctor.make_console()
    results = doctor.run_checks()
    enabled = doctor.enabled_capabilities(results)
    for name, ok in enabled.items():
        mark = "[green]can[/green]" if ok else "[red]cannot[/red]"
        console.print(f"{mark} {doctor.CAPABILITIES[name]}", highlight=False)
    doctor.print_hints(results, console)
    out_dir = getattr(args, "out", None) or os.path.join(os.getcwd(), "out", "demo")
    ok = run_blur(console, out_dir)
    return 0 if ok and doctor.all_required_ok(results) else 1
