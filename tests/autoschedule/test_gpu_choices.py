"""What the autoscheduler chooses on WebGPU for demos whose hand schedules it should match:
Sobel as one dispatch (its inlined smoothing passes share the 3x3 taps), the histogram's scan
computed inside its table's single GPU block (not on the host between kernels), a blur's
horizontal pass still at root (in workgroup memory its u8 tiles leave most invocations idle),
a float blur's in workgroup memory where barriers are cheap, within the adapter's limits."""

from __future__ import annotations

import re

import numpy as np
import pytest

import webhal as hl
from benchmarks.autoschedule import demo_pipeline
from webhal.jit import compile_jit

TARGET = "wasm-32-wasmrt-wasm_simd128-webgpu"


def schedule(name: str, size: int = 1024) -> list[str]:
    p, _, _ = demo_pipeline(name, TARGET, (size, size))
    source = p.apply_autoscheduler(hl.Target(TARGET), hl.AutoschedulerParams("Webhal"))
    return [line.strip() for line in source.schedule_source.splitlines()
            if re.match(r"\s+\w+(\.update\(\d+\))?\.\w+\(", line)]


def test_sobel_is_one_dispatch():
    lines = schedule("sobel")
    assert [line.split(".")[0] for line in lines] == ["output"], lines
    assert not any("compute_root" in line for line in lines)


def test_histogram_scan_runs_in_its_tables_gpu_block():
    lines = schedule("histogram_equalization")
    table = next(line for line in lines if line.startswith("table."))
    assert ".gpu_blocks(bo)" in table and "gpu_tile" not in table, table
    assert "cdf.compute_at(table, bo)" in lines, lines
    assert "cdf.update(0).unscheduled()" in lines


def test_blur_keeps_its_horizontal_pass_at_root():
    """In workgroup memory the u8 blur's vertical pass would run 8x4 invocations (of four
    pixels each) in a workgroup of 32x6 for the horizontal pass, idle most of the time: 1.6x
    slower on the H200 than two dispatches, and the model charges idle invocations so."""
    lines = schedule("blur")
    assert any(line.startswith("blur_x.compute_root()") for line in lines), lines


def test_narrow_stages_compute_four_values_an_invocation():
    """An invocation of an 8/16-bit stage computes whole words of adjacent x, four values at
    least: the blur's uint16 pass 4 (two words; one word of 2 ran 1.6x slower on SwiftShader),
    its uint8 output 4 (one word; wider costs a GPU its coalescing)."""
    lines = schedule("blur")
    output = next(line for line in lines if line.startswith("output."))
    blur_x = next(line for line in lines if line.startswith("blur_x."))
    assert ".split(x, x, xv, 4).vectorize(xv).gpu_tile(" in output, output
    assert ".split(x, x, xv, 4).vectorize(xv).gpu_tile(" in blur_x, blur_x


def _float_blur(size: int):
    x, y = hl.Var("x"), hl.Var("y")
    image = hl.ImageParam(hl.Float(32), 2, "input")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[x, y] = (clamped[x - 1, y] + clamped[x, y] * 2.0 + clamped[x + 1, y]) * 0.25
    blur_y[x, y] = (blur_x[x, y - 1] + blur_x[x, y] * 2.0 + blur_x[x, y + 1]) * 0.25
    blur_y.set_estimates([(0, size), (0, size)])
    image.set_estimates([(0, size), (0, size)])
    return hl.Pipeline(blur_y), image


@pytest.fixture
def cheap_barriers(monkeypatch):
    """The model with a barrier as a GPU pays it (the default charges what CPU adapters pay,
    see targets.py)."""
    from webhal.autoschedule import targets
    monkeypatch.setitem(targets._GPU, "barrier_ns", 0.02)


def test_barriers_keep_the_default_to_dispatches():
    """By default (a barrier charged as SwiftShader pays it) a float blur's horizontal pass
    is not computed in workgroup memory: it is inlined into the vertical pass (reads charged by
    the distinct elements of a tile, a 3x3 stencil of the input reads its tile and a halo),
    not computed per workgroup behind a barrier."""
    p, _ = _float_blur(1024)
    source = p.apply_autoscheduler(hl.Target("host-webgpu"),
                                   hl.AutoschedulerParams("Webhal")).schedule_source
    assert "GPUShared" not in source and "blur_x." not in source, source


def test_float_blur_computes_its_horizontal_pass_in_workgroup_memory(wgpu_device,
                                                                     cheap_barriers):
    """With barriers cheap, a float blur's horizontal pass, read by the vertical one as a
    stencil, is computed per workgroup into workgroup memory (one dispatch), its footprint
    two rows taller than the output's tile, which shrinks so that it fits 256 invocations;
    the result is the reference's."""
    target = hl.Target("host-webgpu")
    p, image = _float_blur(1024)
    lines = [line.strip() for line in p.apply_autoscheduler(
        target, hl.AutoschedulerParams("Webhal")).schedule_source.splitlines()]
    assert "blur_x.compute_at(blur_y, xo).store_in(hl.MemoryType.GPUShared)" \
        ".gpu_threads(x, y)" in lines, lines
    assert "blur_y.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)" in lines, lines
    data = np.random.default_rng(3).random((45, 61), dtype=np.float32)
    image.set(hl.Buffer(data))
    out = np.asarray(p.realize([61, 45], target))
    padded = np.pad(data, 1, mode="edge")
    bx = (padded[:, :-2] + padded[:, 1:-1] * 2 + padded[:, 2:]) * 0.25
    want = (bx[:-2] + bx[1:-1] * 2 + bx[2:]) * 0.25
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("name", ["float_blur", "bilateral_grid"])
def test_workgroup_memory_within_the_adapters_limits(name, cheap_barriers):
    """Every kernel of an autoschedule that uses workgroup memory stays within WebGPU's
    default limits: 256 invocations a workgroup, 16384 bytes of workgroup storage (one
    32-bit word per element there)."""
    target = hl.Target("host-webgpu")
    if name == "float_blur":
        p, _ = _float_blur(4096)
    else:
        p, _, _ = demo_pipeline(name, str(target), (1024, 1024))
    source = p.apply_autoscheduler(target, hl.AutoschedulerParams("Webhal")).schedule_source
    assert "GPUShared" in source, source
    _, lowered = compile_jit(p, target)
    kernels = [k for ks in lowered.kernels.values() for k in ks]
    assert any(k.shared for k in kernels)
    for k in kernels:
        assert k.workgroup[0] * k.workgroup[1] * k.workgroup[2] <= 256, (k.name, k.workgroup)
        words = sum(size * max(1, t.bits // 32) * t.lanes for t, size in k.shared.values())
        assert 4 * words <= 16384, (k.name, k.shared)


def test_local_laplacian_computes_each_level_whole():
    """Each pyramid level is one dispatch with its boundary condition and, on the coarse
    levels, its horizontal pass inlined (the clamps bound every level's region to its size),
    in workgroups that shrink with the level, as the hand schedule does: about as many
    dispatches as the hand schedule's 25, where every boundary condition and horizontal pass
    was one of some 70."""
    lines = schedule("local_laplacian")
    roots = [line for line in lines if ".compute_root()" in line]
    assert len(roots) <= 30, roots
    assert not any("repeat_edge" in line for line in roots), roots
    coarse = next(line for line in lines if line.startswith("gauss_7."))
    assert "gpu_tile(x, y, xo, yo, xi, yi, 4, 4)" in coarse, coarse
    fine = next(line for line in lines if line.startswith("gauss_1."))
    assert "gpu_tile(x, y, xo, yo, xi, yi, 16, 16)" in fine, fine


def test_local_laplacian_at_4096_inlines_its_boundary_conditions():
    """Estimated at 4096x4096 the schedule keeps the 1024x1024 one's few dispatches: the
    search takes a change that saves a dispatch however large the modelled total (a threshold
    of 0.1% of the total refused them at 4096, leaving 23 boundary-condition copies at root:
    62 dispatches, 1.72x the hand schedule on the H200 against 1.55x without them)."""
    roots = [line for line in schedule("local_laplacian", 4096) if ".compute_root()" in line]
    assert len(roots) <= 32, roots
    assert not any("repeat_edge" in line for line in roots), roots


def test_local_laplacian_at_4096_inlines_its_horizontal_passes():
    """Estimated at 4096x4096, each fine level's horizontal pass (`gauss_j_across`: twice its
    level's points, eight intensity planes) is inlined into its vertical pass, as the hand
    schedule has it, not a dispatch of its own whose buffer goes to memory and back. The model
    charged every tap of an inlined pass as a load (16 for the vertical pass over an inlined
    horizontal one) and a stored buffer's traffic at a fifth of one, and kept those passes at
    root (30 dispatches against the hand schedule's 25, 1.52-1.59x its time on the H200); reads
    are now charged by the distinct elements a workgroup's tile reads from memory."""
    lines = schedule("local_laplacian", 4096)
    roots = [line.split(".")[0] for line in lines if ".compute_root()" in line]
    for j in range(1, 5):
        assert f"gauss_{j}_across" not in roots, roots
        assert f"gauss_{j}" in roots, roots
    for j in range(1, 4):
        assert f"in_gauss_{j}_across" not in roots and f"in_gauss_{j}" in roots, roots
    assert len(roots) + 1 <= 25, roots  # dispatches: the roots and the output


def test_local_laplacian_unrolls_its_intensity_levels():
    """The remapped copies and their pyramid compute all eight intensity levels (a third Var
    of a constant 8 values) in each invocation, unrolled, as the hand schedule does, so that
    the luminance each level remaps is read once, not once per level (k a block dimension:
    1.30x the hand schedule's time on the H200 at 4096^2, 0.94-0.98x unrolled); the
    bilateral grid's and unsharp's third Vars, sized by the estimates, stay block
    dimensions."""
    for size in (1024, 4096):
        lines = schedule("local_laplacian", size)
        for name in ("remapped", "gauss_1", "gauss_7"):
            line = next(line for line in lines if line.startswith(f"{name}."))
            assert ".reorder(k, x, y).unroll(k).gpu_tile(" in line, line
            assert "gpu_blocks" not in line, line
    assert any("gpu_blocks(c)" in line for line in schedule("unsharp"))


@pytest.mark.slow
def test_local_laplacian_autoscheduled_at_4096_matches_the_reference(wgpu_device):
    """That schedule (its horizontal passes inlined) gives the reference's values."""
    from tests.autoschedule.test_suite_autoscheduled import _bind, _photo
    size = (64, 64)
    p, _, mod = demo_pipeline("local_laplacian", "host-webgpu", (4096, 4096))
    source = p.apply_autoscheduler(hl.Target("host-webgpu"),
                                   hl.AutoschedulerParams("Webhal")).schedule_source
    assert "gauss_1_across.compute_root()" not in source, source
    ref, _, _ = demo_pipeline("local_laplacian", "host-webgpu", size)
    image = _photo("local_laplacian", "rgb", size)
    results = []
    for pipeline, t in ((p, "host-webgpu"), (ref, "reference")):
        _bind(pipeline, image, mod.DEMO)
        results.append(np.asarray(pipeline.realize([*size, 3], hl.Target(t))).astype(np.int32))
    assert np.abs(results[0] - results[1]).max() <= mod.DEMO["tolerance"]


def test_the_search_stops_at_a_local_minimum_at_any_size():
    """No single change of the chosen schedule is cheaper in the model by more than
    search.MIN_GAIN_NS, at 1024^2 and at 4096^2."""
    import importlib

    import webhal.autoschedule as auto
    search = importlib.import_module("webhal.autoschedule.search")
    for size in (1024, 4096):
        got = {}

        def spy(model, order, passes=4, got=got):
            got["m"], got["o"] = model, order
            got["d"] = search.search(model, order, passes)
            return got["d"]

        p, _, _ = demo_pipeline("local_laplacian", TARGET, (size, size))
        saved, auto.search = auto.search, spy
        try:
            p.apply_autoscheduler(hl.Target(TARGET), hl.AutoschedulerParams("Webhal"))
        finally:
            auto.search = saved
        model, order, chosen = got["m"], got["o"], got["d"]
        base = search.evaluate(model, order, chosen.choices)[0]
        for fn in order:
            node = model.nodes[id(fn)]
            if node.is_output or (node.feeds_index and chosen.choices[id(fn)] == "inline"):
                continue
            for option in search._options(model, node):
                trial = dict(chosen.choices)
                trial[id(fn)] = option
                cost = search.evaluate(model, order, trial)
                assert cost is None or cost[0] >= base - search.MIN_GAIN_NS, (size, fn.name,
                                                                              option)


def test_bilateral_grid_update_shares_its_samples_between_channels():
    """The grid's update computes its two channels inside the RDom's loops (one sample, two
    sums), as the hand schedule does, rather than a block dimension that computes every
    sample twice; vectorized, not unrolled (one statement: its guard, its sample and the bin
    once, not once a channel: the update 1.65x faster on SwiftShader)."""
    lines = schedule("bilateral_grid")
    update = next(line for line in lines if line.startswith("grid.update(0)"))
    assert ".reorder(c, r_x, r_y, x, y).vectorize(c).gpu_tile(" in update, update
    assert "gpu_blocks(c)" not in update and "unroll" not in update, update


def test_bilateral_grid_schedule_source_gives_the_same_statement(tmp_path):
    """The printed schedule, RVars in a reorder included, applied by hand to a fresh copy of
    the pipeline gives the same lowered statement."""
    target = hl.Target(TARGET)
    auto, _, _ = demo_pipeline("bilateral_grid", TARGET, (1024, 1024))
    source = auto.apply_autoscheduler(target, hl.AutoschedulerParams("Webhal")).schedule_source
    by_hand, _, _ = demo_pipeline("bilateral_grid", TARGET, (1024, 1024))
    namespace: dict = {}
    exec(compile(source, "schedule.py", "exec"), namespace)  # noqa: S102
    namespace["apply_schedule"](by_hand)
    texts = []
    for p, name in ((auto, "auto"), (by_hand, "by_hand")):
        path = tmp_path / f"{name}.stmt"
        p.compile_to_lowered_stmt(str(path), p.infer_arguments(), hl.StmtOutputFormat.Text,
                                  target)
        texts.append(path.read_text())
    assert texts[0] == texts[1]


def test_a_short_var_sized_by_the_estimates_is_not_unrolled():
    """A loop whose extent follows an output's estimate (3 channels here) need not have a
    constant extent when lowered: it is not unrolled (unroll would refuse it)."""
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    image = hl.ImageParam(hl.Float(32), 3, "input")
    r = hl.RDom([(0, 4)], "r")
    acc, out = hl.Func("acc"), hl.Func("out")
    acc[x, y, c] = hl.f32(0)
    acc[x, y, c] += image[hl.clamp(x + r.x, 0, 63), y, c]
    out[x, y, c] = acc[x, y, c] * 2
    out.set_estimates([(0, 64), (0, 64), (0, 3)])
    image.set_estimates([(0, 64), (0, 64), (0, 3)])
    source = hl.Pipeline(out).apply_autoscheduler(
        hl.Target(TARGET), hl.AutoschedulerParams("Webhal")).schedule_source
    update = next(line for line in source.splitlines() if "acc.update(0)" in line)
    assert "unroll" not in update and "gpu_blocks(c)" in update, update


def test_bilateral_grid_stores_its_unrolled_channels_innermost():
    """A stage whose invocations compute a few channels each (unrolled) stores them innermost
    (reorder_storage): a grid cell's value and weight sit side by side, so the histogram's
    vectorized update reads and writes them as one vec2 and the slicing's two loads of a
    corner share a cache line, where they were a channel's plane (about 800 KB) apart."""
    lines = schedule("bilateral_grid")
    for name in ("grid", "blur_z", "blur_x", "blur_y"):
        line = next(line for line in lines if line.startswith(f"{name}."))
        assert ".unroll(c).reorder_storage(c, x, y, z)." in line, line
