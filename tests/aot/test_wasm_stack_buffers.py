"""Run-time-sized buffers of a parallel loop's task in an Emscripten build, in Node: nested ones
past STACK_LIMIT (16 KiB together) go on the stack too while the thread keeps STACK_RESERVE of
its stack free (emscripten_stack_get_free), so a strip's buffers all lie on the worker's stack;
before, the inner one went to halide_malloc every row (the Sobel autoschedule's third strip
buffer, 1.26x the hand schedule's time on 2 workers for it, docs/autoschedule.md)."""

import subprocess

import numpy as np

import webhal as hl
from webhal.aot import INCLUDE_DIR
from webhal.toolchain import emcc, emcc_flags

W, H = 7, 9

HARNESS = r"""
#include "HalideRuntime.h"
#include "nested.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int mallocs;

/* Stronger than the runtime's weak ones: count what the pipeline asks of the heap. */
void *halide_malloc(void *user_context, size_t size) {
    atomic_fetch_add(&mallocs, 1);
    return malloc(size);
}
void halide_free(void *user_context, void *ptr) { free(ptr); }

int main(void) {
    int32_t out[W * H];
    halide_dimension_t dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t buf = {0};
    buf.host = (uint8_t *)out; buf.dimensions = 2; buf.dim = dim;
    buf.type.code = halide_type_int; buf.type.bits = 32; buf.type.lanes = 1;
    int errors = 0;
    for (int k = 0; k < 3; k++) errors += nested(N, &buf) != 0;
    printf("errors %d mallocs %d\n", errors, (int)mallocs);
    for (int i = 0; i < W * H; i++) printf("%d ", out[i]);
    printf("\n");
    return errors;
}
"""


def test_a_tasks_nested_buffers_past_the_limit_go_on_the_stack(tmp_path, emscripten, node):
    n = 3000  # each row: outer 12 KB, inner 24 KB of int32, 36 KB together
    x, y = hl.Var("x"), hl.Var("y")
    width = hl.Param(hl.Int(32), "n")
    inner, outer, out = hl.Func("inner"), hl.Func("outer"), hl.Func("out")
    inner[x, y] = hl.i32(x) ^ y
    outer[x, y] = inner[x, y] + inner[x + width, y]
    out[x, y] = outer[x, y] - outer[x + width, y]
    outer.compute_at(out, y)
    inner.compute_at(outer, y)
    out.parallel(y)
    target = hl.Target("wasm-32-wasmrt-wasm_simd128-wasm_threads")
    out.compile_to_static_library(str(tmp_path / "nested"), [width], "nested", target)
    (tmp_path / "harness.c").write_text(f"#define W {W}\n#define H {H}\n#define N {n}\n"
                                        + HARNESS)
    js = tmp_path / "harness.js"
    emcc([*emcc_flags(target, optimize=2, thread_pool_size=2), tmp_path / "harness.c",
          tmp_path / "nested.a", f"-I{INCLUDE_DIR}", f"-I{tmp_path}", "-o", js])
    run = subprocess.run([node.path, "--no-experimental-fetch", str(js)], capture_output=True,
                         text=True, timeout=60)
    text = run.stdout + run.stderr
    assert run.returncode == 0 and "errors 0 mallocs 0" in text, text
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="xy")
    f = lambda i: (i ^ ys) + ((i + n) ^ ys)  # noqa: E731
    expected = (f(xs) - f(xs + n)).ravel()
    got = np.array([int(v) for v in text.split("\n")[1].split()])
    assert (got == expected).all(), text
