"""A C harness written for a Halide AOT pipeline, compiled against Halide's own HalideRuntime.h
(from the PyPI package, a test-only peer) and linked with emcc against webhal's static library,
runs in Node: the halide_buffer_t ABI and the entry point's calling convention match."""

import os
import subprocess

import pytest

import webhal as hl
from tests.aot.pipelines import blur_u16
from webhal.aot import INCLUDE_DIR
from webhal.toolchain import emcc, emcc_flags

HERE = os.path.dirname(os.path.abspath(__file__))


def _halide_include() -> str:
    halide = pytest.importorskip("halide")
    return os.path.join(os.path.dirname(halide.__file__), "include")


def _build_and_run(tmp_path, include_dir: str, target: str, node) -> str:
    out, inputs = blur_u16()
    prefix = str(tmp_path / "blur")
    out.compile_to_static_library(prefix, inputs, "blur", hl.Target(target))
    js = str(tmp_path / "harness.js")
    # With wasm_threads the library's thread pool runs on Emscripten's pthreads.
    flags = emcc_flags(hl.Target(target), optimize=2, thread_pool_size=2)
    emcc([*flags, os.path.join(HERE, "harness_blur.c"), prefix + ".a", f"-I{include_dir}",
          f"-I{tmp_path}", "-o", js])
    run = subprocess.run([node.path, "--no-experimental-fetch", js], capture_output=True,
                         text=True, timeout=60)
    return run.stdout + run.stderr


@pytest.mark.halide
@pytest.mark.parametrize("target", ["wasm-32-wasmrt", "wasm-32-wasmrt-wasm_simd128"])
def test_halide_harness_links_unchanged(tmp_path, emscripten, node, target):
    text = _build_and_run(tmp_path, _halide_include(), target, node)
    assert "mismatches 0 host_dirty 1" in text, text
    # The second call asks for more than the input has: the runtime reports and returns -4.
    assert "Input buffer input is accessed at" in text and "error code -4" in text, text


@pytest.mark.parametrize("target", ["wasm-32-wasmrt-wasm_simd128",
                                    "wasm-32-wasmrt-wasm_simd128-wasm_threads",
                                    "wasm-32-wasmrt-wasm_mvponly"])
def test_harness_with_webhals_header(tmp_path, emscripten, node, target):
    """Also with wasm_threads (the blur's parallel rows run on the library's pthread pool), and
    for WebAssembly 1.0 only."""
    text = _build_and_run(tmp_path, INCLUDE_DIR, target, node)
    assert "mismatches 0 host_dirty 1" in text, text
    assert "Input buffer input is accessed at" in text and "error code -4" in text, text


def test_static_library_has_symbol_index(tmp_path, emscripten):
    out, inputs = blur_u16()
    out.compile_to_static_library(str(tmp_path / "blur"), inputs, "blur",
                                  hl.Target("wasm-32-wasmrt"))
    data = (tmp_path / "blur.a").read_bytes()
    assert data.startswith(b"!<arch>\n")
    index = data[8:8 + 60]
    assert index.startswith(b"/ "), "the archive has no symbol index for wasm-ld"
    header = (tmp_path / "blur.h").read_text()
    assert "int blur(struct halide_buffer_t *_input_buffer, struct halide_buffer_t " \
           "*_blur_y_buffer);" in header


def test_host_object_and_outputs(tmp_path):
    out, inputs = blur_u16()
    target = hl.Target("host")
    out.compile_to_object(str(tmp_path / "blur.o"), inputs, "blur", target)
    out.compile_to_assembly(str(tmp_path / "blur.s"), inputs, "blur", target)
    out.compile_to_llvm_assembly(str(tmp_path / "blur.ll"), inputs, "blur", target)
    out.compile_to_lowered_stmt(str(tmp_path / "blur.stmt"), inputs, "blur", target)
    assert (tmp_path / "blur.o").read_bytes()[:4] == b"\x7fELF"
    assert "define i32 @blur(ptr" in (tmp_path / "blur.ll").read_text()
    assert "produce blur_x" in (tmp_path / "blur.stmt").read_text()
