"""Funcs of one pipeline that share a name (a helper making `hl.Func("downx")` per pyramid
level, as Halide's local Laplacian does): each computes its own values wherever it is
scheduled, and the pipeline tells them apart as name, name$1, ... (Halide renames them as
they are made; docs/semantics.md)."""

from __future__ import annotations

import numpy as np
import pytest

import webhal as hl

X, Y = np.meshgrid(np.arange(4), np.arange(3))  # Y rows, X columns: a realized [4, 3]


def _two_named_f():
    x, y = hl.Var("x"), hl.Var("y")
    a = hl.Func("f")
    a[x, y] = x + y
    b = hl.Func("f")
    b[x, y] = a[x, y] * 2 + a[x + 1, y]
    return x, y, a, b


@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt-wasm_simd128", "reference"])
def test_two_funcs_of_one_name_computed_at_root_keep_their_own_values(target):
    x, y, a, b = _two_named_f()
    out = hl.Func("out")
    out[x, y] = b[x, y] + a[x, y]
    a.compute_root()
    b.compute_root()
    got = np.asarray(out.realize([4, 3], hl.Target(target)))
    np.testing.assert_array_equal(got, (X + Y) * 2 + (X + 1 + Y) + X + Y)
    assert (a.name(), b.name()) == ("f", "f$1")  # producer order: the first keeps the name


def test_fused_funcs_of_one_name_with_an_update():
    x, y, a, b = _two_named_f()
    b[x, y] = b[x, y] + 1  # b's update reads b, now f$1
    out = hl.Func("out")
    out[x, y] = b[x, y] - a[x, y]
    yo, yi = hl.Var("yo"), hl.Var("yi")
    out.split(y, yo, yi, 2)
    a.compute_at(out, yo)
    b.compute_at(out, yi).store_at(out, yo)
    got = np.asarray(out.realize([4, 3], hl.Target("host")))
    np.testing.assert_array_equal(got, (X + Y) * 2 + (X + 1 + Y) + 1 - (X + Y))


def test_an_output_keeps_its_name_and_its_producer_takes_another():
    x = hl.Var("x")
    inner = hl.Func("g")
    inner[x] = x * 3
    out = hl.Func("g")
    out[x] = inner[x] + 1
    inner.compute_root()
    p = hl.Pipeline(out)
    np.testing.assert_array_equal(np.asarray(p.realize([5], hl.Target("host"))),
                                  np.arange(5) * 3 + 1)
    assert (out.name(), inner.name()) == ("g", "g$1")
    assert [f.name for f in p.functions()] == ["g$1", "g"]


def test_a_renamed_func_does_not_take_a_name_in_use():
    x = hl.Var("x")
    taken = hl.Func("h$1")
    taken[x] = x
    first = hl.Func("h")
    first[x] = taken[x] + 10
    second = hl.Func("h")
    second[x] = first[x] * 2
    for f in (taken, first):
        f.compute_root()
    np.testing.assert_array_equal(np.asarray(second.realize([4], hl.Target("host"))),
                                  (np.arange(4) + 10) * 2)
    assert sorted(f.name() for f in (taken, first, second)) == ["h", "h$1", "h$2"]
