"""Halide's autoscheduler interface: apply_autoscheduler, its schedule_source, load_plugin, the
aliases, and the errors Halide names (missing estimates, an unknown autoscheduler, a pipeline
already scheduled)."""

from __future__ import annotations

import pytest

import webhal as hl
from webhal.autoschedule import ALIASES, NAME


def harris_like(sizes=(256, 192)):
    """Lesson 21's shape: a grey conversion, gradients, products and box sums."""
    x, y = hl.Var("x"), hl.Var("y")
    image = hl.ImageParam(hl.Float(32), 3, "input")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    gray, ix, iy, ixy, out = (hl.Func(n) for n in ("gray", "ix", "iy", "ixy", "out"))
    gray[x, y] = (hl.f32(0.299) * clamped[x, y, 0] + hl.f32(0.587) * clamped[x, y, 1]
                 + hl.f32(0.114) * clamped[x, y, 2])
    ix[x, y] = gray[x + 1, y] - gray[x - 1, y]
    iy[x, y] = gray[x, y + 1] - gray[x, y - 1]
    ixy[x, y] = ix[x, y] * iy[x, y]
    out[x, y] = sum(ixy[x + i, y + j] for i in (-1, 0, 1) for j in (-1, 0, 1))
    out.set_estimates([(0, sizes[0]), (0, sizes[1])])
    image.set_estimates([(0, sizes[0]), (0, sizes[1]), (0, 3)])
    return hl.Pipeline(out), image


def lowered(p: hl.Pipeline, image, target, tmp_path, name: str) -> str:
    path = tmp_path / f"{name}.stmt"
    p.compile_to_lowered_stmt(str(path), [image], hl.StmtOutputFormat.Text, target)
    return path.read_text()


@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt-wasm_simd128",
                                    "wasm-32-wasmrt-wasm_simd128-wasm_threads",
                                    "wasm-32-wasmrt-webgpu"])
def test_schedule_source_applied_by_hand_gives_the_same_statement(target, tmp_path):
    t = hl.Target(target)
    auto, image = harris_like()
    result = auto.apply_autoscheduler(t, hl.AutoschedulerParams(NAME))
    assert isinstance(result, hl.AutoSchedulerResults)
    assert "def apply_schedule(pipeline" in result.schedule_source
    by_hand, image2 = harris_like()
    namespace: dict = {}
    exec(compile(result.schedule_source, "schedule.py", "exec"), namespace)  # noqa: S102
    namespace["apply_schedule"](by_hand)
    ours = lowered(auto, image, t, tmp_path, "auto")
    assert ours == lowered(by_hand, image2, t, tmp_path, "by_hand")
    unscheduled, image3 = harris_like()
    assert ours != lowered(unscheduled, image3, t, tmp_path, "none")  # the schedule did something


def test_the_schedule_respects_webgpu_limits():
    p, _ = harris_like((1536, 1024))
    source = p.apply_autoscheduler(hl.Target("host-webgpu"),
                                   hl.AutoschedulerParams(NAME)).schedule_source
    tiles = [line for line in source.splitlines() if "gpu_tile(" in line]
    assert tiles
    for line in tiles:
        sizes = [int(v) for v in line.split("gpu_tile(")[1].split(")")[0].split(", ")
                 if v.isdigit()]
        prod = 1
        for s in sizes:
            prod *= s
        assert prod <= 256, line


@pytest.mark.parametrize("name", list(ALIASES))
def test_halides_names_are_aliases(name):
    p, _ = harris_like()
    result = p.apply_autoscheduler(hl.Target("host"), hl.AutoschedulerParams(name))
    assert f"({name})" in result.schedule_source.splitlines()[0]


def test_mullapudi_parameters_of_lesson_21_are_taken():
    p, _ = harris_like()
    params = {"parallelism": 32, "last_level_cache_size": 16777216, "balance": 40}
    result = p.apply_autoscheduler(hl.Target("host"),
                                   hl.AutoschedulerParams("Mullapudi2016", params))
    assert result.autoscheduler_params.extra["parallelism"] == "32"


def test_an_unsupported_parameter_is_refused():
    p, _ = harris_like()
    with pytest.raises(hl.CompileError, match="beam_size.*not supported"):
        p.apply_autoscheduler(hl.Target("host"),
                              hl.AutoschedulerParams("Adams2019", {"beam_size": 32}))


def test_unknown_autoscheduler_is_a_named_error():
    p, _ = harris_like()
    with pytest.raises(hl.CompileError, match="Unknown autoscheduler 'Nope'"):
        p.apply_autoscheduler(hl.Target("host"), hl.AutoschedulerParams("Nope"))


def test_missing_output_estimate_is_a_named_error():
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = x + y
    f.set_estimate(x, 0, 100)
    with pytest.raises(hl.CompileError, match="output Func f has no estimate for dimension 1"):
        hl.Pipeline(f).apply_autoscheduler(hl.Target("host"), hl.AutoschedulerParams(NAME))


def test_missing_input_estimate_is_a_named_error():
    x, y = hl.Var("x"), hl.Var("y")
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    f = hl.Func("f")
    f[x, y] = image[x, y] + 1
    f.set_estimates([(0, 10), (0, 10)])
    with pytest.raises(hl.CompileError, match="input image has no estimate for dimension 0"):
        hl.Pipeline(f).apply_autoscheduler(hl.Target("host"), hl.AutoschedulerParams(NAME))


def test_a_pipeline_already_scheduled_is_a_named_error():
    p, _ = harris_like()
    p.get_func("gray").compute_root()
    with pytest.raises(hl.CompileError, match="Func gray already has a schedule"):
        p.apply_autoscheduler(hl.Target("host"), hl.AutoschedulerParams(NAME))


@pytest.mark.parametrize("plugin", ["autoschedule_mullapudi2016", "autoschedule_adams2019",
                                    "/usr/lib/libautoschedule_li2018.so",
                                    "libautoschedule_anderson2021.so"])
def test_load_plugin_of_halides_plugins_does_not_fail(plugin):
    assert hl.load_plugin(plugin) is None


def test_load_plugin_of_something_else_says_why():
    with pytest.raises(hl.CompileError, match="webhal loads no plugins"):
        hl.load_plugin("libmy_scheduler.so")


def test_autoscheduled_host_pipeline_matches_reference():
    import numpy as np
    p, image = harris_like((64, 48))
    p.apply_autoscheduler(hl.Target("host"), hl.AutoschedulerParams(NAME))
    data = np.random.default_rng(1).random((3, 48, 64), dtype=np.float32)
    image.set(hl.Buffer(data))
    ours = np.asarray(p.realize([64, 48], hl.Target("host")))
    ref, image2 = harris_like((64, 48))
    image2.set(hl.Buffer(data))
    np.testing.assert_allclose(ours, np.asarray(ref.realize([64, 48], hl.Target("reference"))),
                               rtol=1e-5, atol=1e-5)
