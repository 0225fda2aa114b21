"""The wasm_threads library's pool in Node: it gives the right output when its worker spins and
when it has fallen asleep between calls, and it reads the default thread count (HL_NUM_THREADS,
else the cores) once, as Halide's pool does, not once a parallel loop. Under Emscripten in Node
counting the cores is os.cpus(), which cost every short parallel job tens of microseconds."""

import subprocess

import webhal as hl
from tests.aot.pipelines import blur_u16
from webhal.aot import INCLUDE_DIR
from webhal.toolchain import emcc, emcc_flags

CALLS = 25

HARNESS = r"""
#include "HalideRuntime.h"
#include "blur.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    const int W = 64, H = 64;
    uint16_t *in = calloc((W + 2) * (H + 2), sizeof(uint16_t));
    uint16_t *out = calloc(W * H, sizeof(uint16_t));
    for (int i = 0; i < (W + 2) * (H + 2); i++) in[i] = (uint16_t)(i * 7 % 1009);
    halide_dimension_t in_dim[2] = {{0, W + 2, 1, 0}, {0, H + 2, W + 2, 0}};
    halide_dimension_t out_dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t in_buf = {0}, out_buf = {0};
    in_buf.host = (uint8_t *)in; in_buf.dimensions = 2; in_buf.dim = in_dim;
    in_buf.type.code = halide_type_uint; in_buf.type.bits = 16; in_buf.type.lanes = 1;
    out_buf = in_buf; out_buf.host = (uint8_t *)out; out_buf.dim = out_dim;
    uint16_t *expected = calloc(W * H, sizeof(uint16_t));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t s = 0;
            for (int dy = 0; dy < 3; dy++) {
                uint32_t r = 0;
                for (int dx = 0; dx < 3; dx++) r += in[(y + dy) * (W + 2) + x + dx];
                s += (uint16_t)(r / 3);
            }
            expected[y * W + x] = (uint16_t)(s / 3);
        }
    int errors = 0, bad = 0;
    for (int k = 0; k < CALLS; k++) {
        if (k % 10 == 9) usleep(20000);  /* long enough for the worker to stop spinning */
        memset(out, 0, W * H * sizeof(uint16_t));
        errors += blur(&in_buf, &out_buf) != 0;
        for (int i = 0; i < W * H; i++) bad += out[i] != expected[i];
    }
    printf("errors %d mismatches %d\n", errors, bad);
    return errors || bad;
}
"""

# Counts os.cpus() on the main thread (the one that calls the pipeline and runs par_for).
COUNT_CPUS = """
if (typeof ENVIRONMENT_IS_PTHREAD == 'undefined' || !ENVIRONMENT_IS_PTHREAD) {
  const os = require('os');
  const cpus = os.cpus;
  let calls = 0;
  os.cpus = function () { calls++; return cpus.apply(os, arguments); };
  process.on('exit', () => console.log('os.cpus calls ' + calls));
}
"""


def test_the_default_thread_count_is_read_once(tmp_path, emscripten, node):
    out, inputs = blur_u16()
    target = hl.Target("wasm-32-wasmrt-wasm_simd128-wasm_threads")
    out.compile_to_static_library(str(tmp_path / "blur"), inputs, "blur", target)
    (tmp_path / "harness.c").write_text(HARNESS.replace("CALLS", str(CALLS)))
    (tmp_path / "count.js").write_text(COUNT_CPUS)
    js = tmp_path / "harness.js"
    emcc([*emcc_flags(target, optimize=2, thread_pool_size=2), tmp_path / "harness.c",
          tmp_path / "blur.a", f"-I{INCLUDE_DIR}", f"-I{tmp_path}", "--pre-js",
          tmp_path / "count.js", "-o", js])
    run = subprocess.run([node.path, "--no-experimental-fetch", str(js)], capture_output=True,
                         text=True, timeout=60)
    text = run.stdout + run.stderr
    assert run.returncode == 0 and "errors 0 mismatches 0" in text, text
    assert "os.cpus calls 1" in text, text
