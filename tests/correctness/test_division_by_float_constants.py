"""A float32/float64 division by a constant is a multiplication by the constant's reciprocal
(1/c rounded to the type), as Halide's simplifier rewrites `x / c` (its lowered statement shows
`x * 0.333333f`; its JIT's values are x * (1/c) bit for bit, not x / c). The reference, the host
and wasm all give x * (1/c); strict_float targets divide, as Halide's do. Divisors whose
reciprocal is not finite (0, inf, float32 subnormals) still divide."""

from __future__ import annotations

import numpy as np
import pytest

import webhal as hl
from tests.correctness.conftest import _require_target, realize
from tests.halide_peer import require

halide, = require("halide")

N = 1003  # a vector body and a scalar tail
DIVISORS = [3.0, 7.0, 65535.0, 0.1, 3e38]


def _values(dtype) -> np.ndarray:
    rng = np.random.default_rng(4)
    return np.concatenate([rng.uniform(-1e6, 1e6, N // 3), rng.uniform(0, 1, N // 3),
                           rng.uniform(0, 65535, N - 2 * (N // 3))]).astype(dtype)


def _pipeline(lib, a: np.ndarray, c: float, t):
    x = lib.Var("x")
    f = lib.Func("f")
    f[x] = lib.Buffer(a)[x] / lib.cast(t, lib.f64(c))
    f.vectorize(x, 8)
    return f


def _type(lib, dtype):
    return lib.Float(np.dtype(dtype).itemsize * 8)


def _reciprocal_product(a, c):
    return a * (a.dtype.type(1) / a.dtype.type(c))


# For these float64 divisors every product equals its quotient on these values, so the other
# tests could not tell a division from a multiplication there; they are left out of this check.
SAME_IN_F64 = (65535.0, 3e38)


@pytest.mark.parametrize("dtype, c", [(np.float32, c) for c in DIVISORS] +
                         [(np.float64, c) for c in DIVISORS if c not in SAME_IN_F64],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_operands_tell_product_from_quotient(dtype, c):
    a = _values(dtype)
    assert np.count_nonzero(_reciprocal_product(a, c) != a / a.dtype.type(c)) > 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("c", DIVISORS)
@pytest.mark.parametrize("target", ["reference", "host", "wasm-32-wasmrt",
                                    "wasm-32-wasmrt-wasm_simd128"])
def test_product_by_the_reciprocal(request, target, dtype, c):
    _require_target(request, target)
    a = _values(dtype)
    got = realize(_pipeline(hl, a, c, _type(hl, dtype)), [N], target)[0]
    assert np.array_equal(got, _reciprocal_product(a, c))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("c", [3.0, 65535.0])
def test_host_equals_halide(dtype, c):
    a = _values(dtype)
    got = np.asarray(_pipeline(hl, a, c, _type(hl, dtype)).realize([N], hl.Target("host")))
    theirs = np.asarray(_pipeline(halide, a, c, _type(halide, dtype)).realize(
        [N], halide.get_jit_target_from_environment()))
    assert np.array_equal(theirs, _reciprocal_product(a, c)), "Halide's JIT divides here"
    assert np.array_equal(got, theirs)


@pytest.mark.parametrize("c", [3.0, 65535.0])
def test_strict_float_divides(c):
    a = _values(np.float32)
    t = "x86-64-linux-sse41-strict_float"
    got = np.asarray(_pipeline(hl, a, c, hl.Float(32)).realize([N], hl.Target(t)))
    theirs = np.asarray(_pipeline(halide, a, c, halide.Float(32)).realize(
        [N], halide.Target(t + "-jit")))
    assert np.array_equal(got, a / np.float32(c))
    assert np.array_equal(got, theirs)


@pytest.mark.parametrize("c", [0.0, float("inf"), 1e-40])
@pytest.mark.parametrize("target", ["reference", "host", "wasm-32-wasmrt-wasm_simd128"])
def test_no_finite_reciprocal_divides(request, target, c):
    _require_target(request, target)
    a = _values(np.float32)
    got = realize(_pipeline(hl, a, c, hl.Float(32)), [N], target)[0]
    with np.errstate(all="ignore"):
        want = a / np.float32(c)
    assert np.array_equal(got, want, equal_nan=True)
