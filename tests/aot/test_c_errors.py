"""A pipeline called from C (on the host, and as wasm in Node) with a buffer of the wrong type
reports both types by name, the pipeline's first: "input has type uint8, but the buffer passed
in has type uint16", as the JIT's message says it."""

import subprocess

import webhal as hl
from tests.aot.test_header import _c_compiler
from webhal.toolchain import emcc

# Calls copy(input, output) with a uint16 input where the pipeline takes uint8.
CALLER = r"""
#include "copy.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    uint16_t in[4] = {0};
    uint8_t out[4];
    halide_dimension_t dim = {0, 4, 1, 0};
    halide_buffer_t in_buf, out_buf;
    memset(&in_buf, 0, sizeof in_buf);
    in_buf.host = (uint8_t *)in;
    in_buf.dimensions = 1;
    in_buf.dim = &dim;
    in_buf.type.code = halide_type_uint;
    in_buf.type.bits = 16;
    in_buf.type.lanes = 1;
    out_buf = in_buf;
    out_buf.host = out;
    out_buf.type.bits = 8;
    printf("error code %d\n", copy(&in_buf, &out_buf));
    return 0;
}
"""
MESSAGE = "Error: input has type uint8, but the buffer passed in has type uint16"


def _library_and_caller(tmp_path, target: str) -> tuple[str, str]:
    x = hl.Var("x")
    inp = hl.ImageParam(hl.UInt(8), 1, "input")
    copy = hl.Func("copy")
    copy[x] = inp[x]
    prefix = str(tmp_path / "copy")
    copy.compile_to_static_library(prefix, [inp], "copy", hl.Target(target))
    caller = tmp_path / "caller.c"
    caller.write_text(CALLER)
    return prefix + ".a", str(caller)


def test_wrong_type_from_c_on_the_host(tmp_path):
    library, caller = _library_and_caller(tmp_path, "host")
    exe = str(tmp_path / "caller")
    subprocess.run([_c_compiler(), "-std=c11", caller, library, "-lm", "-lpthread", "-o", exe],
                   check=True, cwd=tmp_path)
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert "error code -3" in run.stdout and MESSAGE in run.stderr, run.stdout + run.stderr


def test_wrong_type_from_c_in_wasm(tmp_path, emscripten, node):
    library, caller = _library_and_caller(tmp_path, "wasm-32-wasmrt")
    js = str(tmp_path / "caller.js")
    emcc(["-O1", caller, library, f"-I{tmp_path}", "-o", js])
    run = subprocess.run([node.path, "--no-experimental-fetch", js], capture_output=True,
                         text=True, timeout=60)
    text = run.stdout + run.stderr
    assert "error code -3" in text and MESSAGE in text, text
