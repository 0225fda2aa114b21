"""What the autoscheduler chooses on WebGPU for demos whose hand schedules it should match:
Sobel as one dispatch (its inlined smoothing passes share the 3x3 taps), the histogram's scan
computed inside its table's single GPU block (not on the host between kernels), a blur's
horizontal pass still at root (its three rows share nothing)."""

from __future__ import annotations

import re

import webhal as hl
from benchmarks.autoschedule import demo_pipeline

TARGET = "wasm-32-wasmrt-wasm_simd128-webgpu"


def schedule(name: str) -> list[str]:
    p, _, _ = demo_pipeline(name, TARGET, (1024, 1024))
    source = p.apply_autoscheduler(hl.Target(TARGET), hl.AutoschedulerParams("Webhal"))
    return [line.strip() for line in source.schedule_source.splitlines()
            if re.match(r"\s+\w+(\.update\(\d+\))?\.\w+\(", line)]


def test_sobel_is_one_dispatch():
    lines = schedule("sobel")
    assert [line.split(".")[0] for line in lines] == ["output"], lines
    assert not any("compute_root" in line for line in lines)


def test_histogram_scan_runs_in_its_tables_gpu_block():
    lines = schedule("histogram_equalization")
    table = next(line for line in lines if line.startswith("table."))
    assert ".gpu_blocks(bo)" in table and "gpu_tile" not in table, table
    assert "cdf.compute_at(table, bo)" in lines, lines
    assert "cdf.update(0).unscheduled()" in lines


def test_blur_keeps_its_horizontal_pass_at_root():
    lines = schedule("blur")
    assert any(line.startswith("blur_x.compute_root()") for line in lines), lines


def test_local_laplacian_computes_each_level_whole():
    """Each pyramid level is one dispatch with its boundary condition and, on the coarse
    levels, its horizontal pass inlined (the clamps bound every level's region to its size),
    in workgroups that shrink with the level, as the hand schedule does: about as many
    dispatches as the hand schedule's 25, where every boundary condition and horizontal pass
    was one of some 70."""
    lines = schedule("local_laplacian")
    roots = [line for line in lines if ".compute_root()" in line]
    assert len(roots) <= 30, roots
    assert not any("repeat_edge" in line for line in roots), roots
    coarse = next(line for line in lines if line.startswith("gauss_7."))
    assert "gpu_tile(x, y, xo, yo, xi, yi, 4, 4)" in coarse, coarse
    fine = next(line for line in lines if line.startswith("gauss_1."))
    assert "gpu_tile(x, y, xo, yo, xi, yi, 16, 16)" in fine, fine


def test_bilateral_grid_update_shares_its_samples_between_channels():
    """The grid's update unrolls its two channels inside the RDom's loops (one sample, two
    sums), as the hand schedule does, rather than a block dimension that computes every
    sample twice."""
    lines = schedule("bilateral_grid")
    update = next(line for line in lines if line.startswith("grid.update(0)"))
    assert ".reorder(c, r_x, r_y, x, y).unroll(c).gpu_tile(" in update, update
    assert "gpu_blocks(c)" not in update, update


def test_bilateral_grid_schedule_source_gives_the_same_statement(tmp_path):
    """The printed schedule, RVars in a reorder included, applied by hand to a fresh copy of
    the pipeline gives the same lowered statement."""
    target = hl.Target(TARGET)
    auto, _, _ = demo_pipeline("bilateral_grid", TARGET, (1024, 1024))
    source = auto.apply_autoscheduler(target, hl.AutoschedulerParams("Webhal")).schedule_source
    by_hand, _, _ = demo_pipeline("bilateral_grid", TARGET, (1024, 1024))
    namespace: dict = {}
    exec(compile(source, "schedule.py", "exec"), namespace)  # noqa: S102
    namespace["apply_schedule"](by_hand)
    texts = []
    for p, name in ((auto, "auto"), (by_hand, "by_hand")):
        path = tmp_path / f"{name}.stmt"
        p.compile_to_lowered_stmt(str(path), p.infer_arguments(), hl.StmtOutputFormat.Text,
                                  target)
        texts.append(path.read_text())
    assert texts[0] == texts[1]


def test_a_short_var_sized_by_the_estimates_is_not_unrolled():
    """A loop whose extent follows an output's estimate (3 channels here) need not have a
    constant extent when lowered: it is not unrolled (unroll would refuse it)."""
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    image = hl.ImageParam(hl.Float(32), 3, "input")
    r = hl.RDom([(0, 4)], "r")
    acc, out = hl.Func("acc"), hl.Func("out")
    acc[x, y, c] = hl.f32(0)
    acc[x, y, c] += image[hl.clamp(x + r.x, 0, 63), y, c]
    out[x, y, c] = acc[x, y, c] * 2
    out.set_estimates([(0, 64), (0, 64), (0, 3)])
    image.set_estimates([(0, 64), (0, 64), (0, 3)])
    source = hl.Pipeline(out).apply_autoscheduler(
        hl.Target(TARGET), hl.AutoschedulerParams("Webhal")).schedule_source
    update = next(line for line in source.splitlines() if "acc.update(0)" in line)
    assert "unroll" not in update and "gpu_blocks(c)" in update, update
