"""What the autoscheduler chooses on the CPU targets: for wasm_threads it plans for a worker pool
whose size is known only at run time (2 to 16 workers), an explicit `parallelism` plans for
exactly that many, and the host for its own cores."""

from __future__ import annotations

import dataclasses
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
AVX512 = "x86-64-linux-avx-avx2-avx512-avx512_skylake"


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


def test_threads_blur_has_more_strips_than_16_workers_and_slides():
    # Planned for 4 workers alone, the blur at the suite's 1024 rows had 8 strips of 128 rows:
    # on 16 workers half of them idled; planned for 2-16 workers with jobs beyond the largest
    # pool taken as balanced, 16 strips of 64 rows, one a worker, and 1.5x the hand schedule's
    # time (128 strips of 8 rows) on 16 workers. The pool's imbalance (the last worker's tail)
    # now asks for more strips, and its horizontal pass is a sliding window within each strip
    # (3 rows that stay in the first-level cache, not a strip of 66 rows that does not).
    spec, _, _, source = _suite_schedule("blur", THREADS)
    assert spec.output_shape[0] == 1024
    assert 32 <= _jobs(spec, source) <= 128, source
    assert "blur_x.store_at(blur_y, yo).compute_at(blur_y, yi)" in source, source


def test_explicit_parallelism_plans_for_exactly_that_many():
    spec, _, _, four = _suite_schedule("blur", THREADS, {"parallelism": "4"})
    assert _jobs(spec, four) == 8  # 2 strips a worker: the recomputed halo stays small
    _, _, _, one = _suite_schedule("blur", THREADS, {"parallelism": "1"})
    assert ".parallel(" not in one


def test_wide_vectors_stop_at_two_of_the_widest_type():
    """The census (uint8 read, uint32 signature): one SIMD128 vector of uint8 on wasm (16
    lanes, four of uint32), but on an AVX-512 host two registers of uint32 (32 lanes), not
    one of uint8 (64: 1.64x slower there)."""
    vectors = {}
    for target in (SIMD, AVX512):
        *_, source = _suite_schedule("census5", target)
        vectors[target] = re.findall(r"census5\..*\.vectorize\(x, (\d+)\)", source)
    assert vectors == {SIMD: ["16"], AVX512: ["32"]}


def test_the_pool_model_weighs_hand_out_against_imbalance():
    m = machine_for(hl.Target(THREADS))
    assert m.pools == WASM_POOLS and m.threads == 4
    jobs = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)

    def best(machine, ns):
        return min(jobs, key=lambda j: machine.parallel_ns(ns, j))

    # 1 ms of work: 64 jobs (the hand schedules' count), not one a worker of the largest pool:
    # the last worker's tail of half a job against 90 ns to hand out each; the more work, the
    # more jobs pay (about sqrt(work / hand-out)); 50 us: 16
    assert best(m, 1e6) == 64
    assert best(m, 1e7) == 256
    assert best(m, 5e4) == 16
    # without the imbalance, jobs beyond the largest pool only cost their hand-out
    assert best(dataclasses.replace(m, tail=0.0), 1e6) == 16
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
    """Each demo's wasm_threads autoschedule for a 512^2 photo (strips of 16-32 rows, the
    local Laplacian's levels down to 4), run on the host: the reference's values."""
    check_demo_autoscheduled(name, THREADS, "host", (512, 512))


def _demo_schedule(name: str, target: str, size=(1024, 1024)) -> str:
    from benchmarks.autoschedule import demo_pipeline
    p, _, _ = demo_pipeline(name, target, size)
    return p.apply_autoscheduler(hl.Target(target),
                                 hl.AutoschedulerParams("Webhal")).schedule_source


@pytest.mark.parametrize("target", [SIMD, THREADS, "host"])
def test_histogram_equalization_table_is_computed_at_root(target):
    # The table (256 entries, a division each) is read through a pixel's value. Inlined, each
    # pixel gathers the cdf and divides: the model used to price the inlined table's read of
    # the cdf as a vector load, so inlining looked cheaper than one gather a pixel (1.6-2.1x
    # the hand schedule's time on wasm SIMD). At root: 256 divisions and one gather a pixel.
    source = _demo_schedule("histogram_equalization", target)
    assert "table.compute_root()" in source, source
    # the sum of the partial histograms per bin is vectorized across the bins, around the
    # strips' loop (as the hand schedule does), not left scalar
    assert re.search(r"histogram\.update\(0\)\.vectorize\(b, \d+\)", source), source


def test_only_a_lookup_in_a_fixed_table_makes_the_inlined_reads_gathers():
    # Only a read whose every coordinate is a value, in a pure definition, of a Func of fixed
    # extents, makes the inlined Func's reads gathers (cost.CostModel._lookup): the local
    # Laplacian's reads (its level read by value, x and y its consumer's) and the bilateral
    # grid's scatter (an update) are priced as before.
    from webhal.autoschedule.cost import CostModel
    from webhal.autoschedule.graph import Coord, Read
    model = CostModel({}, {}, machine_for(hl.Target(SIMD)))
    f = hl.Func("f")
    x = hl.Var("x")
    f[x] = x
    fn = f.function()
    model.nodes[id(fn)] = None
    model.fixed = {(id(fn), 0)}
    read = Read(fn, fn, [Coord(None)], 1, args=[(x,)], in_update=True)
    assert not model._lookup(read, [True])  # an update's read
    read.in_update = False
    assert model._lookup(read, [True])
    assert not model._lookup(read, [False])
    model.fixed = set()
    assert not model._lookup(read, [True])  # its extent grows with the image


def test_bilateral_grid_scatter_unrolls_its_channels_inside_the_rdom():
    # The grid's update over its RDom with the channel c (2 values, a constant extent)
    # outermost ran the whole scatter twice (each sample read and binned twice); inside the
    # RDom's loops and unrolled, once, as the hand schedule has it.
    for target in (SIMD, THREADS):
        source = _demo_schedule("bilateral_grid", target)
        assert re.search(r"grid\.update\(0\)\.reorder\(c, r_x, r_y, x, y\).*\.unroll\(c, 2\)",
                         source), source


@pytest.mark.parametrize("name", ["histogram_equalization", "bilateral_grid"])
def test_simd_autoschedule_of_demos_matches_reference(name):
    """The wasm SIMD schedules above (the table at root, the histogram's sum vectorized around
    its RDom, the grid's channels unrolled inside its RDom), run on the host: the
    reference's values."""
    check_demo_autoscheduled(name, SIMD, "host", (256, 256))
