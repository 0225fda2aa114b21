"""Turn measurements into comparisons: rich tables on the terminal, results.json and a small HTML
report with inline SVG charts (no JavaScript)."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.measure import SCALAR, SIMD, THREADS, Measurement
from benchmarks.suite import Spec

# (env, target, title): one webhal-vs-Halide comparison each.
ENVIRONMENTS = [
    ("node", SIMD, "Node, wasm SIMD"),
    ("node", SCALAR, "Node, wasm scalar"),
    ("chromium", SIMD, "Chromium, wasm SIMD"),
    ("chromium", SCALAR, "Chromium, wasm scalar"),
    ("node", THREADS, "Node, wasm SIMD + threads"),
    ("chromium", THREADS, "Chromium, wasm SIMD + threads"),
    ("host", "call", "Host JIT, compiled entry point"),
    ("host", "realize", "Host JIT, realize()"),
]

FLOAT_TOLERANCE = 1e-5  # relative, on the sum of a float output


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def outputs_agree(spec: Spec, a: Measurement | None, b: Measurement | None) -> str:
    """"exact", "close" (float sums within FLOAT_TOLERANCE), "DIFFER", or "" when not
    comparable. Integer outputs must be bit-exact."""
    if not (a and b and a.ok and b.ok) or a.checksum is None or b.checksum is None:
        return ""
    if a.checksum == b.checksum:
        return "exact"
    if spec.is_float and a.sum is not None and b.sum is not None:
        scale = max(abs(a.sum), abs(b.sum), 1e-30)
        if abs(a.sum - b.sum) / scale <= FLOAT_TOLERANCE:
            return "close"
    return "DIFFER"


@dataclass
class Row:
    pipeline: str
    webhal: Measurement | None
    halide: Measurement | None
    outputs: str
    stat: str = "median"

    @property
    def ratio(self) -> float | None:
        w, h = _ms(self.webhal, self.stat), _ms(self.halide, self.stat)
        return w / h if w and h else None

    @property
    def load(self) -> float | None:
        """The highest load average seen while either side was measured."""
        loads = [m.max_load for m in (self.webhal, self.halide) if m and m.max_load is not None]
        return max(loads) if loads else None

    def as_json(self) -> dict:
        return {"pipeline": self.pipeline, "outputs": self.outputs, "ratio": self.ratio,
                "webhal_ms": _ms(self.webhal, self.stat),
                "halide_ms": _ms(self.halide, self.stat),
                "webhal_spread_ms": _spread(self.webhal), "halide_spread_ms": _spread(self.halide),
                "load": self.load,
                "webhal_error": _error(self.webhal), "halide_error": _error(self.halide)}


@dataclass
class Comparison:
    env: str
    target: str
    title: str
    rows: list[Row] = field(default_factory=list)

    @property
    def geomean(self) -> float | None:
        return geomean([r.ratio for r in self.rows if r.ratio])

    @property
    def compared(self) -> int:
        return sum(1 for r in self.rows if r.ratio)

    def as_json(self) -> dict:
        return {"env": self.env, "target": self.target, "title": self.title,
                "geomean_ratio": self.geomean, "pipelines_compared": self.compared,
                "rows": [r.as_json() for r in self.rows]}


def _ms(m: Measurement | None, stat: str = "median") -> float | None:
    """The measurement's median (or minimum) milliseconds per call; None when it failed."""
    if not (m and m.ok):
        return None
    return m.min_ms if stat == "min" else m.median_ms


def _error(m: Measurement | None) -> str:
    return m.error if m and not m.ok else ""


def _spread(m: Measurement | None) -> list[float] | None:
    """[min, median, max] over the rounds' medians."""
    return list(m.spread) if m and m.spread else None


def spread_text(m: Measurement | None) -> str:
    """The rounds' range, "1.790-1.830 (2.2%)", or "-" with fewer than two rounds."""
    if not (m and m.spread and len(m.round_medians_ms) > 1):
        return "-"
    low, mid, high = m.spread
    return f"{low:.3f}-{high:.3f} ({(high - low) / mid:.1%})"


def load_line(meta: dict, results: Results) -> str:
    """The machine's load over the run: a busy machine makes every figure slower and noisier."""
    start, end = meta.get("load_average_start_end", [None, None])
    seen = [v for m in results.measurements for v in m.load]
    highest = f", highest after a measurement {max(seen)}" if seen else ""
    return (f"load average (1 min) {start} at the start, {end} at the end{highest}, "
            f"on {meta.get('cores', '?')} cores")


class Results:
    """All measurements of a run, indexed by (pipeline, env, impl, target). `stat` says which
    number the comparisons use: "median" (of the batches) or "min"."""

    def __init__(self, specs: list[Spec], measurements: list[Measurement],
                 stat: str = "median"):
        self.specs = specs
        self.stat = stat
        self.measurements = measurements
        self._index = {(m.pipeline, m.env, m.impl, m.target): m for m in measurements}

    def get(self, pipeline: str, env: str, impl: str, target: str) -> Measurement | None:
        return self._index.get((pipeline, env, impl, target))

    def ms(self, pipeline: str, env: str, impl: str, target: str) -> float | None:
        return _ms(self.get(pipeline, env, impl, target), self.stat)

    def comparisons(self) -> list[Comparison]:
        out = []
        for env, target, title in ENVIRONMENTS:
            comparison = Comparison(env, target, title)
            for spec in self.specs:
                w = self.get(spec.name, env, "webhal", target)
                h = self.get(spec.name, env, "halide", target)
                if w or h:
                    comparison.rows.append(Row(spec.name, w, h, outputs_agree(spec, w, h),
                                               self.stat))
            if comparison.rows:
                out.append(comparison)
        return out

    def wasm_vs_host(self) -> list[dict]:
        """webhal's wasm SIMD time over webhal's host JIT time (compiled entry point): the host
        as it is (every core, its widest vectors) and matched to the wasm run (one thread,
        128-bit vectors)."""
        rows = []
        for spec in self.specs:
            host = self.ms(spec.name, "host", "webhal", "call")
            matched = self.ms(spec.name, "host", "webhal", "call_matched")
            row = {"pipeline": spec.name, "host_call_ms": host, "matched_ms": matched,
                   "numpy_ms": self.ms(spec.name, "host", "numpy", "numpy")}
            for env in ("node", "chromium"):
                wasm = self.ms(spec.name, env, "webhal", SIMD)
                row[f"{env}_simd_ms"] = wasm
                row[f"{env}_over_host"] = wasm / host if wasm and host else None
                row[f"{env}_over_matched"] = wasm / matched if wasm and matched else None
                threaded = self.ms(spec.name, env, "webhal", THREADS)
                row[f"{env}_threads_ms"] = threaded
                row[f"{env}_threads_over_host"] = threaded / host if threaded and host else None
            if any(v is not None for k, v in row.items() if k != "pipeline"):
                rows.append(row)
        return rows

    def simd_speedup(self) -> list[dict]:
        """Scalar time over SIMD time, per implementation, in each wasm host."""
        rows = []
        for spec in self.specs:
            row = {"pipeline": spec.name}
            for env in ("node", "chromium"):
                for impl in ("webhal", "halide"):
                    simd = self.ms(spec.name, env, impl, SIMD)
                    scalar = self.ms(spec.name, env, impl, SCALAR)
                    row[f"{env}_{impl}"] = scalar / simd if simd and scalar else None
            if any(v is not None for k, v in row.items() if k != "pipeline"):
                rows.append(row)
        return rows

    def problems(self) -> list[str]:
        """Failures, and outputs that disagree with Halide's host JIT (the reference; else any
        Halide output) — integer outputs must be bit-exact everywhere."""
        found = []
        for m in self.measurements:
            if not m.ok:
                found.append(f"{m.pipeline}: {m.impl} on {m.env} {m.target} failed: "
                             f"{m.error.splitlines()[0] if m.error else 'unknown error'}")
        for spec in self.specs:
            mine = [m for m in self.measurements if m.pipeline == spec.name and m.ok
                    and m.checksum is not None]
            reference = self.get(spec.name, "host", "halide", "call")
            if not (reference and reference.ok):
                reference = next((m for m in mine if m.impl == "halide"), None)
            if reference is None:
                continue
            for m in mine:
                verdict = outputs_agree(spec, m, reference)
                if verdict == "DIFFER" and not (m.impl == "numpy" and spec.is_float):
                    found.append(f"{spec.name}: {m.impl} on {m.env} {m.target} gives a "
                                 f"different output than halide on {reference.env} "
                                 f"{reference.target} (checksum {m.checksum:016x} vs "
                                 f"{reference.checksum:016x}, sum {m.sum} vs {reference.sum})")
        return found


# -- terminal ----------------------------------------------------------------------------------


def _fmt(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _ratio_style(r: float | None) -> str:
    if r is None:
        return "-"
    colour = "green" if r <= 1.05 else "yellow" if r <= 1.5 else "red"
    return f"[{colour}]{r:.2f}[/]"


# One webhal-vs-Halide table; "spread": the lowest and highest of the rounds' medians (the
# median is the ms column) and their distance over the median; "load": the highest 1-minute
# load average seen after either side's measurements.
COMPARISON_COLUMNS = ["pipeline", "webhal ms", "webhal spread", "Halide ms", "Halide spread",
                      "webhal/Halide", "outputs", "load"]


def _cell(m: Measurement | None, stat: str) -> str:
    if m is None:
        return "-"
    return f"{_ms(m, stat):.3f}" if m.ok else "[red]failed[/]"


# (header, key in a wasm_vs_host row, digits; None for text). "/host" and "/match" divide the
# column before them by the host's and the matched host's times.
WASM_VS_HOST_COLUMNS = [
    ("pipeline", "pipeline", None), ("host ms", "host_call_ms", 3),
    ("match ms", "matched_ms", 3), ("Node ms", "node_simd_ms", 3),
    ("/host", "node_over_host", 2), ("/match", "node_over_matched", 2),
    ("Chrome ms", "chromium_simd_ms", 3), ("/host", "chromium_over_host", 2),
    ("/match", "chromium_over_matched", 2), ("numpy ms", "numpy_ms", 3),
]


# The same with wasm SIMD on threads (pthreads on Web Workers), against the host on every core.
THREADS_VS_HOST_COLUMNS = [
    ("pipeline", "pipeline", None), ("host ms", "host_call_ms", 3),
    ("Node ms", "node_threads_ms", 3), ("/host", "node_threads_over_host", 2),
    ("Chrome ms", "chromium_threads_ms", 3), ("/host", "chromium_threads_over_host", 2),
]


def _wasm_vs_host_cells(row: dict, columns=WASM_VS_HOST_COLUMNS) -> list[str]:
    return [row[key] if digits is None else _fmt(row[key], digits)
            for _, key, digits in columns]


def _wasm_vs_host_geomeans(rows: list[dict], columns=WASM_VS_HOST_COLUMNS) -> list[str]:
    return ["geomean" if digits is None else
            _fmt(geomean([r[key] for r in rows]), 2) if "_over_" in key else ""
            for _, key, digits in columns]


def print_tables(console: Console, results: Results, opencv: Measurement | str | None) -> None:
    for comparison in results.comparisons():
        table = Table(title=comparison.title, title_justify="left")
        for name in COMPARISON_COLUMNS:
            table.add_column(name, justify="left" if name in ("pipeline", "outputs")
                             else "right")
        for row in comparison.rows:
            table.add_row(row.pipeline, _cell(row.webhal, row.stat), spread_text(row.webhal),
                          _cell(row.halide, row.stat), spread_text(row.halide),
                          _ratio_style(row.ratio), row.outputs or "-", _fmt(row.load, 2))
        gm = comparison.geomean
        table.add_section()
        table.add_row(f"geomean ({comparison.compared})", "", "", "", "", _ratio_style(gm),
                      "", "")
        console.print(table)

    rows = results.wasm_vs_host()
    if rows:
        table = Table(title="webhal: wasm SIMD vs its host JIT (compiled entry point; match: "
                      "the host on one thread with 128-bit vectors)", title_justify="left")
        for header, _, _ in WASM_VS_HOST_COLUMNS:
            table.add_column(header, justify="left" if header == "pipeline" else "right")
        for r in rows:
            table.add_row(*_wasm_vs_host_cells(r))
        table.add_section()
        table.add_row(*_wasm_vs_host_geomeans(rows))
        console.print(table)
        if any(r["node_threads_ms"] or r["chromium_threads_ms"] for r in rows):
            table = Table(title="webhal: wasm SIMD + threads vs its host JIT (both on every "
                          "core)", title_justify="left")
            for header, _, _ in THREADS_VS_HOST_COLUMNS:
                table.add_column(header, justify="left" if header == "pipeline" else "right")
            for r in rows:
                table.add_row(*_wasm_vs_host_cells(r, THREADS_VS_HOST_COLUMNS))
            table.add_section()
            table.add_row(*_wasm_vs_host_geomeans(rows, THREADS_VS_HOST_COLUMNS))
            console.print(table)

    rows = results.simd_speedup()
    if rows:
        table = Table(title="wasm SIMD speed-up (scalar ms / SIMD ms)", title_justify="left")
        for name in ("pipeline", "Node webhal", "Node Halide", "Chromium webhal",
                     "Chromium Halide"):
            table.add_column(name, justify="left" if name == "pipeline" else "right")
        for r in rows:
            table.add_row(r["pipeline"], *(_fmt(r[k], 2) for k in (
                "node_webhal", "node_halide", "chromium_webhal", "chromium_halide")))
        console.print(table)

    if isinstance(opencv, str):
        console.print(f"[yellow]{opencv}[/]")
    elif opencv is not None:
        console.print(opencv_line(results, opencv))


def opencv_line(results: Results, opencv: Measurement) -> str:
    if not opencv.ok:
        return f"OpenCV.js blur failed: {opencv.error}"
    mine = _ms(opencv, results.stat)
    parts = [f"OpenCV.js cv.blur 3x3 16U in Node: {mine:.3f} ms"]
    for impl in ("webhal", "halide"):
        theirs = results.ms("blur", "node", impl, SIMD)
        if theirs:
            parts.append(f"{impl} wasm SIMD {theirs:.3f} ms "
                         f"(OpenCV.js/{impl} = {mine / theirs:.2f})")
    return "; ".join(parts)


# -- files -------------------------------------------------------------------------------------


def results_json(results: Results, meta: dict, builds: list[dict],
                 opencv: Measurement | str | None, baseline: dict | None = None) -> dict:
    return {
        "meta": meta,
        "baseline": baseline,
        "pipelines": {s.name: {"summary": s.summary, "output_shape": list(s.output_shape),
                               "output_dtype": s.output_dtype} for s in results.specs},
        "comparisons": [c.as_json() for c in results.comparisons()],
        "wasm_vs_host": results.wasm_vs_host(),
        "simd_speedup": results.simd_speedup(),
        "opencv_js": opencv.as_json() if isinstance(opencv, Measurement) else {"note": opencv},
        "problems": results.problems(),
        "builds": builds,
        "measurements": [m.as_json() for m in results.measurements],
    }


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def ratio_chart(comparison: Comparison) -> str:
    """Diverging bars on a log2 scale around 1.0: left of the line webhal is faster."""
    label_w, plot_w, row_h, top = 150, 420, 22, 24
    ratios = [r.ratio for r in comparison.rows]
    span = max([1] + [math.ceil(abs(math.log2(r))) for r in ratios if r])
    span = min(span, 5)
    centre = label_w + plot_w / 2
    height = top + row_h * len(comparison.rows) + 10
    width = label_w + plot_w + 70

    def x_of(r: float) -> float:
        v = max(-span, min(span, math.log2(r)))
        return centre + v / span * plot_w / 2

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12" role="img" '
             f'aria-label="{html.escape(comparison.title)}: webhal/Halide time ratios">']
    for k in range(-span, span + 1):
        x = x_of(2.0 ** k)
        parts.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 8}" '
                     f'stroke="{"#333" if k == 0 else "#ddd"}"/>')
        label = f"{2.0 ** k:g}" if k >= 0 else f"1/{2 ** -k}"
        parts.append(f'<text x="{x:.1f}" y="{top - 10}" text-anchor="middle" '
                     f'fill="#555">{label}</text>')
    for i, row in enumerate(comparison.rows):
        y = top + i * row_h
        parts.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">'
                     f"{html.escape(row.pipeline)}</text>")
        r = row.ratio
        if r is None:
            parts.append(f'<text x="{centre + 6:.1f}" y="{y + 15}" fill="#b00">failed</text>')
            continue
        x = x_of(r)
        left, right = sorted((centre, x))
        colour = "#2e7d32" if r <= 1 else "#ef6c00"
        parts.append(f'<rect x="{left:.1f}" y="{y + 4}" width="{max(right - left, 1):.1f}" '
                     f'height="{row_h - 8}" fill="{colour}"/>')
        parts.append(f'<text x="{right + 4:.1f}" y="{y + 15}">{r:.2f}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def html_table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_ms(m: Measurement | None, stat: str) -> str:
    if m is None:
        return "-"
    return _fmt(_ms(m, stat)) if m.ok else "failed"


def write_html(path: Path, results: Results, meta: dict,
               opencv: Measurement | str | None, extra_sections: Sequence[str] = ()) -> None:
    """report.html; extra_sections (HTML) go after the comparisons, e.g. the baseline's."""
    sections = []
    for c in results.comparisons():
        rows = [[r.pipeline, _html_ms(r.webhal, r.stat), spread_text(r.webhal),
                 _html_ms(r.halide, r.stat), spread_text(r.halide), _fmt(r.ratio, 2),
                 r.outputs or "-", _fmt(r.load, 2)] for r in c.rows]
        rows.append([f"geomean ({c.compared})", "", "", "", "", _fmt(c.geomean, 2), "", ""])
        sections.append(f"<h2>{html.escape(c.title)}</h2>\n{ratio_chart(c)}\n"
                        + html_table(COMPARISON_COLUMNS, rows))
    sections += extra_sections
    host = results.wasm_vs_host()
    if host:
        rows = [_wasm_vs_host_cells(r) for r in host] + [_wasm_vs_host_geomeans(host)]
        sections.append("<h2>webhal: wasm SIMD vs its host JIT</h2><p>host: every core and the "
                        "host's widest vectors; match: one thread and 128-bit vectors, the "
                        "wasm run's resources; /host and /match: the wasm time before them "
                        "over those.</p>"
                        + html_table([h for h, _, _ in WASM_VS_HOST_COLUMNS], rows))
        if any(r["node_threads_ms"] or r["chromium_threads_ms"] for r in host):
            rows = [_wasm_vs_host_cells(r, THREADS_VS_HOST_COLUMNS) for r in host]
            rows.append(_wasm_vs_host_geomeans(host, THREADS_VS_HOST_COLUMNS))
            sections.append("<h2>webhal: wasm SIMD + threads vs its host JIT (both on every "
                            "core)</h2>" + html_table([h for h, _, _ in THREADS_VS_HOST_COLUMNS],
                                                  rows))
    speed = results.simd_speedup()
    if speed:
        rows = [[r["pipeline"], *(_fmt(r[k], 2) for k in (
            "node_webhal", "node_halide", "chromium_webhal", "chromium_halide"))] for r in speed]
        sections.append("<h2>wasm SIMD speed-up (scalar / SIMD)</h2>" + html_table(
            ["pipeline", "Node webhal", "Node Halide", "Chromium webhal", "Chromium Halide"],
            rows))
    if opencv is not None:
        text = opencv if isinstance(opencv, str) else opencv_line(results, opencv)
        sections.append(f"<h2>OpenCV.js</h2><p>{html.escape(text)}</p>")
    problems = results.problems()
    sections.append("<h2>Problems</h2>" + (
        "<ul>" + "".join(f"<li><pre>{html.escape(p)}</pre></li>" for p in problems) + "</ul>"
        if problems else "<p>None: every run succeeded and every output agrees.</p>"))
    meta_rows = [[k, json.dumps(v) if not isinstance(v, str) else v] for k, v in meta.items()]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>webhal benchmarks</title>
<style>
body {{ font-family: sans-serif; max-width: 60rem; margin: 2rem auto; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5rem 0 1.5rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
pre {{ white-space: pre-wrap; margin: 0; }}
</style></head><body>
<h1>webhal vs Halide</h1>
<p>{"Median" if results.stat == "median" else "Minimum"} milliseconds per call (over
batches, then the median over rounds); a ratio below 1 means webhal is faster. Bars are on a log
scale around 1. "spread": the lowest and highest of the rounds' medians and their distance over
the median. "outputs": exact (bit-identical), close (float sums within
{FLOAT_TOLERANCE:g}), DIFFER. "load": the highest 1-minute load average seen after either
side's measurements. See benchmarks/README.md.</p>
<p>{html.escape(load_line(meta, results))}</p>
{"".join(sections)}
<h2>Run</h2>
{html_table(["what", "value"], meta_rows)}
</body></html>
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page)
