"""The benchmark apps (benchmarks/apps.py: local Laplacian, interpolate, bilateral grid, camera
pipeline, unsharp) give Halide's output on the host JIT, at a small size with shallow pyramids,
each written once and built by both libraries with the same schedule."""

from functools import partial

import numpy as np
import pytest

from benchmarks import apps
from benchmarks.host import _bind, _jit_target
from benchmarks.run_apps import compare
from tests.halide_peer import require

(halide,) = require("halide")
import webhal  # noqa: E402

pytestmark = pytest.mark.halide

SIZE = (48, 64)  # (height, width)
SHALLOW = {"interpolate": partial(apps.build_interpolate, levels=3),
           "local_laplacian": partial(apps.build_local_laplacian, levels=3)}


@pytest.mark.slow  # each app is compiled by both libraries: 3 s of CPU (unsharp, measured)
@pytest.mark.parametrize("name", list(apps.apps(size=SIZE)))
def test_app_matches_halide(name):
    spec = apps.apps(size=SIZE)[name]
    if name in SHALLOW:
        spec = type(spec)(**{**spec.__dict__, "build": SHALLOW[name]})
    arrays = spec.inputs()
    found = {}
    for hl in (webhal, halide):
        built, _, output = _bind(spec, hl, arrays)
        built.output.realize(output, _jit_target(hl))
        found[hl.__name__] = np.array(np.asarray(output))
    assert found["webhal"].shape == spec.output_shape
    matches, how = compare(found["webhal"], found["halide"])
    assert matches, f"{name}: {how}"
    values = found["halide"].astype(np.float64)
    assert np.nanmax(values) > np.nanmin(values)  # not a constant image
