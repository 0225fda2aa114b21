"""A static library built with `profile` carries the profiler's runtime (codegen/llvm/
profiler.py): from C, after two calls, halide_profiler_report prints Halide's report of the
pipeline, whose Funcs add up to its total; halide_profiler_reset forgets it. Natively and, with
emcc, in Node (where the clock is performance.now())."""

import subprocess

import pytest

import webhal as hl
from tests.aot.test_c_print_and_requirements import _c_compiler
from tests.runtime.test_profiler import H, W, _blur
from webhal.runtime.profiler import parse_report
from webhal.toolchain import emcc

CALLER = r"""
#include "blurprof.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(void) {
    static float out[%(H)d][%(W)d];
    halide_dimension_t dim[2] = {{0, %(W)d, 1, 0}, {0, %(H)d, %(W)d, 0}};
    halide_buffer_t buf;
    memset(&buf, 0, sizeof buf);
    buf.host = (uint8_t *)out;
    buf.dimensions = 2;
    buf.dim = dim;
    buf.type.code = halide_type_float;
    buf.type.bits = 32;
    buf.type.lanes = 1;
    for (int i = 0; i < 2; i++) {
        if (blurprof(&buf)) return 1;
    }
    fflush(stdout);
    halide_profiler_report(NULL);
    fflush(stdout);
    halide_profiler_reset();
    halide_profiler_report(NULL);  /* nothing left to print */
    printf("done\n");
    return 0;
}
"""


def _library(tmp_path, target: str, parallel: bool) -> None:
    out = _blur(parallel)
    hl.Pipeline(out).compile_to_static_library(str(tmp_path / "blurprof"), [], "blurprof",
                                                hl.Target(target))
    (tmp_path / "caller.c").write_text(CALLER % {"W": W, "H": H})


def _check(stdout: str, parallel: bool) -> None:
    assert stdout.rstrip().endswith("done") and stdout.count(" total time:") == 1, stdout
    [report] = parse_report(stdout)
    assert report["name"] == "sharpened" and report["runs"] == 2, stdout
    rows = report["rows"]["funcs"]
    assert {n for n, _, _ in rows} - {"overhead"} == {"blur_x", "blur_y", "sharpened"}
    assert report["per_run_ms"] == pytest.approx(report["total_ms"] / 2, rel=1e-3)
    # Per run, the Funcs add up to the run (the printing drops digits: 0.001 ms a row).
    assert sum(ms for _, ms, _ in rows) == pytest.approx(report["per_run_ms"], abs=0.01)
    assert sum(p for _, _, p in rows) == pytest.approx(100, abs=0.5)
    assert ("average threads used" in stdout) == parallel


@pytest.mark.parametrize("parallel", [False, True])
def test_profiler_report_from_c(tmp_path, parallel):
    _library(tmp_path, "host-profile", parallel)
    exe = str(tmp_path / "caller")
    subprocess.run([_c_compiler(), "-std=c11", "caller.c", "blurprof.a", "-lm", "-lpthread",
                    "-o", exe], check=True, cwd=tmp_path)
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    _check(run.stdout, parallel)


@pytest.mark.parametrize("threads", [False, True])
def test_profiler_report_in_wasm(tmp_path, emscripten, node, threads):
    """With wasm_threads the tasks run on Emscripten's pthreads (thread_local state each)."""
    target = "wasm-32-wasmrt-wasm_simd128" + "-wasm_threads" * threads + "-profile"
    _library(tmp_path, target, threads)
    js = str(tmp_path / "caller.js")
    # EXIT_RUNTIME: else the pool's workers keep Node running after main returns.
    pthreads = ["-pthread", "-sPTHREAD_POOL_SIZE=4", "-sEXIT_RUNTIME=1"] if threads else []
    emcc(["-O1", *pthreads, str(tmp_path / "caller.c"), str(tmp_path / "blurprof.a"),
          f"-I{tmp_path}", "-sINITIAL_MEMORY=64MB", "-o", js])
    run = subprocess.run([node.path, "--no-experimental-fetch", js], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    _check(run.stdout, threads)
