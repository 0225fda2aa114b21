"""One npm package with every variant (webgpu, threads, simd, scalar), built once per test
session for the bundler and lifecycle tests, and its reference output."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import webhal as hl
from webhal import build

GENERATORS = pathlib.Path(__file__).parents[1] / "glue" / "generators" / "pipelines.py"
GENERATOR = "brighten_gpu"  # parallel SIMD rows on the CPU, a gpu_tile on WebGPU
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu", "wasm-32-wasmrt-wasm_simd128-wasm_threads",
           "wasm-32-wasmrt-wasm_simd128", "wasm-32-wasmrt"]
VARIANTS = ["webgpu", "threads", "simd", "scalar"]
# The input every app runs (runtime_js and numpy make the same bytes), in Halide's order.
WIDTH, HEIGHT, AMOUNT = 67, 23, 1.7


def app_input() -> np.ndarray:
    """(HEIGHT, WIDTH) uint8: byte i is (i * 37 + 11) % 256, as the apps' JavaScript makes it."""
    return ((np.arange(WIDTH * HEIGHT) * 37 + 11) % 256).astype(np.uint8).reshape(HEIGHT, WIDTH)


@pytest.fixture(scope="session")
def every_variant_package(tmp_path_factory, emscripten, node) -> pathlib.Path:
    """The brighten_gpu package's folder (named as the package), every variant."""
    root = tmp_path_factory.mktemp("every-variant")
    directory = root / GENERATOR
    build.build(str(GENERATORS), GENERATOR, str(directory), TARGETS, quiet=True)
    return directory


@pytest.fixture(scope="session")
def expected_output() -> np.ndarray:
    """The reference evaluator's output on app_input() (numpy order)."""
    generator = build.load_generators(str(GENERATORS))[GENERATOR]()
    pipeline = generator.build_pipeline()
    values = {"input": hl.Buffer(app_input()), "amount": AMOUNT}
    for param in generator.inputs():
        param.set(values[param.name()])
    out = pipeline.realize([hl.Buffer(hl.UInt(8), [WIDTH, HEIGHT])], hl.Target("reference"))
    return np.asarray(out)
