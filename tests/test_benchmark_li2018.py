"""The Li2018 comparison of benchmarks/autoschedule.py --webgpu --li2018 (benchmarks/
halide_webgpu.py): Halide's Li2018 WebGPU harness and webhal's packages timed in one Node process
the same way (batches of calls, one wait for the queue each), per-round ratios; and the output
check that says whose output differs."""

from __future__ import annotations

import pytest

from benchmarks import halide_webgpu
from tests.halide_peer import require

require("halide")


def _run(k_ms: list[float], auto_ms: list[float], sums=(10, 10, 10)) -> dict:
    return {"sides": {"li2018": {"ms": k_ms, "cpuMs": k_ms, "k": 1, "sum": sums[0]},
                      "auto": {"ms": auto_ms, "cpuMs": auto_ms, "k": 4, "sum": sums[1]},
                      "hand": {"ms": auto_ms, "cpuMs": auto_ms, "k": 4, "sum": sums[2]}}}


def test_the_ratio_is_the_median_of_the_rounds_ratios():
    # round 2 ran under load on both sides: its ratio is 3 like the others, while the ratio of
    # the medians (6 / 1) would be 6
    got = halide_webgpu.per_round(_run([3.0, 30.0, 6.0, 3.3, 6.3], [1.0, 10.0, 2.0, 1.1, 2.1]))
    assert got["median"] == pytest.approx(3.0)
    assert got["min"] == pytest.approx(3.0) and got["max"] == pytest.approx(3.0)
    assert got["q1"] <= got["median"] <= got["q3"]


def test_a_line_flags_differing_sums():
    from benchmarks.autoschedule import li2018_line
    same = li2018_line("blur", _run([3.0, 3.0], [1.0, 1.0]), (1.0, 1.0))
    assert "same sum" in same and "Li2018/auto 3.00" in same
    differ = li2018_line("blur", _run([3.0, 3.0], [1.0, 1.0], (11, 10, 10)), (1.0, 1.0))
    assert "SUMS DIFFER" in differ


def test_both_sides_run_in_one_process_and_agree(tmp_path, emcc, dawn_node):
    """Li2018's blur and webhal's (hand and autoscheduled) at 64^2 on SwiftShader: the runner
    times every side, and the outputs are the same (sums here; every value, in the output
    check, against Halide's own CPU output too)."""
    from benchmarks.autoschedule import GPU_TARGET
    from webhal import build, demo_page
    from webhal.autoschedule.generators import AutoscheduledGenerator
    from webhal.glue.npm_package import build_package
    from webhal.toolchain.webgpu import find_swiftshader_icd
    demo = demo_page.load("blur")
    halide_webgpu.build("blur", 64, 0, {}, demo.margin, root=tmp_path / "halide")
    webhal_dir = tmp_path / "webhal" / "blur"
    build.build(demo.path, "blur", str(webhal_dir / "hand"), [GPU_TARGET], quiet=True)
    make = AutoscheduledGenerator(demo.generator(), (64, 64), demo.margin, {})
    build_package(make, [GPU_TARGET], str(webhal_dir / "auto"), generator="blur",
                  generator_params={"autoscheduler": make.name})
    icd = find_swiftshader_icd().path
    got = halide_webgpu.run(tmp_path / "halide" / "blur", webhal_dir, 64, 3, 5.0,
                            [0, {}, demo.margin], icd)
    assert "error" not in got, got
    sums = {side["sum"] for side in got["sides"].values()}
    assert len(sums) == 1 and sums.pop() > 0
    for side in got["sides"].values():
        assert side["k"] >= 1 and len(side["ms"]) == len(side["cpuMs"]) == 3
        assert all(ms > 0 for ms in side["ms"])
    checked = halide_webgpu.check_outputs("blur", 64, 0, {}, demo.margin, icd,
                                          root=tmp_path / "halide")
    assert checked == {"li2018 vs webhal": (0, 0), "li2018 vs halide_cpu": (0, 0),
                       "webhal vs halide_cpu": (0, 0)}
