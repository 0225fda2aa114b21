"""Compile time that scales as Halide's (issue 31): a pyramid of Funcs, each reading the one
before at x / 2 and (x + 1) / 2 and computed at the root, lowers in time and space linear in its
depth. Each region names its consumer's (f0.x.min = min(f1.x.min / 2, (f1.x.min + 1) / 2));
spelled out instead, the regions doubled with every level (12 levels took 34 s, 100 never
finished). benchmarks/compile_time.py measures it against Halide."""

from __future__ import annotations

import time

import pytest

import webhal as hl
from benchmarks.compile_time import pyramid_chain

BUDGET_S = 120  # lowering 100 levels takes a few seconds; minutes means a regression


def _lowered(tmp_path, n: int) -> str:
    out, args = pyramid_chain(hl, n)
    path = tmp_path / f"chain_{n}.stmt"
    out.compile_to_lowered_stmt(str(path), args, target=hl.Target("host"))
    return path.read_text()


def _size(text: str) -> int:
    """Characters less indentation (which deepens with each level by itself)."""
    return sum(len(line.strip()) for line in text.splitlines())


def test_a_small_pyramid_names_its_regions(tmp_path):
    text = _lowered(tmp_path, 6)
    assert "let f0.x.min = min((f1.x.min / 2), ((f1.x.min + 1) / 2))" in text
    assert "let f0.x.max = max((f1.x.max / 2), ((f1.x.max + 1) / 2))" in text
    # the input's check is written with the finest level's region, by name
    assert "'Input buffer input', 0, f0.x.min, f0.x.max" in text


@pytest.mark.slow
def test_a_pyramid_of_100_funcs_lowers_in_linear_time_and_space(tmp_path):
    small = _size(_lowered(tmp_path, 10))
    start = time.perf_counter()
    big = _size(_lowered(tmp_path, 100))
    seconds = time.perf_counter() - start
    # 10 times the levels, at most about 10 times the text (doubling would be 2**90 times)
    assert big < 15 * small, (small, big)
    assert seconds < BUDGET_S, f"lowering 100 levels took {seconds:.1f} s"
