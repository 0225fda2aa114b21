"""What the autoscheduler chooses on the CPU targets: for wasm_threads it plans for a worker pool
whose size is known only at run time (2 to 16 workers), an explicit `parallelism` plans for
exactly that many, and the host for its own cores."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import webhal as hl
from benchmarks import suite
from benchmarks.autoschedule import DEMOS, algorithm_only, set_estimates
from tests.autoschedule.test_suite_autoscheduled import check_demo_autoscheduled
from webhal.autoschedule.targets import WASM_POOLS, machine_for

THREADS = "wasm-32-wasmrt-wasm_simd128-wasm_threads"
SIMD = "wasm-32-wasmrt-wasm_simd128"


def _suite_schedule(name: str, target: str, params: dict | None = None):
    spec = suite.SUITE[name]
    built = spec.build(algorithm_only(hl))
    p = hl.Pipeline(built.output)
    set_estimates(hl, built.output, built.args, spec.inputs(), spec.output_shape, built.params)
    source = p.apply_autoscheduler(hl.Target(target),
                                   hl.AutoschedulerParams("Webhal", params or {})).schedule_source
    return spec, built, p, source


def _jobs(spec, source: str) -> int:
    """Parallel jobs of the output's strips: its rows over the strip height."""
    rows = [int(m) for m in re.findall(r"split\(y, yo, yi, (\d+)\)\.parallel\(yo\)", source)]
    assert rows, source
    return -(-spec.output_shape[0] // rows[0])


def test_threads_blur_has_enough_strips_for_16_workers():
    # Planned for 4 workers alone, the blur at the suite's 1024 rows had 8 strips of 128 rows:
    # on 16 workers half of them idled.
    spec, _, _, source = _suite_schedule("blur", THREADS)
    assert spec.output_shape[0] == 1024
    assert _jobs(spec, source) >= 16, source


def test_explicit_parallelism_plans_for_exactly_that_many():
    spec, _, _, four = _suite_schedule("blur", THREADS, {"parallelism": "4"})
    assert _jobs(spec, four) == 8  # 2 strips a worker: the recomputed halo stays small
    _, _, _, one = _suite_schedule("blur", THREADS, {"parallelism": "1"})
    assert ".parallel(" not in one


def test_the_pool_model_weighs_job_cost_against_idle_workers():
    m = machine_for(hl.Target(THREADS))
    assert m.pools == WASM_POOLS and m.threads == 4

    def best(machine, ns):
        return min((1, 2, 4, 8, 16, 32, 64), key=lambda jobs: machine.parallel_ns(ns, jobs))

    # 2 ms of work: a job for each of 16 workers; 50 us: fewer, larger jobs (on 2 workers
    # each job's hand-out is a large part of it)
    assert best(m, 2e6) == 16
    assert best(m, 5e4) == 8
    # an explicit parallelism, and the host: exactly that many workers
    assert best(machine_for(hl.Target(THREADS), 4), 2e6) == 4
    host = machine_for(hl.Target("host"))
    assert host.pools == () and host.threads == (os.cpu_count() or 1)
    assert machine_for(hl.Target(SIMD)).threads == 1


@pytest.mark.parametrize("name", list(suite.SUITE))
def test_threads_autoschedule_matches_numpy(name):
    """The wasm_threads schedule (strips, parallel loops, SIMD128's vector widths), run on the
    host: the values the suite's reference gives."""
    spec, built, p, _ = _suite_schedule(name, THREADS)
    inputs = spec.inputs()
    for image, array in zip([a for a in built.args if isinstance(a, hl.ImageParam)], inputs):
        image.set(hl.Buffer(array))
    for a in built.args:
        if isinstance(a, hl.Param):
            a.set(built.params[a.name()])
    out = np.asarray(p.realize(list(reversed(spec.output_shape)), hl.Target("host")))
    expected = spec.numpy_impl(*inputs, **built.params)
    if spec.is_float:
        np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-6)
    else:
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("name", [pytest.param(d, marks=[pytest.mark.slow])
                                  if d in ("bilateral_grid", "local_laplacian") else d
                                  for d in DEMOS])
def test_threads_autoschedule_of_demos_matches_reference(name):
    """Each demo's wasm_threads autoschedule for a 512^2 photo (strips of 32-64 rows, the
    local Laplacian's levels down to 4), run on the host: the reference's values."""
    check_demo_autoscheduled(name, THREADS, "host", (512, 512))
