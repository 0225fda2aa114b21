"""Build a pipeline with one 2-D input and one 2-D output for the browser and run it in headless
Chromium: the static library (webhal.aot), a generated C entry for JavaScript and a generated
page (templates/run_pipeline.*.j2, shipped as webhal.templates), linked by emcc with the flags
webhal.toolchain.emcc_flags chooses; the page reports the result and per-call times, which come
back to Python."""

from __future__ import annotations

import base64
import os
import shlex
import statistics
from dataclasses import dataclass

import jinja2
import numpy as np

from webhal.aot import INCLUDE_DIR
from webhal.errors import ToolchainError
from webhal.glue import package_data
from webhal.toolchain import JsModule, emcc, emcc_flags, find_emscripten

_CODES = {"int": 0, "uint": 1, "float": 2}


def _template_source(name: str) -> str | None:
    path = package_data.folder("templates") / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def environment() -> jinja2.Environment:
    """jinja2 with webhal's templates (the package data webhal.templates)."""
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_template_source),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["shell"] = shlex.quote  # one argument for a shell or emcc's response files
    return env


@dataclass
class BrowserRun:
    output: np.ndarray      # (height, width), numpy order
    times_ms: list[float]
    user_agent: str

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)


def build(func, image_param, image: np.ndarray, out_size: tuple[int, int], target,
          directory: str, name: str = "pipeline", reps: int = 25) -> dict:
    """Write <directory>/index.html with everything it loads; returns the page's settings."""
    if target.has_gpu_feature():
        raise ToolchainError(f"target {target}: pages for GPU pipelines need webhal's browser "
                             "WebGPU runtime, which is not built yet; use a CPU wasm target",
                             hint="drop -webgpu from the target for the browser build")
    os.makedirs(directory, exist_ok=True)
    prefix = os.path.join(directory, name)
    func.compile_to_static_library(prefix, [image_param], name, target)
    t_in, t_out = image_param.type(), func.type()
    settings = dict(fn_name=name, header=f"{name}.h", target=str(target),
                    in_type=str(t_in), out_type=str(t_out),
                    in_code=_CODES[t_in.code.value], in_bits=t_in.bits,
                    out_code=_CODES[t_out.code.value], out_bits=t_out.bits,
                    in_w=image.shape[1], in_h=image.shape[0], out_w=out_size[0],
                    out_h=out_size[1], out_bytes=t_out.bytes, reps=reps,
                    input_file=f"{name}.input.bin", module_js=f"{name}.js",
                    export_name=f"create_{name}")
    env = environment()
    with open(prefix + ".run.c", "w") as f:
        f.write(env.get_template("run_pipeline.c.j2").render(**settings))
    with open(os.path.join(directory, "index.html"), "w") as f:
        f.write(env.get_template("run_pipeline.html.j2").render(**settings))
    np.ascontiguousarray(image).tofile(os.path.join(directory, settings["input_file"]))
    module = JsModule(settings["export_name"], ("webhal_run", "malloc", "free"), ("HEAPU8",))
    flags = emcc_flags(target, find_emscripten().capabilities, environment=["web"],
                       module=module)
    emcc([*flags, prefix + ".run.c", prefix + ".a", f"-I{INCLUDE_DIR}", f"-I{directory}",
          "-o", prefix + ".js"])
    return settings


def run(directory: str, settings: dict, timeout_s: float = 120) -> BrowserRun:
    """Open the page in headless Chromium and collect what it reports."""
    from webhal.runners.browser import browser_session
    with browser_session(directory) as session:
        page = session.open("/index.html", timeout_s=timeout_s)
        page.wait_for_function("window.webhalResult !== undefined", timeout=timeout_s * 1000)
        result = page.evaluate("window.webhalResult")
    if "error" in result or result.get("code"):
        raise ToolchainError(f"the page {settings['fn_name']} failed in Chromium: "
                             f"{result.get('error') or 'error code ' + str(result['code'])}")
    kind = {0: "i", 1: "u", 2: "f"}[settings["out_code"]]
    dtype = np.dtype(f"{kind}{settings['out_bytes']}")
    data = np.frombuffer(base64.b64decode(result["output"]), dtype=dtype)
    return BrowserRun(data.reshape(settings["out_h"], settings["out_w"]), result["times"],
                      result["userAgent"])
