"""`webhal demo [NAME ...] [--serve]`, the main job: print what this machine can build and run,
build each demo of demos/ into a web page (dist/demos/NAME/: its npm package with every
variant, the page, the photo), run every page in headless Chromium and headless Firefox on
every variant, check each output against the reference evaluator, save a screenshot, write
the gallery (dist/demos/index.html) and print a table with both browsers' times; `--serve`
serves the pages instead."""

from __future__ import annotations

import argparse
import os
import types

import numpy as np
from rich.table import Table

import webhal as hl
from webhal import demo_page, doctor
from webhal.errors import CompileError, HalideError
from webhal.glue import package_data, web_page

# In demos/ (shipped as the package data webhal.demos).
IMAGE = "images/camera.png"
BLUR = "blur/blur.py"
PAGE_TARGET = "wasm-32-wasmrt-wasm_simd128"
NEEDS = (*doctor.CORE, "browser tests")  # what building and checking the pages takes


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
    """Build the blur's C-ABI page into `page_dir` (index.html, blur.js, blur.wasm, the input
    and the generated C entry): the static library for wasm SIMD linked by emcc with C that
    calls it, as a C user links a pipeline (webhal.glue.web_page; tests/packaging builds it
    from an installed wheel). Returns the page's settings; needs emcc."""
    pixels, image = _load_image()
    return web_page.build(_load_blur().blur(image), image, pixels, _out_size(pixels),
                          hl.Target(PAGE_TARGET), page_dir, "blur", reps)


def run(args: argparse.Namespace, console=None) -> int:
    """Print what this machine can do, then build the demos' pages (args.names, default all)
    and run each headless on every variant, or serve them (args.serve); 0 when all is well."""
    console = console or doctor.make_console()
    results = doctor.run_checks()
    # Building needs the compiler and linker, checking the pages Chromium too; the other
    # runtimes are for `webhal test`: missing, they are a warning here.
    needed = doctor.CORE if getattr(args, "serve", False) else NEEDS
    for name, ok in doctor.enabled_capabilities(results).items():
        mark = "[green]can[/green]" if ok else \
            "[red]cannot[/red]" if name in needed else "[yellow]cannot[/yellow]"
        note = "" if ok or name in needed else " (not needed for the demos)"
        console.print(f"{mark} {doctor.CAPABILITIES[name]}{note}", highlight=False)
    doctor.print_hints(results, console, needed)
    missing = doctor.missing_capabilities(results, needed)
    if missing:
        console.print(f"[red]webhal demo:[/red] needs {', '.join(missing)}; see `to fix` above",
                      highlight=False)
        return 1
    out_root = os.path.abspath(getattr(args, "out", None) or os.path.join("dist", "demos"))
    try:
        demos = [demo_page.load(n) for n in (getattr(args, "names", None) or demo_page.names())]
    except CompileError as e:
        console.print(f"[red]webhal demo:[/red] {e}", highlight=False)
        return 2
    pages, failed = {}, []
    with console.status("webhal demo") as status:
        for demo in demos:
            status.update(f"webhal demo: building {demo.name} (every variant)")
            try:
                pages[demo.name] = demo_page.build_page(demo, out_root)
            except HalideError as e:
                failed.append(demo.name)
                console.print(f"[red]{demo.name} did not build:[/red] {e}", highlight=False)
    live = _build_webcam_pages(pages, out_root, console)
    if getattr(args, "serve", False):
        demo_page.write_gallery(out_root, demos, {}, live=live)
        return _serve(out_root, getattr(args, "port", 8000), console)
    checks, firefox = {}, {}
    from webhal.runners.browser import shared_runner

    # Each demo in Chromium, then at once in Firefox, so that both see the same load.
    in_firefox = _firefox_runner(failed, console) if pages else None
    with console.status("webhal demo") as status:
        for demo in demos:
            if demo.name not in pages:
                continue
            for browser, runner, done_in, shot in (
                    ("Chromium", shared_runner, checks, "screenshot.png"),
                    ("Firefox", in_firefox, firefox, "screenshot-firefox.png")):
                if runner is None:
                    continue
                status.update(f"webhal demo: {demo.name} in headless {browser}, every variant")
                try:
                    done_in[demo.name] = demo_page.check(demo, pages[demo.name], out_root,
                                                         runner(), screenshot_name=shot)
                except HalideError as e:
                    failed.append(demo.name)
                    console.print(f"[red]{demo.name} failed in {browser}:[/red] {e}",
                                  highlight=False)
    browsers = []
    if firefox:
        from webhal.toolchain.hosts import find_firefox

        browsers.append(f"Firefox {_version(find_firefox())} (WebGPU: "
                        f"{_webgpu_adapter(firefox)})")
    if checks:
        from webhal.toolchain import find_chromium

        browsers.insert(0, f"Chromium {_version(find_chromium())} (WebGPU: "
                           f"{_webgpu_adapter(checks)})")
    gallery = demo_page.write_gallery(out_root, demos, checks, firefox=firefox,
                                      browsers=browsers, live=live)
    console.print(_summary(checks.values(), firefox))
    for browser, done_in in (("", checks), (" in Firefox", firefox)):
        for done in done_in.values():
            for v in done.variants:
                if not v.ok:
                    console.print(f"[red]{done.demo.name} {v.variant}{browser}:[/red] "
                                  f"{v.message}", highlight=False, soft_wrap=True)
    console.print(f"pages: {os.path.relpath(gallery)} and a folder per demo beside it")
    console.print(f"serve the gallery: webhal serve {os.path.relpath(out_root)}  "
                  "(then open http://127.0.0.1:8000/)", highlight=False)
    ok = not failed and all(c.ok for c in (*checks.values(), *firefox.values()))
    return 0 if ok else 1


def _build_webcam_pages(pages: dict, out_root: str, console) -> list[str]:
    """The live-camera pages (webhal.webcam_page) of the built demos of WEBCAM_DEMOS; their
    names. A camera needs a person in front of it: `webhal demo` builds and links them, and
    tests/gpu_images/test_webcam.py checks one on Chromium's fake camera."""
    from webhal import webcam_page

    live = []
    for name in webcam_page.WEBCAM_DEMOS:
        if name not in pages:
            continue
        try:
            webcam_page.build_page(name, out_root)
            live.append(name)
        except HalideError as e:
            console.print(f"[red]{name}'s webcam page did not build:[/red] {e}", highlight=False)
    return live


def _firefox_runner(failed, console):
    """shared_firefox_runner, or None when Firefox cannot be driven: then a note with the
    install hint, and a failure where WEBHAL_EXPECT_ALL=1 asks for every runtime."""
    from webhal.errors import ToolchainError
    from webhal.runners.firefox import shared_firefox_runner
    from webhal.testing.runtimes import expect_all

    try:
        shared_firefox_runner()
    except ToolchainError as e:
        console.print(f"[yellow]not checked in Firefox:[/yellow] {e}", highlight=False)
        if expect_all():
            failed.append("firefox")
        return None
    return shared_firefox_runner


def _version(tool) -> str:
    return ".".join(map(str, tool.version)) if tool.version else "(version unknown)"


def _webgpu_adapter(checks) -> str:
    """The adapter the webgpu variants ran on, from the first demo that has one."""
    return next((v.adapter for done in checks.values() for v in done.variants
                 if v.variant == "webgpu" and v.adapter), "none")


def _summary(checks, firefox=None) -> Table:
    firefox = firefox or {}
    browsers = "Chromium and Firefox" if firefox else "Chromium"
    table = Table(title=f"webhal demos in headless {browsers}, the photo at full size")
    for column in ("demo", "size", "variant", "adapter", "median ms\n(min-max)",
                   "threads / SIMD", "matches reference"):
        table.add_column(column, no_wrap=column in ("variant", "median ms\n(min-max)"))
    if firefox:  # Firefox's adapter is the caption's: one per browser, beside the table
        table.add_column("Firefox ms\n(min-max)", no_wrap=True)
        table.add_column("Firefox matches")
        table.caption = f"Firefox's webgpu variant ran on {_webgpu_adapter(firefox)}"
    for done in checks:
        times = {v.variant: v.median_ms for v in done.variants}
        speedup = f"{times['simd'] / times['threads']:.2f}x" \
            if times.get("simd") and times.get("threads") else ""
        size = "x".join(map(str, done.input_shape[::-1]))
        for i, v in enumerate(done.variants):
            verdict = "[green]yes[/green]" if v.ok else "[red]NO[/red]"
            row = [done.demo.title if i == 0 else "", size if i == 0 else "", v.variant,
                   v.adapter, _ms(v), speedup if v.variant == "threads" else "", verdict]
            if firefox:
                row += _firefox_cells(firefox.get(done.demo.name), v.variant)
            table.add_row(*row)
    return table


def _ms(v) -> str:
    """The median, and the spread below it: narrow enough for both browsers' columns."""
    if v.median_ms is None:
        return ""
    return f"{v.median_ms:.2f}\n({v.spread_ms[0]:.2f}-{v.spread_ms[1]:.2f})"


def _firefox_cells(done, variant: str) -> list[str]:
    v = next((v for v in done.variants if v.variant == variant), None) if done else None
    if v is None:
        return ["", "[red]not run[/red]"]
    return [_ms(v), "[green]yes[/green]" if v.ok else "[red]NO[/red]"]


def _serve(out_root: str, port: int, console) -> int:
    from webhal.runners.server import StaticServer

    with StaticServer(out_root, port=port) as server:
        console.print(f"serving the demos at {server.url}/ (Ctrl-C stops)", highlight=False)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0
