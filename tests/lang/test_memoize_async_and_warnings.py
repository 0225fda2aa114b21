"""memoize() and async_() are accepted and change no result; Halide's warnings: a bound on an
inlined Func and an update left unscheduled (on stdout, in Halide's words), and a Python float
that loses precision as a float32 (a RuntimeWarning)."""

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


def test_bound_on_an_inlined_func_warns(capsys):
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x
    g[x] = f[x] + 1
    f.bound(x, 0, 4)
    g.realize([4], REFERENCE)
    # Halide's words, on stdout, where Halide's Python bindings print them
    assert capsys.readouterr().out == (
        "Warning: It is meaningless to bound dimension x of function f to be within [0, 4] "
        "because the function is scheduled inline.\n")


def test_bound_on_a_computed_func_does_not_warn(capsys):
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x
    g[x] = f[x] + 1
    f.bound(x, 0, 4).compute_root()
    g.realize([4], REFERENCE)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("suppress", [False, True])
def test_an_update_left_unscheduled_warns(capsys, suppress):
    f = hl.Func("f")
    f[x] = 0
    f[x] += 5
    f.vectorize(x, 8)
    if suppress:
        assert f.update(0).unscheduled() is not None
    f.realize([16], hl.Target("host"))
    out = capsys.readouterr().out
    if suppress:
        assert out == ""
    else:
        assert out == ("Warning: Update definition 0 of function f has not been scheduled, even "
                       "though some other definitions have been. You may have forgotten to "
                       "schedule it. If this was intentional, call f.update(0).unscheduled() "
                       "to suppress this warning.\n")


def test_scheduled_updates_do_not_warn(capsys):
    f = hl.Func("f")
    f[x] = 0
    f[x] += 5
    f.vectorize(x, 8)
    f.update(0).vectorize(x, 8)
    f.realize([16], REFERENCE)
    assert capsys.readouterr().out == ""


def test_float_losing_precision_warns():
    with pytest.warns(RuntimeWarning, match="loses precision"):  # Halide's category
        hl.f32(x) * 1.1
