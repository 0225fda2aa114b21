"""The apps benchmark's side-by-side timing (benchmarks/measure.time_interleaved and
run_apps.per_round): the implementations take turns round by round, the order reversed every
other round, and a ratio is taken per round, so that load which comes and goes falls on both."""

from __future__ import annotations

import pytest

from benchmarks import measure
from benchmarks.measure import time_interleaved
from benchmarks.run_apps import parse_args, per_round


class _Clock:
    """A simulated clock for benchmarks.measure: a call advances it by its cost, times `slow`
    (load), so the timing arithmetic is checked exactly whatever else the machine runs."""

    def __init__(self):
        self.now = 0.0
        self.slow = 1.0

    def perf_counter(self) -> float:
        return self.now

    def process_time(self) -> float:
        return self.now

    def work(self, ms: float):
        def call():
            self.now += ms * self.slow / 1e3
        return call


def test_rounds_alternate_and_reverse():
    seen = []
    calls = {"a": lambda: seen.append("a"), "b": lambda: seen.append("b")}
    found = time_interleaved(calls, rounds=4, batch_ms=0.0, warmup_ms=0.0)
    timed = seen[4:]  # two warm-up calls each, then one call per batch (batch_ms 0)
    assert timed == ["a", "b", "b", "a", "a", "b", "b", "a"]
    for name in calls:
        assert len(found[name]["wall_ms"]) == len(found[name]["cpu_ms"]) == 4


def test_per_round_ratio_follows_the_work(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(measure, "time", clock)
    loads = iter([1.0, 8.0, 1.0, 1.0, 1.0])

    def after_round():  # the load average read after each round sets the next one's speed
        clock.slow = next(loads)
        return clock.slow

    monkeypatch.setattr(measure, "load_average", after_round)
    found = time_interleaved({"w": clock.work(2.0), "h": clock.work(1.0)}, rounds=5,
                             batch_ms=6.0, warmup_ms=5.0)
    # the third round ran 8x slower for both, as load would make it
    assert found["w"]["wall_ms"] == pytest.approx([2.0, 2.0, 16.0, 2.0, 2.0])
    assert found["h"]["wall_ms"] == pytest.approx([1.0, 1.0, 8.0, 1.0, 1.0])
    assert found["w"]["load"] == [1.0, 8.0, 1.0, 1.0, 1.0]
    summary = per_round(found["w"]["wall_ms"], found["h"]["wall_ms"])
    assert summary["rounds"] == 5
    assert [summary[k] for k in ("low", "ratio", "high")] == pytest.approx([2.0] * 3)
    cpu = per_round(found["w"]["cpu_ms"], found["h"]["cpu_ms"])
    assert cpu["ratio"] == pytest.approx(2.0)


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
