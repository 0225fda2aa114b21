"""Compare a run with a stored results file, its baseline, to see a slowdown when it is made.

A baseline is any results.json that `python -m benchmarks.run` wrote (`--save-baseline FILE`
writes one); benchmarks/baseline.json holds main's, refreshed on purpose. Every webhal
measurement of this run that the baseline also has (same pipeline, environment and target) is
compared on the run's statistic (--stat); one more than `threshold` slower is a regression.
Halide's change on the same row is shown beside it: when both got slower, the machine more
likely did than webhal.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.measure import TARGET_LABELS, Measurement
from benchmarks.report import Results, html_table

DEFAULT = Path(__file__).resolve().parent / "baseline.json"
THRESHOLD = 0.10  # more than 10% slower is a regression

Key = tuple[str, str, str, str]  # (pipeline, env, impl, target)

HOST_LABELS = {"call": "JIT entry point", "realize": "JIT realize()",
               "call_matched": "JIT matched"}


def where(env: str, target: str) -> str:
    """A short label of an environment and target, e.g. "node wasm SIMD"."""
    return f"{env} {TARGET_LABELS.get(target) or HOST_LABELS.get(target, target)}"


@dataclass(frozen=True)
class Change:
    """One webhal measurement, now and in the baseline."""

    pipeline: str
    env: str
    target: str
    baseline_ms: float
    now_ms: float
    halide_change: float | None  # Halide's now / baseline on the same row, where measured
    baseline_load: float | None  # the highest load average seen while measuring
    now_load: float | None

    @property
    def ratio(self) -> float:
        return self.now_ms / self.baseline_ms

    @property
    def over_halide(self) -> float | None:
        """webhal's change over Halide's: near 1 when only the machine's speed changed."""
        return self.ratio / self.halide_change if self.halide_change else None

    def as_json(self) -> dict:
        return {"pipeline": self.pipeline, "env": self.env, "target": self.target,
                "baseline_ms": self.baseline_ms, "now_ms": self.now_ms, "ratio": self.ratio,
                "halide_ratio": self.halide_change, "ratio_over_halide": self.over_halide,
                "baseline_load": self.baseline_load, "now_load": self.now_load}


@dataclass
class BaselineComparison:
    """This run against one baseline file."""

    path: Path
    meta: dict  # the baseline's own meta: date, commit, machine, load
    stat: str
    threshold: float
    changes: list[Change] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)  # measured now, not in the baseline
    notes: list[str] = field(default_factory=list)  # why the figures may not be comparable

    @property
    def regressions(self) -> list[Change]:
        return sorted((c for c in self.changes if c.ratio > 1 + self.threshold),
                      key=lambda c: -c.ratio)

    @property
    def improvements(self) -> list[Change]:
        return [c for c in self.changes if c.ratio < 1 - self.threshold]

    def as_json(self) -> dict:
        return {"file": str(self.path), "baseline_date": self.meta.get("date"),
                "baseline_commit": self.meta.get("webhal_commit"), "stat": self.stat,
                "threshold": self.threshold, "compared": len(self.changes),
                "regressions": [c.as_json() for c in self.regressions],
                "improvements": [c.as_json() for c in self.improvements],
                "not_in_baseline": self.unmatched, "notes": self.notes}


def read(path: Path) -> dict:
    """A results file as run.py writes it; ValueError when it is not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the baseline {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("measurements"), list):
        raise ValueError(f"{path} is not a results file of benchmarks.run (no measurements)")
    return data


def _stored_ms(m: dict, stat: str) -> float | None:
    if not m.get("ok"):
        return None
    return m.get("min_ms") if stat == "min" else m.get("median_ms")


def _stored_load(m: dict) -> float | None:
    return max(m["load"]) if m.get("load") else None


def _notes(meta: dict, now: dict) -> list[str]:
    """What differs between the two runs in ways that move every figure."""
    notes = []
    for key, what in (("cpu", "processor"), ("machine", "machine"), ("mode", "run length"),
                      ("halide", "Halide version")):
        if meta.get(key) != now.get(key):
            notes.append(f"the {what} differs: baseline {meta.get(key)!r}, "
                         f"now {now.get(key)!r}")
    return notes


def compare(results: Results, baseline: dict, path: Path, now_meta: dict,
            threshold: float = THRESHOLD) -> BaselineComparison:
    """Every webhal measurement of `results` against the same one in `baseline`."""
    stored: dict[Key, dict] = {(m["pipeline"], m["env"], m["impl"], m["target"]): m
                               for m in baseline["measurements"]}
    meta = baseline.get("meta", {})
    found = BaselineComparison(Path(path), meta, results.stat, threshold,
                               notes=_notes(meta, now_meta))
    for m in results.measurements:
        if m.impl != "webhal" or not m.ok:
            continue
        then = stored.get((m.pipeline, m.env, m.impl, m.target))
        then_ms = _stored_ms(then, results.stat) if then else None
        if not then_ms:
            found.unmatched.append(f"{m.pipeline} on {where(m.env, m.target)}")
            continue
        found.changes.append(Change(
            m.pipeline, m.env, m.target, then_ms, results.ms(m.pipeline, m.env, "webhal",
                                                             m.target),
            _halide_change(results, stored, m), _stored_load(then), m.max_load))
    return found


def _halide_change(results: Results, stored: dict[Key, dict], m: Measurement) -> float | None:
    now = results.ms(m.pipeline, m.env, "halide", m.target)
    then = stored.get((m.pipeline, m.env, "halide", m.target))
    then_ms = _stored_ms(then, results.stat) if then else None
    return now / then_ms if now and then_ms else None


# -- output ------------------------------------------------------------------------------------


def _fmt(v: float | None, digits: int) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def summary(c: BaselineComparison) -> str:
    meta = c.meta
    load = meta.get("load_average_start_end")
    return (f"compared {len(c.changes)} webhal measurements with {c.path} (commit "
            f"{meta.get('webhal_commit', '?')}, {meta.get('date', '?')}, load average "
            f"{load or '?'} at its start and end): {len(c.regressions)} more than "
            f"{c.threshold:.0%} slower, {len(c.improvements)} more than {c.threshold:.0%} faster")


# "Halide": Halide's now/baseline on the same row; "over Halide": webhal's ratio over that one,
# which stays near 1 when the machine, not webhal, got slower.
REGRESSION_COLUMNS = ["environment", "pipeline", "baseline ms", "now ms", "now/baseline",
                      "Halide", "over Halide", "load then", "load now"]


def regression_cells(change: Change) -> list[str]:
    return [where(change.env, change.target), change.pipeline, _fmt(change.baseline_ms, 3),
            _fmt(change.now_ms, 3), _fmt(change.ratio, 2), _fmt(change.halide_change, 2),
            _fmt(change.over_halide, 2), _fmt(change.baseline_load, 2),
            _fmt(change.now_load, 2)]


def print_comparison(console: Console, c: BaselineComparison) -> None:
    for note in c.notes:
        console.print(f"[yellow]baseline: {note}; the times may not be comparable[/]",
                      highlight=False)
    if c.regressions:
        table = Table(title=f"Slower than the baseline by more than {c.threshold:.0%} "
                      f"({c.stat} ms per call)", title_justify="left")
        for name in REGRESSION_COLUMNS:
            table.add_column(name, justify="left" if name in ("environment", "pipeline")
                             else "right")
        for change in c.regressions:
            table.add_row(*regression_cells(change))
        console.print(table)
    colour = "red" if c.regressions else "green"
    console.print(f"[{colour}]{summary(c)}[/]", highlight=False)
    if c.unmatched:
        console.print(f"not in the baseline: {', '.join(c.unmatched)}", highlight=False)


def html_section(c: BaselineComparison) -> str:
    """The comparison for report.html: the notes, the regressions' table, the summary."""
    parts = [f"<h2>Against the baseline ({html.escape(c.stat)} ms per call)</h2>"]
    parts += [f"<p>Note: {html.escape(n)}; the times may not be comparable.</p>" for n in c.notes]
    if c.regressions:
        parts.append(html_table(REGRESSION_COLUMNS, [regression_cells(r) for r in c.regressions]))
    parts.append(f"<p>{html.escape(summary(c))}</p>")
    if c.unmatched:
        parts.append(f"<p>Not in the baseline: {html.escape(', '.join(c.unmatched))}</p>")
    return "\n".join(parts)
