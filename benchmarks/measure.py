"""What one measurement is, how outputs are checksummed, and how Python-side calls are timed."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from statistics import median

import numpy as np

SIMD = "wasm-32-wasmrt-wasm_simd128"
SCALAR = "wasm-32-wasmrt"
THREADS = "wasm-32-wasmrt-wasm_simd128-wasm_threads"
TARGET_LABELS = {SIMD: "wasm SIMD", SCALAR: "wasm scalar", THREADS: "wasm SIMD+threads"}
TARGET_SLUGS = {SIMD: "simd", SCALAR: "scalar", THREADS: "threads"}


@dataclass(frozen=True)
class Settings:
    """How long to measure. The wasm harness gets the same numbers on its command line."""

    batches: int
    min_batch_ms: float
    warmup_ms: float
    rounds: int  # runs per measurement; the median of their medians is kept


QUICK = Settings(batches=5, min_batch_ms=10, warmup_ms=30, rounds=1)
FULL = Settings(batches=15, min_batch_ms=25, warmup_ms=100, rounds=3)


@dataclass
class Measurement:
    """One implementation of one pipeline timed in one environment.

    env: "node", "chromium" or "host"; impl: "webhal", "halide", "numpy" or "opencv.js";
    target: a wasm target string, or for the host "realize" / "call" / "numpy"."""

    pipeline: str
    env: str
    impl: str
    target: str
    ok: bool
    median_ms: float | None = None  # the median of round_medians_ms
    min_ms: float | None = None  # the fastest batch of any round
    checksum: int | None = None  # see checksum(); None where not comparable
    sum: float | None = None  # the sum of the output's elements
    error: str = ""
    details: dict = field(default_factory=dict)
    round_medians_ms: list[float] = field(default_factory=list)  # each round's median
    load: list[float] = field(default_factory=list)  # the load average after each round

    @property
    def spread(self) -> tuple[float, float, float] | None:
        """(min, median, max) over the rounds' medians: how far one run's figure can be
        trusted. With one round (or none recorded) all three are the median."""
        if not self.ok or self.median_ms is None:
            return None
        rounds = self.round_medians_ms or [self.median_ms]
        return min(rounds), self.median_ms, max(rounds)

    @property
    def max_load(self) -> float | None:
        return max(self.load) if self.load else None

    def as_json(self) -> dict:
        d = asdict(self)
        if self.checksum is not None:
            d["checksum"] = f"{self.checksum:016x}"
        spread = self.spread
        d["max_ms"] = spread[2] if spread else None
        return d


def load_average() -> float | None:
    """The 1-minute load average: other work on the machine skews every number."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def checksum(array: np.ndarray) -> int:
    """The harness's checksum (harness.c: checksum()) of a dense array in numpy order: the sum,
    modulo 2^64, of each element's bits times an odd weight derived from its index."""
    flat = np.ascontiguousarray(array).ravel()
    bits = flat.view(f"u{flat.dtype.itemsize}").astype(np.uint64)
    index = np.arange(flat.size, dtype=np.uint64)
    weights = ((index * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)) | np.uint64(1)
    return int(np.sum(bits * weights, dtype=np.uint64))


def time_calls(call: Callable[[], object], settings: Settings) -> dict:
    """Time `call` as the harness does (warm up, size batches to settings.min_batch_ms, time
    settings.batches batches), the batches split into settings.rounds rounds back to back.
    Returns Measurement's timing fields: median_ms (the median of the rounds' medians),
    min_ms, round_medians_ms and load (after each round)."""
    start = time.perf_counter()
    warm = 0
    while warm < 2 or (time.perf_counter() - start) * 1e3 < settings.warmup_ms:
        call()
        warm += 1
    per_call_ms = (time.perf_counter() - start) * 1e3 / warm
    calls = max(1, int(np.ceil(settings.min_batch_ms / max(per_call_ms, 1e-6))))
    # settings.batches in all, shared among the rounds: the spread costs no extra time.
    per_round = max(3, settings.batches // max(1, settings.rounds))
    fastest, medians, loads = float("inf"), [], []
    for _ in range(settings.rounds):
        times = []
        for _ in range(per_round):
            t0 = time.perf_counter()
            for _ in range(calls):
                call()
            times.append((time.perf_counter() - t0) * 1e3 / calls)
        fastest = min(fastest, *times)
        medians.append(median(times))
        loads.append(load_average())
    return {"median_ms": median(medians), "min_ms": fastest, "round_medians_ms": medians,
            "load": [v for v in loads if v is not None]}


def time_interleaved(calls: dict[str, Callable[[], object]], rounds: int, batch_ms: float,
                     warmup_ms: float) -> dict[str, dict[str, list[float]]]:
    """Time several implementations of one computation side by side in this process, round by
    round: in each round every call runs one batch (its number of calls sized in the warm-up
    to `batch_ms`), in the order of `calls` and reversed every other round (ABBA), so load that
    comes and goes on a shared machine hits them alike and a ratio taken per round keeps
    little of it. Returns, per name, each round's wall ("wall_ms") and process CPU ("cpu_ms",
    every thread's) milliseconds per call, and "load": the load average after each round."""
    sizes = {}
    for name, call in calls.items():
        start, warm = time.perf_counter(), 0
        while warm < 2 or (time.perf_counter() - start) * 1e3 < warmup_ms:
            call()
            warm += 1
        per_call_ms = (time.perf_counter() - start) * 1e3 / warm
        sizes[name] = max(1, int(np.ceil(batch_ms / max(per_call_ms, 1e-6))))
    found = {name: {"wall_ms": [], "cpu_ms": []} for name in calls}
    loads = []
    order = list(calls)
    for r in range(rounds):
        for name in (order if r % 2 == 0 else order[::-1]):
            call, n = calls[name], sizes[name]
            cpu0, wall0 = time.process_time(), time.perf_counter()
            for _ in range(n):
                call()
            found[name]["wall_ms"].append((time.perf_counter() - wall0) * 1e3 / n)
            found[name]["cpu_ms"].append((time.process_time() - cpu0) * 1e3 / n)
        loads.append(load_average())
    for name in found:
        found[name]["load"] = [v for v in loads if v is not None]
    return found
