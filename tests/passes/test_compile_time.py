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

BUDGET_S = 30  # 100 levels lower in 1.8 s at load 3; the margin is for a loaded 2-core machine


def _lowered(tmp_path, n: int, per_strip: bool = False) -> str:
    out, args = pyramid_chain(hl, n, per_strip)
    path = tmp_path / f"chain_{n}_{per_strip}.stmt"
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


def test_a_pyramid_computed_per_strip_lowers_in_linear_space(tmp_path):
    """Funcs computed per row of the output's strips and stored per strip (Halide's
    interpolate and local Laplacian schedules): their regions are lets inside the strip's
    loop, and the storage at the strip is sized over that loop, through those lets by name
    (name.lower, name.upper); substituted, each level doubled the text (54k characters at 5
    levels, 15.9k at 3), and Halide's local Laplacian took minutes."""
    small = _size(_lowered(tmp_path, 3, per_strip=True))
    big = _size(_lowered(tmp_path, 9, per_strip=True))
    # 3 times the levels, about 4 times the text now; doubling would be 64 times
    assert big < 8 * small, (small, big)
    assert "f2.y.min.lower" in _lowered(tmp_path, 4, per_strip=True)
