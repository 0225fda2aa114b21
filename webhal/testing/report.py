"""What `webhal test` prints and writes: a table of the outcomes, and a JUnit XML report (the
format CI systems read: GitHub Actions, GitLab, Jenkins)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from rich.table import Table

from webhal.testing.harness import Outcome


def table(title: str, outcomes: Sequence[Outcome]) -> Table:
    """One row per case: runtime, variant, target, adapter, median ms, largest error, result."""
    t = Table(title=title)
    for column in ("runtime", "variant", "target", "adapter", "median ms", "max |diff|",
                   "matches reference"):
        t.add_column(column, justify="right" if column in ("median ms", "max |diff|") else "left")
    for o in outcomes:
        median = "" if o.median_ms is None else f"{o.median_ms:.3f}"
        error = "" if o.max_error is None else f"{o.max_error:g}"
        verdict = "[green]yes[/green]" if o.ok else \
            "[red]NO[/red]" if o.max_error is not None else "[red]failed[/red]"
        t.add_row(o.case.runtime, o.case.variant, o.case.target, o.adapter, median, error,
                  verdict)
    return t


def failures(outcomes: Sequence[Outcome]) -> list[str]:
    """A line for each case that did not pass: its id and why."""
    return [f"{o.case.id}: {o.message}" for o in outcomes if not o.ok]


def write_junit(path: str | os.PathLike, suite: str, outcomes: Sequence[Outcome]) -> None:
    """A JUnit XML report: one <testcase> per case, named runtime-variant, with <failure> for
    a mismatch and <error> for a case that could not run."""
    failed = [o for o in outcomes if not o.ok and o.max_error is not None]
    errored = [o for o in outcomes if not o.ok and o.max_error is None]
    root = ET.Element("testsuites")
    element = ET.SubElement(root, "testsuite", name=suite, tests=str(len(outcomes)),
                            failures=str(len(failed)), errors=str(len(errored)), skipped="0",
                            time=f"{sum(o.seconds for o in outcomes):.3f}")
    for o in outcomes:
        case = ET.SubElement(element, "testcase", classname=suite, name=o.case.id,
                             time=f"{o.seconds:.3f}")
        props = ET.SubElement(case, "properties")
        for name, value in (("target", o.case.target), ("adapter", o.adapter),
                            ("median_ms", "" if o.median_ms is None else f"{o.median_ms:.4f}")):
            ET.SubElement(props, "property", name=name, value=value)
        if not o.ok:
            tag = "failure" if o.max_error is not None else "error"
            first = o.message.splitlines()[0] if o.message else tag
            ET.SubElement(case, tag, message=first[:500]).text = o.message
        if o.console:  # the browser's or Node's console, where CI systems show a test's output
            ET.SubElement(case, "system-out").text = "\n".join(o.console)
    ET.indent(root)
    ET.ElementTree(root).write(os.fspath(path), encoding="utf-8", xml_declaration=True)
