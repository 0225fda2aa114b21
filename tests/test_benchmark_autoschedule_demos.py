"""The six demos as pipelines of benchmarks.autoschedule's wasm table (demo_specs): each built
four ways (webhal's hand CPU schedule, webhal autoscheduled, Halide's Mullapudi2016 and
Adams2019 on the same algorithm) for wasm SIMD through the suite's C harness, at 128^2, and run
in Node; every output must equal webhal's on the host (the hand schedule, realized in Python)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.halide_peer import require

require("halide")

SIZE = (128, 128)


def _host_checksum(spec, name: str) -> int:
    """The harness's checksum of the demo's output computed on the host by webhal (its hand
    schedule), for the spec's input and scalars."""
    from benchmarks.halide_webgpu import realize_on_host
    from benchmarks.measure import checksum
    out = realize_on_host(name, spec.inputs()[0], spec.params, list(reversed(spec.output_shape)))
    assert out.shape == spec.output_shape and out.dtype == np.uint8
    return checksum(out)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["blur", "unsharp", "sobel", "histogram_equalization",
                                  "bilateral_grid", "local_laplacian"])
def test_a_demo_builds_four_ways_and_every_output_matches(name, emcc, node):
    from benchmarks.autoschedule import demo_sources, demo_specs, implementations
    from benchmarks.measure import QUICK, SIMD
    from benchmarks.wasm import build_all, run_in_node
    [spec] = demo_specs([name], SIZE)
    assert spec.name == f"demo_{name}_128x128"
    impls = implementations({spec.name: spec})
    assert list(impls) == ["webhal", "webhal-auto", "halide-Mullapudi2016", "halide-Adams2019"]
    builds = build_all([spec], {spec.name: spec.inputs()}, impls, [SIMD],
                       extra_sources=demo_sources(), log=lambda _: None)
    assert [b.error for b in builds] == [""] * 4
    measured = {b.impl: run_in_node(b, QUICK) for b in builds}
    assert {k: m.error for k, m in measured.items()} == dict.fromkeys(impls, "")
    want = _host_checksum(spec, name)
    assert {k: m.checksum for k, m in measured.items()} == dict.fromkeys(impls, want)
