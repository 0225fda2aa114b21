"""Vectorized shifts of 8- and 16-bit lanes by an amount per lane that the compiler can bound
(computed from x, so LLVM knows it is below the lane width): wasm SIMD must not hand LLVM a
narrow lane-wise shift, which it splits per lane with the lanes extended the wrong way (a
constant u16(65534) >> 1 gave 65535). Expected values from numpy; the Halide test compares with
PyPI halide."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x = hl.Var("x")
N = 32
X = np.arange(N)


def _shift(a, n, left: bool, dtype):
    """Halide's shift of a (Python ints) by n: a negative amount shifts the other way; the
    result wraps to dtype."""
    a, n = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(n, np.int64))
    go_left = (n >= 0) == left
    out = np.where(go_left, a << np.abs(n), a >> np.abs(n))
    return out.astype(dtype)


def _cases(m):
    """(name, expression in module m, expected) for each shift."""
    v = m.Var("x")
    return v, [
        ("const_u16_right", m.u16(65534) >> m.u16(v % 4),
         _shift(65534, X % 4, False, np.uint16)),
        ("const_u8_right", m.u8(254) >> m.u8(v % 8),
         _shift(254, X % 8, False, np.uint8)),
        ("const_u16_left_signed", m.u16(65534) << m.i16(v % 8 - 4),
         _shift(65534, X % 8 - 4, True, np.uint16)),
        ("u8_of_u16_right", m.u8(m.u16(v * 4000 + 240)) >> m.u8(v % 3),
         _shift((X * 4000 + 240) % 65536 % 256, X % 3, False, np.uint8)),
        ("u8_of_u16_left_signed", m.u8(m.u16(v * 4000 + 240)) << m.i8(v % 5 - 2),
         _shift((X * 4000 + 240) % 65536 % 256, X % 5 - 2, True, np.uint8)),
        ("const_i8_right_signed", m.i8(-100) >> m.i8(v % 8 - 4),
         _shift(-100, X % 8 - 4, False, np.int8)),
        ("i16_right", m.i16(v - 30000) >> m.u16(v % 16),
         _shift(X - 30000, X % 16, False, np.int16)),
    ]


@pytest.mark.parametrize("lanes", [8, 16])
def test_shifts_by_computed_lane_amounts(target, lanes):
    v, cases = _cases(hl)
    funcs, expected = [], []
    for name, value, want in cases:
        f = hl.Func(f"{name}_{lanes}")
        f[v] = value
        f.vectorize(v, lanes)
        funcs.append(f)
        expected.append(want)
    check(hl.Pipeline(funcs), [N], target, expected=expected)


@pytest.mark.halide
def test_the_same_shifts_in_halide():
    halide = pytest.importorskip("halide")
    v, cases = _cases(halide)
    for name, value, want in cases:
        f = halide.Func(name)
        f[v] = value
        f.vectorize(v, 16)
        np.testing.assert_array_equal(np.asarray(f.realize([N])), want, err_msg=name)


def test_shifts_by_computed_lane_amounts_on_webgpu(wgpu_adapter):
    v, cases = _cases(hl)
    xo, xi = hl.Var("xo"), hl.Var("xi")
    funcs, expected = [], []
    for name, value, want in cases:
        f = hl.Func(f"{name}_gpu")
        f[v] = value
        f.gpu_tile(v, xo, xi, 16)
        funcs.append(f)
        expected.append(want)
    check(hl.Pipeline(funcs), [N], "host-webgpu", expected=expected)
