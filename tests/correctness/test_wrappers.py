"""Func.in_(g), Func.in_() and Func.clone_in(g): consumers read a wrapper or a clone, each
scheduled on its own, with the same results on every target."""

import re

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y, xi, yi = hl.Var("x"), hl.Var("y"), hl.Var("xi"), hl.Var("yi")


def test_wrapper_for_one_consumer(target):
    f, g, h = hl.Func("f"), hl.Func("g"), hl.Func("h")
    f[x, y] = x + 10 * y
    g[x, y] = f[x, y] * 2
    h[x, y] = f[x, y] + g[x, y]
    w = f.in_(g)
    assert w.name() == "f_in_g" and f.in_(g).name() == "f_in_g"
    g.compute_root().tile(x, y, x, y, xi, yi, 8, 4)
    w.compute_at(g, x).vectorize(x, 4)  # a tile's copy, as in Halide's lesson 19
    f.compute_root()
    xs, ys = np.meshgrid(np.arange(37), np.arange(23), indexing="ij")
    check(h, [37, 23], target, expected=(3 * (xs + 10 * ys)).astype(np.int32))


def test_global_wrapper(target):
    a, b = hl.Func("a"), hl.Func("b")
    a[x] = x * 3
    b[x] = a[x] + a[x + 1]
    w = a.in_()
    assert w.name() == "a_global_wrapper"
    a.compute_root()
    w.compute_root().vectorize(x, 8)
    text = hl.Pipeline(b).loop_nest()
    assert "produce a_global_wrapper" in text
    check(b, [37], target, expected=(6 * np.arange(37) + 3).astype(np.int32))


def test_clone_for_one_consumer(target):
    c, d1, d2 = hl.Func("c"), hl.Func("d1"), hl.Func("d2")
    c[x] = x + 1
    d1[x] = c[x] * 2
    d2[x] = c[x] + d1[x]
    clone = c.clone_in(d2)
    assert clone.name() == "c_clone_in_d2"
    clone.compute_root()
    d1.compute_root()
    c.compute_at(d1, x)
    text = hl.Pipeline(d2).loop_nest()
    assert "produce c_clone_in_d2" in text and "produce c:" in text
    check(d2, [37], target, expected=(3 * (np.arange(37) + 1)).astype(np.int32))


@pytest.mark.halide
def test_names_as_in_halide():
    halide = pytest.importorskip("halide")
    for lib in (halide, hl):
        v = lib.Var("v")
        f, f2, g = lib.Func("p"), lib.Func("p2"), lib.Func("q")
        f[v] = v
        f2[v] = v
        g[v] = f[v] + f2[v]
        names = (f.in_(g).name(), f2.clone_in(g).name())
        # Halide adds $<n> to make names unique
        assert [re.sub(r"\$\d+", "", n) for n in names] == ["p_in_q", "p2_clone_in_q"]


def test_one_wrapper_for_a_list_of_consumers(target):
    f, g, h, out = hl.Func("f"), hl.Func("g"), hl.Func("h"), hl.Func("out")
    f[x] = x * 5
    g[x] = f[x] + 1
    h[x] = f[x] - 1
    out[x] = g[x] * h[x]
    w = f.in_([g, h])
    assert w.name() == "f_wrapper" and f.in_([h, g]).name() == "f_wrapper"  # Halide's name
    with pytest.raises(hl.CompileError, match="already shared"):
        f.in_(h)  # h shares its wrapper with g: Halide refuses a wrapper of its own
    f.compute_root()
    w.compute_root()
    text = hl.Pipeline(out).loop_nest()
    assert text.count("produce f_wrapper") == 1
    v = np.arange(37) * 5
    check(out, [37], target, expected=((v + 1) * (v - 1)).astype(np.int32))
