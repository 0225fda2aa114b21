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
