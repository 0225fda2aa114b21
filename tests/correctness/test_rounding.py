"""Rounding at the halfway points (round goes to even), floor/ceil/trunc/fract of negative and
integral values, and float-to-int conversions of them."""

import numpy as np

import webhal as hl

from .conftest import check

x = hl.Var("x")
VALUES = np.array([-3.5, -2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 3.5, -2.0, 2.0, -1.25, 1.75,
                   -0.75, 1e-8, -1e-8, 8388607.5, -8388607.5], np.float32)


def test_rounding_functions(target):
    image = hl.Buffer(VALUES, "values")
    funcs = {name: hl.Func(name) for name in ("rnd", "flr", "cel", "trn", "frac", "to_int")}
    funcs["rnd"][x] = hl.round(image[x])
    funcs["flr"][x] = hl.floor(image[x])
    funcs["cel"][x] = hl.ceil(image[x])
    funcs["trn"][x] = hl.trunc(image[x])
    funcs["frac"][x] = hl.fract(image[x])
    funcs["to_int"][x] = hl.i32(image[x]) * 10 + hl.i32(hl.round(image[x]))
    funcs["rnd"].vectorize(x, 4)
    funcs["frac"].vectorize(x, 8)
    v = VALUES
    expected = [np.round(v), np.floor(v), np.ceil(v), np.trunc(v), v - np.trunc(v),
                np.trunc(v).astype(np.int32) * 10 + np.round(v).astype(np.int32)]
    check(hl.Pipeline(list(funcs.values())), [len(VALUES)], target, expected=expected)


def test_power_by_constant_integers(target):
    # A constant integer exponent multiplies in the base's type; a negative one divides 1 by
    # the power (an integer 1 / 0 is 0), as the reference and Halide do.
    f = hl.Func("f")
    f[x] = hl.pow(x - 3, -1) + hl.pow(x - 3, 3) + hl.i32(hl.pow(hl.f32(x) - 3.0, -2) * 100)
    b = np.arange(8) - 3
    with np.errstate(divide="ignore"):
        inverse_square = (np.float32(1) / (b * b).astype(np.float32)) * np.float32(100)
    inverse_square = np.trunc(inverse_square.astype(np.float64))
    expected = np.where(b == 1, 1, 0) + np.where(b == -1, -1, 0) + b ** 3 + \
        np.where(b == 0, 2 ** 31 - 1, inverse_square).astype(np.int64)  # inf saturates
    check(f, [8], target, expected=expected.astype(np.int32))
