"""Loops scheduled on the GPU, compiled for a target without a GPU feature: refused as in
Halide, naming the feature to add, rather than run on the CPU. The reference evaluator, which
ignores schedules, still runs them."""

import numpy as np
import pytest

import webhal as hl

from ._util import REFERENCE, expect_error

x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))


def _shade() -> hl.Func:
    shade = hl.Func("shade")
    shade[x, y] = x + y
    return shade


@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt"])
def test_gpu_tile_on_a_cpu_target(target, tmp_path):
    shade = _shade()
    shade.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)  # <- error
    with expect_error(hl.ScheduleError, "Func shade", "on the GPU", "has no GPU feature",
                      "add webgpu or vulkan to the target"):
        shade.compile_to_lowered_stmt(str(tmp_path / "shade.stmt"), [], "shade",
                                      hl.Target(target))


def test_gpu_blocks_of_an_update_on_the_host():
    hist = hl.Func("hist")
    hist[x] = 0
    hist[x] += 1
    hist.update(0).gpu_blocks(x)  # <- error
    with expect_error(hl.ScheduleError, "Func hist.update(0)", "has no GPU feature"):
        hist.realize([8], hl.Target("host"))


def test_the_reference_still_runs_a_gpu_schedule():
    shade = _shade()
    shade.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    out = shade.realize([10, 6], REFERENCE)
    np.testing.assert_array_equal(np.asarray(out), np.add.outer(np.arange(6), np.arange(10)))
