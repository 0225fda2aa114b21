"""The `webhal` command line."""

import pytest
from rich.console import Console

from webhal import cli, demo, doctor


def test_a_command_is_required(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2
    assert "doctor" in capsys.readouterr().err


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "doctor" in out and "demo" in out


def _results(browser_ok: bool):
    return [doctor.CheckResult(component=c.component, enables=c.enables, required=c.required,
                               ok=browser_ok or c.enables != "browser tests",
                               hint="apt-get install chromium")
            for c in doctor.CHECKS]


# With a browser the blur demo is built and run in headless Chromium: a browser test.
@pytest.mark.parametrize("browser_ok", [pytest.param(True, marks=[pytest.mark.browser,
                                                                  pytest.mark.slow]), False])
def test_demo_lists_each_capability(monkeypatch, browser_ok, tmp_path):
    monkeypatch.setattr(doctor, "run_checks", lambda: _results(browser_ok))
    console = Console(record=True, width=200)
    args = cli.build_parser().parse_args(["demo", "blur", "--out", str(tmp_path)])
    status = demo.run(args, console)
    text = console.export_text()
    assert status == (0 if browser_ok else 1)
    for description in doctor.CAPABILITIES.values():
        assert description in text
    assert ("cannot run bundles and demos in headless Chromium" in text) != browser_ok


def test_an_unknown_demo_is_named(tmp_path):
    console = Console(record=True, width=200)
    args = cli.build_parser().parse_args(["demo", "nosuch", "--out", str(tmp_path)])
    assert demo.run(args, console) == 2
    assert "no demo 'nosuch'; the demos are" in console.export_text()
