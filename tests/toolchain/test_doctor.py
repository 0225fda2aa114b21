"""`webhal doctor`: every check really runs; a missing browser is a warning with its install
hint (an error with --all), a missing compiler or linker an error."""

import json
import os
import subprocess
import sys

import pytest
from rich.console import Console

from webhal import doctor
from webhal.toolchain import clear_caches
from webhal.toolchain.hosts import CHROMIUM_NAMES


def _doctor(*args, env=None):
    return subprocess.run([sys.executable, "-m", "webhal.cli", "doctor", *args], env=env,
                          capture_output=True, text=True, timeout=180)


def _path_without_chromium(farm_root) -> str:
    """PATH with each directory that holds a Chromium replaced by links to all its other files."""
    farms = {}
    entries = []
    for directory in os.environ["PATH"].split(os.pathsep):
        if not any(os.path.exists(os.path.join(directory, n)) for n in CHROMIUM_NAMES):
            entries.append(directory)
            continue
        real = os.path.realpath(directory)
        if real not in farms:
            farm = farm_root / f"bin{len(farms)}"
            farm.mkdir()
            for name in os.listdir(real):
                if name not in CHROMIUM_NAMES:
                    (farm / name).symlink_to(os.path.join(real, name))
            farms[real] = str(farm)
        entries.append(farms[real])
    return os.pathsep.join(entries)


@pytest.mark.slow
def test_doctor_json_reports_every_adapter(chromium, dawn_node, wgpu_adapter, emscripten,
                                           wasm_ld, wasmtime_engine, llvm_wasm):
    result = _doctor("--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True
    assert all(report["capabilities"].values())
    adapters = report["adapters"]
    assert adapters["chromium"]["vendor"] == "google"
    assert adapters["chromium"]["architecture"] == "swiftshader"
    assert adapters["dawn.node"]["architecture"] == "swiftshader"
    # No GPU in CI: wgpu-py runs on Mesa's lavapipe, which calls itself llvmpipe.
    assert "llvmpipe" in adapters["wgpu-py"]["device"]
    assert "firefox" in adapters  # Firefox names no adapter; doctor names its Vulkan driver
    components = {c["component"]: c for c in report["components"]}
    assert components["emcc"]["version"] == emscripten.version_string


@pytest.mark.slow
def test_doctor_without_chromium_warns_and_fails_only_with_all(tmp_path):
    env = dict(os.environ, PATH=_path_without_chromium(tmp_path))
    env.pop("CHROME_PATH", None)
    result = _doctor("--json", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    chromium = next(c for c in report["components"] if c["component"] == "chromium")
    assert not chromium["ok"]
    assert report["capabilities"]["browser tests"] is False
    assert report["ok"] is True and report["complete"] is False
    assert "chromium (optional, for browser tests)" in result.stderr
    assert "apt-get install chromium" in result.stderr
    assert "make setup" in result.stderr  # run from the repository
    result = _doctor("--json", "--all", env=env)
    assert result.returncode == 1
    assert "missing browser tests" in result.stderr


def _browser_checks_without_chromium(tmp_path, monkeypatch):
    """The browser checks run with no Chromium to find (an empty PATH, no CHROME_PATH)."""
    monkeypatch.delenv("CHROME_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    clear_caches()
    browser_checks = tuple(c for c in doctor.CHECKS if c.enables == "browser tests")
    try:
        return doctor.run_checks(browser_checks)
    finally:
        clear_caches()


def test_table_report_prints_the_hint(tmp_path, monkeypatch):
    results = _browser_checks_without_chromium(tmp_path, monkeypatch)
    console = Console(record=True, width=200)
    doctor.print_report(results, console)
    text = console.export_text()
    assert "missing" in text
    assert "apt-get install chromium" in text
    assert text.count("apt-get install chromium") == 1  # the adapter check repeats no hint
    assert not doctor.all_required_ok(results)


def test_json_report_is_all_of_stdout_and_the_hints_go_to_stderr(tmp_path, monkeypatch, capsys):
    results = _browser_checks_without_chromium(tmp_path, monkeypatch)
    monkeypatch.setattr(doctor, "run_checks", lambda: results)
    assert doctor.main(as_json=True) == 0  # a missing runtime is a warning
    out, err = capsys.readouterr()
    report = json.loads(out)  # nothing but the JSON on stdout
    assert report["ok"] is True and report["complete"] is False
    assert "to fix:" in err and "apt-get install chromium" in err
    assert doctor.main(as_json=True, every=True) == 1
    assert json.loads(capsys.readouterr().out)["complete"] is False


def _with_failures(*capabilities: str) -> list[doctor.CheckResult]:
    return [doctor.CheckResult(component=c.component, enables=c.enables, required=c.required,
                               ok=c.enables not in capabilities, hint=f"install {c.component}")
            for c in doctor.CHECKS]


def test_a_missing_linker_is_an_error_and_a_missing_runtime_a_warning(monkeypatch):
    monkeypatch.setattr(doctor, "run_checks", lambda: _with_failures("Node + Dawn"))
    console = Console(record=True, width=200)
    assert doctor.main(console=console) == 0
    text = console.export_text()
    assert "no  Node + Dawn: run bundles with WebGPU under Node (dawn.node) (optional)" in text
    assert "dawn.node (optional, for Node + Dawn): install dawn.node" in text
    monkeypatch.setattr(doctor, "run_checks", lambda: _with_failures("linking"))
    console = Console(record=True, width=200)
    assert doctor.main(console=console) == 1
    text = console.export_text()
    assert "  emcc: install emcc" in text and "(optional" not in text


def test_a_missing_firefox_is_a_warning_with_its_hint(tmp_path, monkeypatch):
    monkeypatch.setenv("FIREFOX_PATH", str(tmp_path / "no-firefox"))
    clear_caches()
    try:
        results = doctor.run_checks(tuple(c for c in doctor.CHECKS
                                          if c.enables == "Firefox tests"))
    finally:
        clear_caches()
    firefox = next(r for r in results if r.component == "firefox")
    assert not firefox.ok and "FIREFOX_PATH" in firefox.error
    assert "apt-get install firefox-esr" in firefox.hint
    assert doctor.missing_capabilities(results, doctor.CORE) == []  # building still works
    assert not doctor.all_required_ok(results)
