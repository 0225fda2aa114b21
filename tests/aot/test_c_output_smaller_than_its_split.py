"""A C caller passing an output buffer smaller than the schedule's split factor gets the bounds
error, as from Halide's AOT code: only realize(sizes) enlarges its own buffer
(tests/correctness/test_output_smaller_than_its_split.py)."""

import subprocess

import webhal as hl
from tests.aot.test_header import _c_compiler

CALLER = r"""
#include "doubled.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    int32_t out[3];
    halide_dimension_t dim = {0, 3, 1, 0};
    halide_buffer_t out_buf;
    memset(&out_buf, 0, sizeof out_buf);
    out_buf.host = (uint8_t *)out;
    out_buf.dimensions = 1;
    out_buf.dim = &dim;
    out_buf.type.code = halide_type_int;
    out_buf.type.bits = 32;
    out_buf.type.lanes = 1;
    printf("error code %d\n", doubled(&out_buf));
    return 0;
}
"""


def test_output_buffer_narrower_than_the_split_from_c(tmp_path):
    x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
    doubled = hl.Func("doubled")
    doubled[x] = x * 2
    doubled.split(x, xo, xi, 8)
    prefix = str(tmp_path / "doubled")
    doubled.compile_to_static_library(prefix, [], "doubled", hl.Target("host"))
    caller = tmp_path / "caller.c"
    caller.write_text(CALLER)
    exe = str(tmp_path / "caller")
    subprocess.run([_c_compiler(), "-std=c11", str(caller), prefix + ".a", "-lm", "-lpthread",
                    "-o", exe], check=True, cwd=tmp_path)
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    text = run.stdout + run.stderr
    assert "error code -4" in run.stdout, text
    assert "Output buffer doubled is accessed at -5..2, outside 0..2" in text, text
