"""The profiler (target feature `profile`, issue 30 item 6): realize prints Halide's report; its
Funcs are the pipeline's, their times add up to the run's, and the run's total is the compiled
call's wall clock (within 10%) on the host JIT (serial and parallel) and in wasmtime; on WebGPU
and Vulkan the report lists the pipeline's kernels and copies."""

from __future__ import annotations

import time

import numpy as np
import pytest

import webhal as hl
from webhal import jit
from webhal.ir import stmt as st
from webhal.ir.visitor import walk
from webhal.runtime import profiler

W, H = 2048, 256


def _blur(parallel: bool = False, libm: bool = False):
    """A pipeline heavy enough (10-40 ms) that the profiler's own calls (two per row of the
    output, about 1 us each through Python) cost a few percent of it: a Func at root, one
    computed per row of the output, and the output a polynomial of degree 32 per point (or,
    with libm, transcendentals: not for wasmtime, whose libm is Python's)."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(np.random.default_rng(1).random((H, W), dtype=np.float32), "prof_in")
    c = hl.BoundaryConditions.repeat_edge(inp)
    bx = hl.Func("blur_x")
    bx[x, y] = (c[x - 1, y] + c[x, y] + c[x + 1, y]) / 3
    by = hl.Func("blur_y")
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3
    out = hl.Func("sharpened")
    if libm:
        out[x, y] = hl.sqrt(by[x, y] * by[x, y] + 1.0) + hl.exp(by[x, y]) * hl.sin(by[x, y])
    else:
        v = by[x, y]
        for i in range(32):
            v = v * by[x, y] + (0.5 + i / 64)
        out[x, y] = v
    bx.compute_root()
    by.compute_at(out, y)
    if parallel:
        bx.parallel(y)
        out.parallel(y)
    return out


def _profiled_call(out, target: str):
    """(report text, report data, seconds of the compiled call alone)."""
    t = hl.Target(target)
    pipeline = hl.Pipeline(out)
    buf = hl.Buffer(hl.Float(32), [W, H])
    compiled, lowered = jit.compile_jit(pipeline, t)
    values = jit.argument_values(pipeline, [buf], None)
    jit.call(compiled, values, None)  # warm: first-call costs are not the profiler's
    profiler.PROFILER.reset()
    start = time.perf_counter()
    jit.call(compiled, values, None)
    seconds = time.perf_counter() - start
    if hasattr(compiled, "last_call_seconds"):  # wasmtime: the entry alone, not the copies
        seconds = compiled.last_call_seconds
    stats = profiler.PROFILER.pipelines[lowered.outputs[0].name]
    return profiler.format_report(stats), stats.as_dict(), seconds


@pytest.mark.parametrize("target,parallel", [
    ("host-profile", False), ("host-profile", True),
    ("wasm-32-wasmrt-wasm_simd128-profile", False)])
def test_funcs_add_up_to_the_run(target, parallel):
    text, data, seconds = _profiled_call(_blur(parallel), target)
    [parsed] = profiler.parse_report(text)
    assert parsed["name"] == "sharpened" and parsed["runs"] == 1
    names = [n for n, _, _ in parsed["rows"]["funcs"]]
    assert [n for n in names if n != "overhead"] == ["blur_x", "sharpened"] or \
        [n for n in names if n != "overhead"] == ["blur_x", "blur_y", "sharpened"]
    assert "blur_y" in names  # computed per row of the output: its own time, not its consumer's
    funcs_ms = sum(ms for _, ms, _ in parsed["rows"]["funcs"])
    assert funcs_ms == pytest.approx(parsed["total_ms"], rel=0.01)  # rounding of the printing
    assert sum(f["percent"] for f in data["funcs"]) == pytest.approx(100, rel=0.001)
    # The run's total is the call's time: nothing lost outside the Funcs.
    assert 0.9 * seconds * 1e3 <= parsed["total_ms"] <= seconds * 1e3 * 1.001
    assert all(f["ms"] > 0 for f in data["funcs"] if f["name"] != "overhead")
    if parallel:
        # blur_x's loop has a row above and one below the output's.
        assert data["parallel_loops"] == 2 and data["parallel_tasks"] == (H + 2) + H
        assert "average threads used" in text


def test_realize_prints_the_report(capsys):
    out = _blur()
    result = out.realize([W, H], hl.Target("host-profile"))
    printed = capsys.readouterr().out
    [parsed] = profiler.parse_report(printed)
    assert parsed["name"] == "sharpened"
    assert profiler.LAST["pipeline"] == "sharpened"
    # Profiling changes no result.
    np.testing.assert_allclose(np.asarray(result), np.asarray(out.realize([W, H])), rtol=1e-6)
    assert capsys.readouterr().out == ""  # without profile, nothing is printed


def _profiler_calls(target: str) -> list[str]:
    out = _blur(parallel=True)
    _, lowered = jit.compile_jit(hl.Pipeline(out), hl.Target(target))
    return [n.value.name for n in walk(lowered.body)
            if isinstance(n, st.Evaluate) and
            getattr(n.value, "name", "").startswith("webhal_profiler")]


def test_the_pass_instruments_only_with_profile():
    assert _profiler_calls("host") == []
    calls = _profiler_calls("host-profile")
    assert calls.count("webhal_profiler_pipeline_start") == 1
    assert calls.count("webhal_profiler_parallel_start") == 2
    # set to each of the three Funcs and back to its parent: six calls.
    assert calls.count("webhal_profiler_set_current_func") == 6


# A report Halide 21 printed (the profiler's own format: src/runtime/profiler_common.cpp).
HALIDE_REPORT = """\
blur
 total time: 52.307693 ms  samples: 49  runs: 10  time per run: 5.230769 ms
 heap allocations: 10  peak heap usage: 1048576 bytes
    blur_x:                       2.130ms (40.7%)    peak: 1048576 num: 1      avg: 1048576
    blur_y:                       3.100ms (59.2%)
"""


def test_report_format_parses_like_halides():
    [halide] = profiler.parse_report(HALIDE_REPORT)
    assert halide["name"] == "blur" and halide["runs"] == 10
    assert halide["rows"]["funcs"] == [("blur_x", 2.13, 40.7), ("blur_y", 3.1, 59.2)]
    stats = profiler.PipelineStats("blur", ["blur_x", "blur_y"], ns=[0, 21_300_000, 31_000_000],
                                   runs=10, total_ns=52_300_000)
    text = profiler.format_report(stats)
    assert text.splitlines()[1] == \
        " total time: 52.300000 ms  samples: 10  runs: 10  time per run: 5.230000 ms"
    # Column for column as Halide's: name padded to 23 + 7, time in 12, percent after.
    assert text.splitlines()[3] == "    blur_x:                       2.130ms (40.7%)"
    [ours] = profiler.parse_report(text)
    assert ours["rows"]["funcs"] == [("blur_x", 2.13, 40.7), ("blur_y", 3.1, 59.2)]


def _gpu_pipeline():
    x, y, xo, yo, xi, yi = [hl.Var(n) for n in "x y xo yo xi yi".split()]
    inp = hl.Buffer(np.random.default_rng(2).random((256, 256), dtype=np.float32), "gin")
    f = hl.Func("brighten")
    f[x, y] = inp[x, y] * 2.0 + 1.0
    g = hl.Func("square")
    g[x, y] = f[x, y] * f[x, y]
    f.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 16)
    g.gpu_tile(x, y, xo, yo, xi, yi, 16, 16)
    return g, (np.asarray(inp) * 2 + 1) ** 2


@pytest.mark.parametrize("target", ["host-webgpu-profile", "host-vulkan-profile"])
def test_gpu_report_lists_kernels_and_copies(target, request):
    request.getfixturevalue("wgpu_adapter" if "webgpu" in target else "vulkan_device")
    g, expected = _gpu_pipeline()
    g.realize([256, 256], hl.Target(target))  # warm: pipelines and buffers made
    data = profiler.LAST
    np.testing.assert_allclose(np.asarray(g.realize([256, 256], hl.Target(target))), expected,
                               rtol=1e-6)
    data = profiler.LAST
    assert [k["name"] for k in data["kernels"]] == ["kernel_0_brighten", "kernel_1_square"]
    assert all(k["ms"] > 0 and k["dispatches"] == 1 for k in data["kernels"])
    assert data["kernel_timing"]  # timestamps or the wall clock, and the report says which
    copies = {(c["direction"], c["name"]) for c in data["copies"]}
    assert ("to device", "gin") in copies and ("to host", "square") in copies
    assert {f["name"] for f in data["funcs"]} >= {"brighten", "square"}



def test_a_failed_run_is_not_counted():
    """A run that fails after a Func ran (it never reaches pipeline_end) leaves nothing in the
    report: the next run starts from what the last whole run left, so the report adds up."""
    prof = profiler.Profiler()
    prof.pipeline_start("p", "f,g")
    prof.set_current_func(1)
    time.sleep(0.002)
    prof.set_current_func(2)  # ... and the run fails here
    prof.pipeline_start("p", "f,g")
    prof.set_current_func(2)
    prof.set_current_func(0)
    prof.pipeline_end()
    stats = prof.pipelines["p"]
    assert stats.runs == 1 and stats.ns[1] == 0
    assert sum(stats.ns) == stats.total_ns
