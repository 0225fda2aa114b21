"""Measured tuning (the autoscheduler's tune=N): candidates run on the target's runtime, the
fastest kept and cached by a digest of the pipeline, target and sizes, so a second apply
measures nothing and a given cache decides the schedule."""

from __future__ import annotations

import json

import numpy as np
import pytest

import webhal as hl
from tests.autoschedule.test_interface import harris_like
from webhal.autoschedule import NAME
from webhal.autoschedule import tune as tuning

SIZE = (96, 64)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "tune-cache"
    monkeypatch.setenv("WEBHAL_AUTOSCHEDULE_CACHE", str(folder))
    return folder


def _tuned(target: str, n: int = 3, sizes=SIZE):
    p, image = harris_like(sizes)
    result = p.apply_autoscheduler(hl.Target(target),
                                   hl.AutoschedulerParams(NAME, {"tune": n}))
    return p, image, result


def test_a_second_apply_takes_the_cache_and_measures_nothing(cache):
    before = tuning.measured_count
    _, _, first = _tuned("host")
    assert tuning.measured_count - before == 3  # every candidate ran once
    assert len(list(cache.glob("*.json"))) == 1
    _, _, second = _tuned("host")
    assert tuning.measured_count - before == 3  # nothing measured again
    assert "from the cache" in second.schedule_source
    body = lambda s: s.split("import webhal", 1)[1]  # noqa: E731
    assert body(second.schedule_source) == body(first.schedule_source)


def test_the_cache_decides_the_schedule(cache):
    _tuned("host")
    [entry_path] = cache.glob("*.json")
    entry = json.loads(entry_path.read_text())
    entry["chosen"] = 2  # as if candidate 2 had been the fastest
    entry_path.write_text(json.dumps(entry))
    before = tuning.measured_count
    _, _, again = _tuned("host")
    assert tuning.measured_count == before
    assert "candidate 2 of 3" in again.schedule_source
    entry["chosen"] = 0
    entry_path.write_text(json.dumps(entry))
    _, _, model = _tuned("host")
    assert "candidate 0 of 3" in model.schedule_source
    assert model.schedule_source.split("import")[1] != again.schedule_source.split("import")[1]


@pytest.mark.parametrize("target", ["host", pytest.param("wasm-32-wasmrt-wasm_simd128",
                                                        marks=pytest.mark.slow)])
def test_the_tuned_schedule_matches_the_reference(cache, target, request):
    if target.startswith("wasm"):
        request.getfixturevalue("wasmtime_engine")
    p, image, result = _tuned(target)
    assert "Tuned (tune=3, measured now)" in result.schedule_source
    assert image.get() is None  # the synthetic input of the measurements is not left bound
    rgb = np.random.default_rng(1).random((3, SIZE[1] + 2, SIZE[0] + 2), dtype=np.float32)
    image.set(hl.Buffer(rgb))
    got = np.asarray(p.realize(list(SIZE), hl.Target(target)))
    ref, image2 = harris_like(SIZE)
    image2.set(hl.Buffer(rgb))
    want = np.asarray(ref.realize(list(SIZE), hl.Target("reference")))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_the_digest_changes_with_sizes_target_and_parameters():
    from webhal.autoschedule.regions import output_region
    from webhal.lower import gather_inputs

    def key(sizes, target="host", extra=None):
        p, _ = harris_like(sizes)
        fns = p.functions()
        images, params = gather_inputs(fns)
        regions = [output_region(o.function(), None) for o in p.outputs()]
        return tuning.digest(p, hl.Target(target), regions, images, params,
                             extra or {"tune": "3"})

    base = key((96, 64))
    assert base == key((96, 64))  # a fresh copy of the same pipeline: the same digest
    assert base != key((96, 65))
    assert base != key((96, 64), "wasm-32-wasmrt-wasm_simd128")
    assert base != key((96, 64), extra={"tune": "4"})


def test_a_changed_pipeline_is_tuned_again(cache):
    _tuned("host", sizes=SIZE)
    before = tuning.measured_count
    _tuned("host", sizes=(SIZE[0], SIZE[1] * 2))  # other sizes: another digest, measured
    assert tuning.measured_count - before == 3
    assert len(list(cache.glob("*.json"))) == 2


@pytest.mark.parametrize("value", ["0", "many"])
def test_a_bad_tune_count_is_a_named_error(value):
    p, _ = harris_like(SIZE)
    with pytest.raises(hl.CompileError, match=f"tune={value!r}: give the number"):
        p.apply_autoscheduler(hl.Target("host"), hl.AutoschedulerParams(NAME, {"tune": value}))


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("WEBHAL_AUTOSCHEDULE_CACHE", raising=False)
    monkeypatch.setenv("HL_AUTOSCHEDULE_CACHE", str(tmp_path / "hl"))
    assert tuning.cache_dir() == tmp_path / "hl"
    monkeypatch.delenv("HL_AUTOSCHEDULE_CACHE")
    monkeypatch.setenv("WEBHAL_CACHE_DIR", str(tmp_path / "w"))
    assert tuning.cache_dir() == tmp_path / "w" / "autoschedule"
    monkeypatch.delenv("WEBHAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert tuning.cache_dir() == tmp_path / "x" / "webhal" / "autoschedule"
