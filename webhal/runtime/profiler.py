"""The profiler's runtime in Python (target feature `profile`): the host JIT's callbacks and
wasmtime's imports call it, the GPU runtimes add their kernels' and copies' times, and
`report()` writes Halide's profiler report.

How time is charged (webhal/passes/profiling.py places the calls): each thread keeps the Func it
is computing and since when; every call charges the time since the previous one to that Func, so
the Funcs' times (with id 0, the overhead) add up to the run's total exactly. Halide samples the
current Func from a thread every millisecond instead; webhal's times are exact, at the cost of one
call per production (a Func computed inside another's innermost loop costs a call per point).
Parallel loops: tasks (on whichever thread runs them) charge their own time to the Funcs they
compute, and when the loop ends its wall-clock time is shared among those Funcs in proportion.
One profiled pipeline runs at a time (the state of the running one is global, as its tasks run
on other threads). Memory (Halide's heap columns) is not tracked.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field

OVERHEAD = "overhead"


@dataclass
class PipelineStats:
    """What the runs of one pipeline added up to. `ns[i]` is Func i's time (0: overhead)."""

    name: str
    funcs: list[str]
    ns: list[int] = field(default_factory=list)
    runs: int = 0
    total_ns: int = 0
    parallel_loops: int = 0
    tasks: int = 0
    task_ns: int = 0                     # summed over threads: with total_ns, threads used
    parallel_ns: int = 0                 # wall clock inside parallel loops
    kernels: dict = field(default_factory=dict)   # name -> [ns, dispatches]
    kernel_timing: str = ""              # how kernel times were taken
    copies: dict = field(default_factory=dict)    # "to device"/"to host" -> {buffer: [ns, n]}
    busy: list[int] = field(default_factory=list)  # this parallel loop's task time per Func
    before: list[int] | None = None      # ns at the start of a run not yet ended

    def __post_init__(self):
        if not self.ns:
            self.ns = [0] * (len(self.funcs) + 1)
            self.busy = [0] * (len(self.funcs) + 1)

    def as_dict(self) -> dict:
        """The report as data: times in ms per run (Halide divides by the runs too)."""
        runs = max(1, self.runs)
        total = self.total_ns / runs / 1e6

        def row(name, ns, **extra):
            return {"name": name, "ms": ns / runs / 1e6,
                    "percent": 100.0 * ns / self.total_ns if self.total_ns else 0.0, **extra}
        return {
            "pipeline": self.name, "runs": self.runs, "total_ms": total,
            "funcs": [row(n, t) for n, t in zip([OVERHEAD, *self.funcs], self.ns)
                      if n != OVERHEAD or t],
            "kernels": [row(n, t, dispatches=d // runs) for n, (t, d) in self.kernels.items()],
            "kernel_timing": self.kernel_timing,
            "copies": [row(b, t, direction=direction, count=c // runs)
                       for direction, per in self.copies.items() for b, (t, c) in per.items()],
            "parallel_loops": self.parallel_loops // runs, "parallel_tasks": self.tasks // runs,
            "threads": self.task_ns / self.parallel_ns if self.parallel_ns else 1.0,
            "memory": "not tracked",
        }


class _Thread:
    """One thread's state. Kept by thread id, not in a threading.local: a ctypes callback on a
    thread pool worker (a thread Python did not start) gets a new Python thread state, and so
    new thread-locals, on every call."""

    def __init__(self):
        self.current = 0   # the Func this thread is computing
        self.last = 0      # since when (perf_counter_ns)
        self.depth = 0     # parallel tasks this thread is inside
        self.stack: list = []


class Profiler:
    """The process's profiler state: every pipeline's stats by name, as Halide's runtime keeps
    them until halide_profiler_reset."""

    def __init__(self):
        self.pipelines: dict[str, PipelineStats] = {}
        self.running: PipelineStats | None = None
        self.threads: dict[int, _Thread] = {}
        self.lock = threading.Lock()
        self.start_ns = 0
        self.parallel_start_ns = 0

    @property
    def thread(self) -> _Thread:
        th = self.threads.get(threading.get_ident())
        if th is None:
            th = self.threads.setdefault(threading.get_ident(), _Thread())
        return th

    # -- the calls compiled code makes (abi.PROFILER_FUNCTIONS) ---------------------------------

    def pipeline_start(self, name: str, funcs: str) -> int:
        names = [f for f in funcs.split(",") if f]
        p = self.pipelines.get(name)
        if p is None or p.funcs != names:
            p = self.pipelines[name] = PipelineStats(name, names)
        elif p.before is not None:  # the last run failed before its end: forget its part
            p.ns = p.before
        p.before = list(p.ns)
        t = time.perf_counter_ns()
        th = self.thread
        th.current, th.last, th.depth, th.stack = 0, t, 0, []
        self.running, self.start_ns = p, t
        return 0

    def set_current_func(self, func: int) -> int:
        th, t = self.thread, time.perf_counter_ns()
        self._charge(th, t)
        th.current = func
        return 0

    def parallel_start(self) -> int:
        th = self.thread
        if th.depth == 0 and self.running is not None:
            t = time.perf_counter_ns()
            self._charge(th, t)
            self.parallel_start_ns = t
            self.running.busy = [0] * len(self.running.ns)
        return 0

    def parallel_end(self) -> int:
        th, p = self.thread, self.running
        if th.depth or p is None:
            return 0
        t = time.perf_counter_ns()
        wall = t - self.parallel_start_ns
        busy = p.busy
        spent = sum(busy)
        if spent <= 0:
            p.ns[th.current] += wall
        else:
            shares = [wall * b // spent for b in busy]
            shares[th.current] += wall - sum(shares)  # the rounding: sums stay exact
            for i, s in enumerate(shares):
                p.ns[i] += s
        p.parallel_loops += 1
        p.parallel_ns += wall
        p.task_ns += spent
        th.last = t
        return 0

    def task_start(self, func: int) -> int:
        th, t = self.thread, time.perf_counter_ns()
        if th.depth:
            self._charge(th, t)
        th.stack.append((th.current, th.last))
        th.depth += 1
        th.current, th.last = func, t
        if self.running is not None:
            with self.lock:
                self.running.tasks += 1
        return 0

    def task_end(self) -> int:
        th, t = self.thread, time.perf_counter_ns()
        self._charge(th, t)
        th.depth -= 1
        th.current, last = th.stack.pop()
        th.last = last if th.depth == 0 else t  # the caller's time resumes at parallel_end
        return 0

    def pipeline_end(self) -> int:
        th, p = self.thread, self.running
        if p is None:
            return 0
        t = time.perf_counter_ns()
        self._charge(th, t)
        p.runs += 1
        p.total_ns += t - self.start_ns
        p.before = None
        return 0

    def _charge(self, th: _Thread, t: int) -> None:
        p = self.running
        if p is None:
            return
        if th.depth:
            with self.lock:
                p.busy[th.current] += t - th.last
        else:
            p.ns[th.current] += t - th.last
        th.last = t

    # -- what the GPU runtimes add --------------------------------------------------------------

    def kernel(self, name: str, ns: int, timing: str) -> None:
        """A kernel's dispatch took `ns` on the device (`timing` says how that was measured)."""
        p = self.running
        if p is not None:
            entry = p.kernels.setdefault(name, [0, 0])
            entry[0] += ns
            entry[1] += 1
            p.kernel_timing = timing

    def copy(self, direction: str, buffer: str, ns: int) -> None:
        """A copy of `buffer` "to device" or "to host" took `ns` (wall clock, waited for)."""
        p = self.running
        if p is not None:
            entry = p.copies.setdefault(direction, {}).setdefault(buffer, [0, 0])
            entry[0] += ns
            entry[1] += 1

    # -- Halide's hooks -------------------------------------------------------------------------

    def report(self, names: list[str] | None = None) -> str:
        """halide_profiler_report's text for the pipelines named (all by default)."""
        return "".join(format_report(p) for n, p in self.pipelines.items()
                       if p.runs and (names is None or n in names))

    def reset(self) -> None:
        """halide_profiler_reset: forget every pipeline's stats."""
        self.pipelines.clear()
        self.running = None


PROFILER = Profiler()


# -- the report, in the format of Halide's (src/runtime/profiler_common.cpp, Halide 21) ----------

def _f(x: float) -> str:
    """Halide's StringStreamPrinter prints a float as %f; the report drops its last 3 digits."""
    return f"{x:f}"[:-3]


def _time_and_percent(line: str, ns: int, p: PipelineStats, cursor: int,
                      light: bool) -> tuple[str, int]:
    ft = ns / (max(1, p.runs) * 1e6)
    line += " " * sum(ft < lim for lim in (10000, 1000, 100, 10)) + _f(ft) + "ms"
    cursor += 12
    line = line.ljust(cursor)
    perthousand = 1000 * ns // p.total_ns if p.total_ns else 0
    line += "(" + " " * (perthousand < 100) + f"{perthousand // 10}.{perthousand % 10}%)"
    if not light:
        cursor += 10
        line = line.ljust(cursor)
    return line, cursor


def format_report(p: PipelineStats) -> str:
    """One pipeline's report: the summary, then each Func's time per run and share, as Halide
    prints them, then (webhal's addition, in Halide's section style) the GPU kernels' device time
    and the host<->device copies."""
    total = p.total_ns / 1e6
    runs = max(1, p.runs)
    serial = p.parallel_loops == 0
    out = [f"{p.name}\n total time: {total:f} ms  samples: {runs}  runs: {p.runs}  "
           f"time per run: {total / runs:f} ms\n"]
    if not serial:
        threads = p.task_ns / p.parallel_ns if p.parallel_ns else 1.0
        out.append(f" average threads used: {threads:f}\n")
    out.append(" heap allocations: not tracked by webhal\n")
    if p.kernels:
        out.append(f" gpu kernels timed by: {p.kernel_timing}\n")
    rows = [(n, t) for n, t in zip([OVERHEAD, *p.funcs], p.ns) if n != OVERHEAD or t]
    extra = [name for name in p.kernels] + [b for per in p.copies.values() for b in per]
    width = max([23, *(len(n) for n, _ in rows), *(len(n) for n in extra)])

    def entry(name: str, ns: int) -> str:
        line = f"    {name}: ".ljust(width + 7)
        line, _ = _time_and_percent(line, ns, p, width + 7, False)
        return line.rstrip() + "\n"

    def section(name: str, ns: int) -> str:
        line = f"  [{name} ".ljust(width + 7, ":")
        line, _ = _time_and_percent(line, ns, p, width + 7, True)
        return line + " ::::]\n"

    sections = bool(p.kernels or p.copies)
    if sections:
        out.append(section("funcs", sum(p.ns)))
    out += [entry(n, t) for n, t in rows]
    if p.kernels:
        out.append(section("gpu kernels",
                           sum(t for t, _ in p.kernels.values())))
        out += [entry(n, t) for n, (t, _) in p.kernels.items()]
    for direction in ("to device", "to host"):
        per = p.copies.get(direction)
        if per:
            out.append(section(f"buffer copies {direction}", sum(t for t, _ in per.values())))
            out += [entry(b, t) for b, (t, _) in per.items()]
    return "".join(out)


_HEAD = re.compile(r"^(?P<name>\S.*)\n total time: (?P<total>[\d.]+) ms  samples: (?P<samples>\d+)"
                   r"  runs: (?P<runs>\d+)  time per run: (?P<per_run>[\d.]+) ms$", re.M)
_ROW = re.compile(r"^    (?P<name>.+?): +(?P<ms>[\d.]+)ms +\( ?(?P<percent>[\d.]+)%\)")
_SECTION = re.compile(r"^  \[(?P<name>.+?) :+ +[\d.]+ms +\( ?[\d.]+%\) ::::\]$")


def parse_report(text: str) -> list[dict]:
    """The pipelines of a report (Halide's or webhal's): name, total_ms, runs, per_run_ms and
    rows {section: [(name, ms, percent)]} ("funcs" when there are no sections)."""
    out = []
    heads = list(_HEAD.finditer(text))
    for i, m in enumerate(heads):
        body = text[m.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        rows: dict[str, list] = {}
        section = "funcs"
        for line in body.splitlines():
            if s := _SECTION.match(line):
                section = s.group("name")
            elif r := _ROW.match(line):
                rows.setdefault(section, []).append(
                    (r.group("name"), float(r.group("ms")), float(r.group("percent"))))
        out.append({"name": m.group("name"), "total_ms": float(m.group("total")),
                    "runs": int(m.group("runs")), "per_run_ms": float(m.group("per_run")),
                    "rows": rows})
    return out


LAST: dict | None = None
"""The last report print_report printed, as data (PipelineStats.as_dict)."""


def print_report(pipeline: str) -> None:
    """What realize does on a `profile` target, as Halide's JIT does: print the pipeline's
    report on sys.stdout and forget its stats (so each realize reports itself)."""
    import sys
    global LAST
    p = PROFILER.pipelines.pop(pipeline, None)
    if p is not None and p.runs:
        LAST = p.as_dict()
        sys.stdout.write(format_report(p))
