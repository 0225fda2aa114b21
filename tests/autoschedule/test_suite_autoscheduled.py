"""Every pipeline of the benchmark suite and every demo, autoscheduled for host, wasm
(wasmtime) and WebGPU (wgpu-py), gives the reference's values.

The suite's pipelines run at the suite's size (their estimates); the demos on a small photo.
"""

from __future__ import annotations

import numpy as np
import pytest

import webhal as hl
from benchmarks import suite
from benchmarks.autoschedule import DEMOS, algorithm_only, demo_pipeline, set_estimates

HOST, WASM, GPU = "host", "wasm-32-wasmrt-wasm_simd128", "host-webgpu"


def _runtime(request, target: str) -> None:
    if target == WASM:
        request.getfixturevalue("wasmtime_engine")
    elif target == GPU:
        request.getfixturevalue("wgpu_device")


def _suite_case(name: str, target: str):
    spec = suite.SUITE[name]
    built = spec.build(algorithm_only(hl))
    inputs = spec.inputs()
    p = hl.Pipeline(built.output)
    set_estimates(hl, built.output, built.args, inputs, spec.output_shape)
    p.apply_autoscheduler(hl.Target(target), hl.AutoschedulerParams("Webhal"))
    images = [a for a in built.args if isinstance(a, hl.ImageParam)]
    for image, array in zip(images, inputs):
        image.set(hl.Buffer(array))
    for a in built.args:
        if isinstance(a, hl.Param):
            a.set(built.params[a.name()])
    return spec, p, inputs, built


@pytest.mark.parametrize("target", [HOST, pytest.param(WASM, marks=pytest.mark.slow),
                                    pytest.param(GPU, marks=[pytest.mark.gpu,
                                                             pytest.mark.slow])])
@pytest.mark.parametrize("name", list(suite.SUITE))
def test_suite_pipeline_autoscheduled_matches_numpy(name, target, request):
    _runtime(request, target)
    spec, p, inputs, built = _suite_case(name, target)
    size = list(reversed(spec.output_shape))
    out = np.asarray(p.realize(size, hl.Target(target)))
    expected = spec.numpy_impl(*inputs, **built.params)
    if spec.is_float:
        np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-6)
    else:
        np.testing.assert_array_equal(out, expected)


# The larger demos compile for tens of seconds on a busy 2-core machine: slow (the local
# Laplacian's autoschedule about 25 s on the host, 21 s for wasm, 6 s for WebGPU at load 1).
_DEMO_CASES = [pytest.param(d, marks=[pytest.mark.slow])
               if d in ("unsharp", "bilateral_grid", "local_laplacian") else d
               for d in DEMOS]


def _photo(name: str, color: str, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    if color == "rgb":
        return np.ascontiguousarray(suite.rgb_planar_u8(h, w))
    return suite.gray_u8(h, w)


@pytest.mark.parametrize("target", [HOST, pytest.param(WASM, marks=pytest.mark.slow),
                                    pytest.param(GPU, marks=[pytest.mark.gpu,
                                                             pytest.mark.slow])])
@pytest.mark.parametrize("name", _DEMO_CASES)
def test_demo_autoscheduled_matches_reference(name, target, request):
    _runtime(request, target)
    check_demo_autoscheduled(name, target, target, (64, 64))


def check_demo_autoscheduled(name: str, target: str, run_on: str, size: tuple[int, int]) -> None:
    """Demo `name`, autoscheduled for `target` at `size`, realized on `run_on`, equals the
    reference evaluator's output of the demo's own schedule within the demo's tolerance."""
    p, _, mod = demo_pipeline(name, target, size)
    p.apply_autoscheduler(hl.Target(target), hl.AutoschedulerParams("Webhal"))
    ref, _, _ = demo_pipeline(name, target, size)
    demo = mod.DEMO
    image = _photo(name, demo["color"], size)
    margin = demo.get("margin", 0)
    results = []
    for pipeline, t in ((p, run_on), (ref, "reference")):
        _bind(pipeline, image, demo)
        sizes = [size[0] - margin, size[1] - margin] + ([3] if image.ndim == 3 else [])
        results.append(np.asarray(pipeline.realize(sizes, hl.Target(t))).astype(np.int32))
    assert np.abs(results[0] - results[1]).max() <= demo.get("tolerance", 0)


@pytest.mark.parametrize("target", [HOST, "wasm-32-wasmrt-wasm_simd128",
                                    "wasm-32-wasmrt-wasm_simd128-wasm_threads"])
@pytest.mark.parametrize("name", _DEMO_CASES)
def test_demo_autoscheduled_for_512_runs_on_a_smaller_picture(name, target):
    """A schedule is chosen for estimated sizes and then meets the pictures users have: each
    demo autoscheduled for 512x512 and computed (on the host, into output Buffers of exactly
    the picture's size, as a package's caller passes them) for 150x130, a multiple of neither
    strips nor vectors, equals the reference (the histogram's hand and CPU autoschedules
    failed on any height not a multiple of 32). A picture narrower than a vector or shorter
    than an output strip (up to 128 rows) is refused, by name, as for hand schedules and in
    Halide (docs/autoschedule.md)."""
    p, _, mod = demo_pipeline(name, target, (512, 512))
    p.apply_autoscheduler(hl.Target(target), hl.AutoschedulerParams("Webhal"))
    check_on_smaller_picture(p, name, mod.DEMO, (150, 130))


@pytest.mark.parametrize("name", _DEMO_CASES)
def test_demo_hand_schedule_runs_on_a_smaller_picture(name):
    """The same for each demo's own CPU schedule (the histogram's failed on any height not a
    multiple of its 32-row strips: a 720-row webcam frame), and a picture shorter than them."""
    from webhal import demo_page
    with hl.GeneratorContext(hl.Target(HOST)):
        p = demo_page.load(name).generator()().build_pipeline()
    _, _, mod = demo_pipeline(name, HOST, (64, 64))
    for size in ((150, 130), (150, 45)):
        check_on_smaller_picture(p, name, mod.DEMO, size)


def check_on_smaller_picture(p, name: str, demo: dict, size: tuple[int, int]) -> None:
    """`p` realized on the host into output Buffers of a picture of `size` (width, height)
    equals the reference evaluator's output of the demo (its own schedule ignored there)."""
    ref, _, _ = demo_pipeline(name, HOST, (512, 512))
    image = _photo(name, demo["color"], size)
    margin = demo.get("margin", 0)
    shape = [size[0] - margin, size[1] - margin] + ([3] if image.ndim == 3 else [])
    results = []
    for pipeline, t in ((p, HOST), (ref, "reference")):
        _bind(pipeline, image, demo)
        out = hl.Buffer(hl.UInt(8), shape)
        pipeline.realize(out, hl.Target(t))
        results.append(np.asarray(out).astype(np.int32))
    assert np.abs(results[0] - results[1]).max() <= demo.get("tolerance", 0)


def _bind(pipeline, image: np.ndarray, demo: dict) -> None:
    for arg in pipeline.infer_arguments():
        if isinstance(arg, hl.ImageParam):
            arg.set(hl.Buffer(image))
        else:
            arg.set(demo.get("scalars", {}).get(arg.name(), {}).get("default", 1.0))
