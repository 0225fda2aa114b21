"""From C, a static library prints hl.print's lines and trace lines through halide_print
(stdout, formatted with snprintf as the JIT formats them) and reports a failed requirement
through halide_error with its values."""

import subprocess

import webhal as hl
from tests.aot.test_header import _c_compiler
from webhal.toolchain import emcc

CALLER = r"""
#include "printer.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int32_t out[2];
    halide_dimension_t dim = {0, 2, 1, 0};
    halide_buffer_t buf;
    memset(&buf, 0, sizeof buf);
    buf.host = (uint8_t *)out;
    buf.dimensions = 1;
    buf.dim = &dim;
    buf.type.code = halide_type_int;
    buf.type.bits = 32;
    buf.type.lanes = 1;
    fflush(stdout);
    int code = printer(atoi(argv[1]), &buf);
    fflush(stdout);
    printf("error code %d\n", code);
    return 0;
}
"""


EXPECTED = [
    "Begin pipeline printer.0()",
    'Tag printer.0() tag = "func_type_and_dim: 1 0 32 1 1 0 2"',
    "0 of 0.000000 0.000000e+00 false end",
    "Store printer.0(0) = 0",
    "3 of 0.250000 1.000000e+00 true end",
    "Store printer.0(1) = 3",
    "End pipeline printer.0()",
    "error code 0",
]


def _library(tmp_path, target: str) -> str:
    x = hl.Var("x")
    p = hl.Param(hl.Int(32), "p")
    f = hl.Func("printer")
    f[x] = hl.print(x * p, "of", hl.f32(x) / 4, hl.f64(x), x > 0, "end")
    f.trace_stores()
    pipeline = hl.Pipeline(f)
    pipeline.add_requirement(p < 10, "p is", p)
    prefix = str(tmp_path / "printer")
    pipeline.compile_to_static_library(prefix, [p], "printer", hl.Target(target))
    (tmp_path / "caller.c").write_text(CALLER)
    return prefix + ".a"


def test_print_trace_and_requirement_from_c(tmp_path):
    library = _library(tmp_path, "host")
    exe = str(tmp_path / "caller")
    subprocess.run([_c_compiler(), "-std=c11", "caller.c", library, "-lm", "-lpthread",
                    "-o", exe], check=True, cwd=tmp_path)
    run = subprocess.run([exe, "3"], capture_output=True, text=True, timeout=60)
    assert run.stdout.splitlines() == EXPECTED, run.stdout + run.stderr
    run = subprocess.run([exe, "12"], capture_output=True, text=True, timeout=60)
    assert "error code -27" in run.stdout
    assert "Error: Requirement Failed: (p < 10) p is 12" in run.stderr, run.stderr


def test_print_trace_and_requirement_in_wasm(tmp_path, emscripten, node):
    library = _library(tmp_path, "wasm-32-wasmrt")
    js = str(tmp_path / "caller.js")
    emcc(["-O1", str(tmp_path / "caller.c"), library, f"-I{tmp_path}", "-o", js])
    run = subprocess.run([node.path, "--no-experimental-fetch", js, "3"], capture_output=True,
                         text=True, timeout=60)
    assert run.stdout.splitlines() == EXPECTED, run.stdout + run.stderr
    run = subprocess.run([node.path, "--no-experimental-fetch", js, "12"],
                         capture_output=True, text=True, timeout=60)
    text = run.stdout + run.stderr
    assert "error code -27" in text and "Requirement Failed: (p < 10) p is 12" in text, text
