"""memoize() and async_() are accepted and change no result; Halide's warnings: a bound on an
inlined Func, and a Python float that loses precision as a float32."""

import warnings

import numpy as np
import pytest

import webhal as hl

x = hl.Var("x")
REFERENCE = hl.Target("reference")


@pytest.mark.parametrize("target", ["reference", "host"])
def test_memoize_and_async_keep_results(target):
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x * 2
    g[x] = f[x] + f[x + 1]
    assert f.compute_root().memoize() is f
    assert f.async_() is f
    for _ in range(2):  # a second run computes f again: the same answer
        out = g.realize([5], hl.Target(target))
        np.testing.assert_array_equal(np.asarray(out), 4 * np.arange(5) + 2)


def test_bound_on_an_inlined_func_warns():
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x
    g[x] = f[x] + 1
    f.bound(x, 0, 4)
    with pytest.warns(RuntimeWarning, match="meaningless to bound dimension x of Func f"):
        g.realize([4], REFERENCE)


def test_bound_on_a_computed_func_does_not_warn():
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x
    g[x] = f[x] + 1
    f.bound(x, 0, 4).compute_root()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.realize([4], REFERENCE)


def test_float_losing_precision_warns():
    with pytest.warns(RuntimeWarning, match="loses precision"):  # Halide's category
        hl.f32(x) * 1.1
