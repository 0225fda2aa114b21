"""benchmarks.autoschedule --node-runs: the wasm table from rounds run on another machine
(benchmarks/interleave.py's JSON), one file or several whose rounds are joined in order."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.autoschedule import node_runs
from benchmarks.measure import SIMD
from benchmarks.wasm import WasmBuild


def _round(ms: float, checksum: str = "ab", load: float = 0.5) -> dict:
    line = {"ok": True, "median_ms": ms, "min_ms": ms * 0.9, "checksum": checksum, "sum": 1,
            "batches": 5, "calls_per_batch": 3, "first_call_ms": ms * 2, "inputs": []}
    return {"lines": ["warming up", json.dumps(line)], "rc": 0, "stderr": "", "load": load}


def _file(path: Path, rounds: dict[str, list[dict]], busy: list[float]) -> str:
    path.write_text(json.dumps({"cores": 16, "busy": busy, "runs": rounds}))
    return str(path)


def _builds(tmp_path: Path) -> list[WasmBuild]:
    # Elsewhere the directories were benchmarks/build/PIPELINE/IMPL-TARGET: matched by the
    # last two parts, wherever the build tree is here.
    return [WasmBuild("blur", impl, SIMD, tmp_path / "build" / "blur" / f"{impl}-simd")
            for impl in ("webhal", "webhal-auto")]


def test_rounds_of_several_files_are_joined_in_order(tmp_path):
    hand, auto = "benchmarks/build/blur/webhal-simd", "benchmarks/build/blur/webhal-auto-simd"
    first = _file(tmp_path / "r1.json", {hand: [_round(1.0)], auto: [_round(2.0)]}, [0.1])
    second = _file(tmp_path / "r2.json", {auto: [_round(3.0), _round(5.0)],
                                          hand: [_round(1.5), _round(2.5)]}, [0.2, 0.3])
    measured, cores = node_runs(_builds(tmp_path), f"{first},{second}")
    assert cores == 16
    by_impl = {m.impl: m for m in measured}
    assert by_impl["webhal"].round_medians_ms == [1.0, 1.5, 2.5]
    assert by_impl["webhal-auto"].round_medians_ms == [2.0, 3.0, 5.0]
    assert by_impl["webhal-auto"].median_ms == 3.0
    assert measured[0].details["busy"] == [0.1, 0.2, 0.3]


def test_a_build_missing_from_the_runs_or_failing_there_is_a_failure(tmp_path):
    hand = "benchmarks/build/blur/webhal-simd"
    broken = {"lines": [], "rc": 1, "stderr": "ReferenceError: require is not defined",
              "load": None}
    one = _file(tmp_path / "r.json", {hand: [broken]}, [0.0])
    measured, _ = node_runs(_builds(tmp_path), one)
    by_impl = {m.impl: m for m in measured}
    assert not by_impl["webhal"].ok and "require is not defined" in by_impl["webhal"].error
    assert not by_impl["webhal-auto"].ok and "not run" in by_impl["webhal-auto"].error
