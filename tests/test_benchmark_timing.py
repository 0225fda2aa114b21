"""The apps benchmark's side-by-side timing (benchmarks/measure.time_interleaved and
run_apps.per_round): the implementations take turns round by round, the order reversed every
other round, and a ratio is taken per round, so that load which comes and goes falls on both."""

from __future__ import annotations

import time

import pytest

from benchmarks.measure import time_interleaved
from benchmarks.run_apps import parse_args, per_round


def _busy(ms: float):
    def call():
        end = time.perf_counter() + ms / 1e3
        while time.perf_counter() < end:
            pass
    return call


def test_rounds_alternate_and_reverse():
    seen = []
    calls = {"a": lambda: seen.append("a"), "b": lambda: seen.append("b")}
    found = time_interleaved(calls, rounds=4, batch_ms=0.0, warmup_ms=0.0)
    timed = seen[4:]  # two warm-up calls each, then one call per batch (batch_ms 0)
    assert timed == ["a", "b", "b", "a", "a", "b", "b", "a"]
    for name in calls:
        assert len(found[name]["wall_ms"]) == len(found[name]["cpu_ms"]) == 4


def test_per_round_ratio_follows_the_work():
    found = time_interleaved({"w": _busy(2.0), "h": _busy(1.0)}, rounds=5, batch_ms=6.0,
                             warmup_ms=5.0)
    summary = per_round(found["w"]["wall_ms"], found["h"]["wall_ms"])
    assert summary["rounds"] == 5
    assert 1.6 < summary["ratio"] < 2.5
    assert summary["low"] <= summary["q1"] <= summary["ratio"] <= summary["q3"] \
        <= summary["high"]
    cpu = per_round(found["w"]["cpu_ms"], found["h"]["cpu_ms"])
    assert 1.6 < cpu["ratio"] < 2.5  # busy loops: CPU time tracks wall time


def test_per_round_takes_each_round_s_ratio():
    # A slow round for both (load) leaves its ratio alone; the ratio of the libraries'
    # medians would be 4 here (4 ms against 1 ms).
    summary = per_round([2.0, 40.0, 4.0], [1.0, 20.0, 1.0])
    assert summary["ratio"] == pytest.approx(2.0)
    assert (summary["low"], summary["high"]) == (pytest.approx(2.0), pytest.approx(4.0))
    assert (summary["webhal_ms"], summary["halide_ms"]) == (4.0, 1.0)
    assert per_round([], [1.0]) == {}


def test_default_is_the_apps_own_sizes():
    assert not parse_args([]).small
    assert parse_args(["--small"]).small
    with pytest.raises(SystemExit):
        parse_args(["--small", "--full"])
