"""Where and how intermediates are stored: reorder_storage (y innermost in memory), store_in
each CPU memory type, read by vectorized and scalar consumers."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")


def _pair(name="g"):
    g = hl.Func(name)
    g[x, y] = x * 7 - y * y
    out = hl.Func("out_" + name)
    out[x, y] = g[x, y] + g[x + 1, y + 1] * 2
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    return g, out, (xs * 7 - ys * ys) + ((xs + 1) * 7 - (ys + 1) ** 2) * 2


def test_reorder_storage_at_root(target):
    g, out, expected = _pair()
    g.compute_root().reorder_storage(y, x)
    check(out, [W, H], target, expected=expected)


def test_reorder_storage_vectorized(target):
    g, out, expected = _pair()
    g.compute_root().reorder_storage(y, x).vectorize(x, 4)
    out.vectorize(x, 8)
    check(out, [W, H], target, expected=expected)


def test_reorder_storage_three_dimensions_at_rows(target):
    g = hl.Func("g")
    g[x, y, c] = x + 100 * y + 10000 * c
    out = hl.Func("out")
    out[x, y, c] = g[x, y, c] - g[x, y, 2 - c]
    g.compute_at(out, y).reorder_storage(c, x, y)
    xs, ys, cs = np.meshgrid(np.arange(9), np.arange(5), np.arange(3), indexing="ij")
    check(out, [9, 5, 3], target, expected=10000 * cs - 10000 * (2 - cs))


@pytest.mark.parametrize("memory", [hl.MemoryType.Auto, hl.MemoryType.Heap,
                                    hl.MemoryType.Stack], ids=lambda m: m.name)
def test_store_in(target, memory):
    g, out, expected = _pair()
    g.compute_at(out, y).store_in(memory)
    check(out, [W, H], target, expected=expected)
