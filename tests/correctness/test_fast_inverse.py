"""hl.fast_inverse and hl.fast_inverse_sqrt (Halide's names): 1/x and 1/sqrt(x) of float32 on
every target, within Halide's own approximation's error (webhal divides exactly); other types
are refused as in Halide."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check


def test_fast_inverse(target):
    x = hl.Var("x")
    f, g = hl.Func("inv"), hl.Func("inv_sqrt")
    f[x] = hl.fast_inverse(hl.f32(x) + 0.5)
    g[x] = hl.fast_inverse_sqrt(hl.f32(x) + 0.5)
    f.vectorize(x, 8)
    v = np.arange(37, dtype=np.float32) + np.float32(0.5)
    check(f, [37], target, rtol=1e-6, expected=np.float32(1) / v)
    check(g, [37], target, rtol=1e-6, expected=np.float32(1) / np.sqrt(v))


def test_fast_inverse_of_float64_is_refused():
    with pytest.raises(hl.CompileError, match="fast_inverse takes float16 or float32"):
        hl.fast_inverse(hl.f64(hl.Var("x")))
