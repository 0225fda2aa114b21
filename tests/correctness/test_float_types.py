"""Float arithmetic in float32, float64 and float16: add/sub/mul/div, min/max, comparisons,
floor/ceil/round/trunc, NaN and infinity handling, scalar and vectorized."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")
FLOATS = with_slow([np.float32], [np.float64])


def _inputs(dtype):
    a, b = ramp_image(dtype, seed=81), ramp_image(dtype, seed=82)
    a.reshape(-1)[:4] = [np.inf, -np.inf, np.nan, -0.0]
    b.reshape(-1)[:4] = [1.0, np.inf, 2.0, 0.0]
    return a, b, hl.Buffer(a, "a"), hl.Buffer(b, "b")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_arithmetic(target, dtype):
    a, b, A, B = _inputs(dtype)
    f = hl.Func("arith")
    f[x, y] = (A[x, y] * B[x, y] - A[x, y] / B[x, y]) + (A[x, y] + 1.5) * 0.25
    g = hl.Func("arith_vec")
    g[x, y] = f[x, y]
    g.vectorize(x, 4)
    with np.errstate(all="ignore"):
        expected = ((a * b - a / b) + (a + dtype(1.5)) * dtype(0.25)).astype(dtype).T
    check(hl.Pipeline([f, g]), [W, H], target, expected=[expected, expected])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_min_max_compare_and_rounding(target, dtype):
    a, b, A, B = _inputs(dtype)
    f = hl.Func("mix")
    t = A.type()
    f[x, y] = hl.select(A[x, y] < B[x, y], hl.floor(A[x, y]), hl.ceil(B[x, y])) + \
        hl.round(A[x, y] * 0.5) + hl.trunc(B[x, y] * hl.cast(t, 0.3)) + \
        hl.min(A[x, y], B[x, y]) - hl.max(A[x, y], 0.5)
    f.vectorize(x, 8)
    with np.errstate(all="ignore"):
        expected = (np.where(a < b, np.floor(a), np.ceil(b)) + np.round(a * dtype(0.5)) +
                    np.trunc(b * dtype(0.3)) + np.minimum(a, b) - np.maximum(a, dtype(0.5)))
    check(f, [W, H], target, expected=expected.astype(dtype).T)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_classification(target, dtype):
    a, b, A, B = _inputs(dtype)
    f = hl.Func("classes")
    f[x, y] = hl.u8(hl.is_nan(A[x, y])) + hl.u8(hl.is_inf(A[x, y])) * 2 + \
        hl.u8(hl.is_finite(A[x, y] / B[x, y])) * 4
    f.vectorize(x, 4)
    with np.errstate(all="ignore"):
        expected = (np.isnan(a) + np.isinf(a) * 2 + np.isfinite(a / b) * 4).astype(np.uint8)
    check(f, [W, H], target, expected=expected.T)


def test_float16(target):
    data = (ramp_image(np.float32, seed=83) / 50).astype(np.float16)
    image = hl.Buffer(data, "halves")
    f = hl.Func("half")
    f[x, y] = image[x, y] * hl.f16(2.0) + hl.f16(x) * hl.f16(0.125)
    g = hl.Func("as_float")
    g[x, y] = hl.f32(f[x, y]) + hl.f32(image[x, y])
    f.compute_root().vectorize(x, 8)
    xs = (np.arange(W, dtype=np.float16) * np.float16(0.125))[None, :]
    fv = (data * np.float16(2.0) + xs).astype(np.float16)
    check(f, [W, H], target, expected=fv.T)
    check(g, [W, H], target, expected=(fv.astype(np.float32) + data.astype(np.float32)).T)


def test_float64_precision(target):
    f = hl.Func("precise")
    f[x] = hl.f64(x) * hl.f64(1e-10) + hl.f64(1.0)
    check(f, [W], target, expected=np.arange(W) * 1e-10 + 1.0)


@pytest.mark.parametrize("vectorized", [False, True], ids=["scalar", "vectorized"])
def test_min_max_nan_rule(target, vectorized):
    """Float min(a, b) is b < a ? b : a and max(a, b) is a < b ? b : a: a NaN first operand comes
    through, a NaN second operand is passed over; so clamp(NaN, lo, hi) is NaN and a saturating
    cast of NaN is 0."""
    nan = np.float32(np.nan)
    a = np.array([nan, 1, nan, 2, -1, 5, nan, 0.5], np.float32)
    b = np.array([1, nan, nan, 3, -2, 4, 0, nan], np.float32)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    lo, hi, clamped, saturated = (hl.Func(n) for n in ("lo", "hi", "clamped", "saturated"))
    lo[x] = hl.min(A[x], B[x])
    hi[x] = hl.max(A[x], B[x])
    clamped[x] = hl.clamp(A[x], 0.0, 1.0)
    saturated[x] = hl.saturating_cast(hl.Int(8), A[x] * 200.0)
    if vectorized:
        for f in (lo, hi, clamped, saturated):
            f.vectorize(x, 8)
    expected = [np.array([nan, 1, nan, 2, -2, 4, nan, 0.5], np.float32),
                np.array([nan, 1, nan, 3, -1, 5, nan, 0.5], np.float32),
                np.array([nan, 1, nan, 1, 0, 1, nan, 0.5], np.float32),
                np.array([0, 127, 0, 127, -128, 127, 0, 100], np.int8)]
    check(hl.Pipeline([lo, hi, clamped, saturated]), [8], target, expected=expected)
