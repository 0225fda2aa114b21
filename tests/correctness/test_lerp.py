"""lerp for integer values (unsigned and float weights, rounding to nearest) and float values."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")


@pytest.mark.parametrize("dtype", with_slow([np.uint8, np.int32],
                                             [np.int8, np.uint16, np.int16, np.uint32]),
                         ids=lambda d: np.dtype(d).name)
def test_integer_values_unsigned_weight(target, dtype):
    a, b = ramp_image(dtype, seed=121), ramp_image(dtype, seed=122)
    bits = np.dtype(dtype).itemsize * 8
    weight_dtype = np.dtype(f"uint{bits}")
    w = ramp_image(weight_dtype, seed=123)
    A, B, Wt = hl.Buffer(a, "a"), hl.Buffer(b, "b"), hl.Buffer(w, "w")
    f = hl.Func("lerp")
    f[x, y] = hl.lerp(A[x, y], B[x, y], Wt[x, y])
    f.vectorize(x, 8)
    scale = (1 << bits) - 1
    bias = 1 << (bits - 1) if np.dtype(dtype).kind == "i" else 0
    zo, oo, wo = a.astype(object) + bias, b.astype(object) + bias, w.astype(object)
    num = zo * (scale - wo) + oo * wo
    res = (num * 2 + scale) // (2 * scale) - bias
    check(f, [W, H], target, expected=res.astype(np.int64).astype(dtype).T)


def test_u8_values_u8_weight_and_float_weight(target):
    a, b = ramp_image(np.uint8, seed=124), ramp_image(np.uint8, seed=125)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    f = hl.Func("by_u8")
    f[x, y] = hl.lerp(A[x, y], B[x, y], hl.u8(x * 7))
    g = hl.Func("by_float")
    g[x, y] = hl.lerp(A[x, y], B[x, y], hl.f32(x) / 36.0)
    h = hl.Func("by_u16")
    h[x, y] = hl.lerp(A[x, y], B[x, y], hl.u16(x * 1800))
    g.vectorize(x, 4)
    check(hl.Pipeline([f, g, h]), [W, H], target)


def test_float_values(target):
    a, b = ramp_image(np.float32, seed=126), ramp_image(np.float32, seed=127)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    f = hl.Func("flerp")
    f[x, y] = hl.lerp(A[x, y], B[x, y], hl.f32(x) / 36.0)
    f.vectorize(x, 8)
    w = (np.arange(W, dtype=np.float32) / np.float32(36.0))[None, :]
    expected = (a * (np.float32(1) - w) + b * w).astype(np.float32)
    check(f, [W, H], target, rtol=1e-5, atol=1e-4, expected=expected.T)


def test_float_values_unsigned_weight(target):
    a, b = ramp_image(np.float32, seed=128), ramp_image(np.float32, seed=129)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    f = hl.Func("flerp_u8")
    f[x, y] = hl.lerp(A[x, y], B[x, y], hl.u8(x * 7))
    w = ((np.arange(W) * 7) % 256).astype(np.float32)[None, :] / np.float32(255)
    expected = (a * (np.float32(1) - w) + b * w).astype(np.float32)
    check(f, [W, H], target, rtol=1e-5, atol=1e-4, expected=expected.T)
