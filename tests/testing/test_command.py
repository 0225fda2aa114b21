"""`webhal test`: a generator on several runtimes and targets against the reference, its table,
its JUnit XML report, sharding, and the exit status."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

from webhal.testing import harness

GENERATORS = pathlib.Path(__file__).parents[1] / "glue" / "generators" / "pipelines.py"
CPU = "wasm-32-wasmrt-wasm_simd128,wasm-32-wasmrt"


def _webhal_test(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "webhal.cli", "test", str(GENERATORS), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


def test_every_case_passes_and_the_junit_report_parses(tmp_path, emscripten, node,
                                                       wasmtime_engine):
    report = tmp_path / "report.xml"
    done = _webhal_test("-g", "blur_gpu", "--runtime", "host,wasmtime,node", "--target", CPU,
                        "--junit", str(report))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 of 5 cases passed" in done.stdout
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite.get("name") == "webhal.blur_gpu"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("5", "0", "0")
    names = [case.get("name") for case in suite.iter("testcase")]
    assert names == ["host-cpu", "wasmtime-simd", "wasmtime-scalar", "node-simd",
                     "node-scalar"]
    for case in suite.iter("testcase"):
        assert float(case.get("time")) > 0
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert float(props["median_ms"]) > 0


def test_shards_split_the_cases_and_cover_them_once():
    cases = harness.plan(harness.RUNTIMES, harness.DEFAULT_TARGETS)
    slices = [harness.shard(cases, f"{i}/3") for i in (1, 2, 3)]
    assert sorted(c.id for s in slices for c in s) == sorted(c.id for c in cases)
    assert max(map(len, slices)) - min(map(len, slices)) <= 1


def test_a_bad_shard_or_runtime_is_named_with_status_2():
    done = _webhal_test("-g", "brighten", "--shard", "4/3")
    assert done.returncode == 2 and "--shard 4/3" in done.stderr
    done = _webhal_test("-g", "brighten", "--runtime", "safari")
    assert done.returncode == 2 and "unknown runtime 'safari'" in done.stderr


def test_a_missing_runtime_fails_the_run_and_is_an_error_in_the_report(tmp_path):
    report = tmp_path / "report.xml"
    done = _webhal_test("-g", "brighten", "--runtime", "host,browser", "--target",
                        "wasm-32-wasmrt", "--junit", str(report),
                        env={"CHROME_PATH": "/nonexistent/chrome"})
    assert done.returncode == 1
    assert "1 of 2 cases passed" in done.stdout
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite.get("errors") == "1"
    error = next(suite.iter("error"))
    assert "browser is not available" in error.get("message")
    assert "CHROME_PATH" in error.text


def test_by_default_only_gpu_schedules_get_webgpu_cases():
    done = _webhal_test("-g", "brighten", "--runtime", "host,wgpu")  # no GPU schedule
    assert done.returncode == 0 and "1 of 1 cases passed" in done.stdout, done.stdout
    done = _webhal_test("-g", "brighten", "--runtime", "wgpu")
    assert done.returncode == 2 and "no case" in done.stderr
