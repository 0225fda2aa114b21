"""The correctness suite's shared helper: every pipeline is realized on the reference evaluator
(the oracle) and on each compiled target, and the outputs are compared.

A test takes the `target` fixture (parametrized over TARGETS) and calls
`check(func_or_pipeline, sizes, target, rtol=...)`. Integer and bool outputs must match bit for
bit; float outputs within `rtol`/`atol` (exactly when both are 0), NaN matching NaN, and on a
target that fuses multiply-adds (fused_multiply_add) within a few ulps of the output's scale
at least, since a fused result is rounded once where the reference rounds twice. On the
`reference` target the reference is compared with `expected` when the test gives an independent
numpy answer, so the oracle itself is checked too.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import webhal as hl
from webhal.target import fuses_multiply_adds

TARGETS = [
    "reference",
    "host",
    "wasm-32-wasmrt-wasm_mvponly",
    "wasm-32-wasmrt",
    "wasm-32-wasmrt-wasm_simd128",
]
COMPILED_TARGETS = TARGETS[1:]
# `make fast` compiles for wasm SIMD alone, the targets' most used variant (and checks the
# reference); the others cost 0.2-0.4 s of CPU a case over some 1,600 cases, so they are slow
# (make test and CI run them).
FAST_TARGETS = {"reference", "wasm-32-wasmrt-wasm_simd128"}


def _marked(targets: list[str]) -> list:
    return [t if t in FAST_TARGETS else pytest.param(t, marks=pytest.mark.slow)
            for t in targets]

# Sizes used across the suite: odd, so that splits and vectors have tails.
W, H = 37, 23

CAMERA = os.path.join(os.path.dirname(__file__), "..", "..", "demos", "images", "camera.png")


def _require_target(request, name: str) -> None:
    # These fixtures (tests/conftest.py) skip with an install hint, or fail under
    # WEBHAL_EXPECT_ALL=1, when a tool is missing; llvmlite is a dependency of webhal itself.
    if name.startswith("wasm"):
        request.getfixturevalue("llvm_wasm")
        request.getfixturevalue("wasm_ld")
        request.getfixturevalue("wasmtime_engine")


@pytest.fixture(params=_marked(TARGETS))
def target(request) -> str:
    """Each target of the matrix, as its target string."""
    _require_target(request, request.param)
    return request.param


@pytest.fixture(params=_marked(COMPILED_TARGETS))
def compiled_target(request) -> str:
    """Each compiled target (for tests whose subject is code generation or its run time)."""
    _require_target(request, request.param)
    return request.param


def with_slow(fast: list, slow: list) -> list:
    """Parameters for pytest.mark.parametrize: `fast` always, `slow` marked slow (they run in
    full runs; `-m "not slow"` leaves them out)."""
    return [*fast, *(pytest.param(v, marks=pytest.mark.slow) for v in slow)]


def _as_pipeline(f) -> hl.Pipeline:
    return f if isinstance(f, hl.Pipeline) else hl.Pipeline(f)


def _output_buffers(pipeline: hl.Pipeline, sizes, mins) -> list[hl.Buffer]:
    out = []
    for f in pipeline.outputs():
        b = hl.Buffer(f.type(), list(sizes))
        if mins is not None:
            b.set_min(list(mins))
        out.append(b)
    return out


def realize(f, sizes, target: str, mins=None) -> list[np.ndarray]:
    """The outputs of realizing f (a Func or Pipeline) on target, as numpy arrays in Halide's
    axis order (x first); with `mins` the outputs start there instead of at 0."""
    pipeline = _as_pipeline(f)
    if mins is None:
        result = pipeline.realize(list(sizes), target)
    else:
        result = pipeline.realize(_output_buffers(pipeline, sizes, mins), target)
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    return [b.data().copy() for b in result]


def assert_same(got: np.ndarray, want: np.ndarray, *, rtol: float = 0.0, atol: float = 0.0,
                what: str = "output") -> None:
    """got == want: bitwise for integers and bools, within rtol/atol for floats (NaN == NaN)."""
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if want.dtype.kind == "f":
        g, w = got.astype(np.float64), want.astype(np.float64)
        bad = ~(np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True) |
                ((g == w) & ~np.isnan(w)))
    else:
        bad = got != want
    if bad.any():
        where = np.argwhere(bad)
        lines = [f"  at {tuple(int(i) for i in p)}: got {got[tuple(p)]!r}, "
                 f"expected {want[tuple(p)]!r}" for p in where[:8]]
        raise AssertionError(f"{what}: {len(where)} of {want.size} values differ "
                             f"(rtol={rtol}, atol={atol}):\n" + "\n".join(lines))


def fused_multiply_add(target: str) -> bool:
    """Whether `target`'s float code may fuse a multiply and an add (as Halide's does)."""
    return fuses_multiply_adds(hl.Target(target))


def fusion_tolerance(want: np.ndarray, rtol: float, atol: float) -> tuple[float, float]:
    if want.dtype.kind != "f" or not want.size:
        return rtol, atol
    eps = float(np.finfo(want.dtype).eps)
    finite = np.abs(want[np.isfinite(want)].astype(np.float64))
    scale = float(finite.max()) if finite.size else 0.0
    return max(rtol, 4 * eps), max(atol, 4 * eps * scale)


def check(f, sizes, target: str, *, rtol: float = 0.0, atol: float = 0.0, expected=None,
          mins=None) -> list[np.ndarray]:
    """Realize f (a Func or Pipeline) over `sizes` on the reference and on `target` and compare.

    `expected` (an array, or a list with one per output, in Halide's axis order) is an
    independent answer the reference must give. Returns target's outputs (x first)."""
    want = realize(f, sizes, "reference", mins)
    if expected is not None:
        expected = expected if isinstance(expected, list) else [expected]
        names = [out.name() for out in _as_pipeline(f).outputs()]
        assert len(expected) == len(want), "one expected array per output"
        for name, w, e in zip(names, want, expected):
            assert_same(w, np.asarray(e, dtype=w.dtype), rtol=rtol, atol=atol,
                        what=f"reference output {name} against numpy")
    if target == "reference":
        return want
    got = realize(f, sizes, target, mins)
    names = [out.name() for out in _as_pipeline(f).outputs()]
    fused = fused_multiply_add(target)
    for name, g, w in zip(names, got, want):
        r, a = fusion_tolerance(w, rtol, atol) if fused else (rtol, atol)
        assert_same(g, w, rtol=r, atol=a, what=f"output {name} on {target}")
    return got


def camera(width: int = W, height: int = H, left: int = 200, top: int = 180) -> np.ndarray:
    """A crop of the cameraman photo (uint8, numpy order: rows first)."""
    from PIL import Image
    with Image.open(CAMERA) as im:
        pixels = np.asarray(im.convert("L"), dtype=np.uint8)
    return np.ascontiguousarray(pixels[top:top + height, left:left + width])


def ramp_image(dtype, width: int = W, height: int = H, seed: int = 0) -> np.ndarray:
    """Deterministic pseudo-random data covering dtype's whole range (numpy order)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, (height, width)).astype(np.bool_)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        data = rng.integers(info.min, info.max, (height, width), dtype=dt, endpoint=True)
        # Make sure the extremes and small values are present.
        flat = data.reshape(-1)
        flat[:6] = [info.min, info.max, 0, 1, info.max - 1, info.min + 1 if info.min else 2]
        return data
    return (rng.standard_normal((height, width)) * 100).astype(dt)
