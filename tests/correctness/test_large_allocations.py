"""Intermediates too large for the stack (heap allocation through halide_malloc/halide_free),
inside serial and parallel loops, and an output of a few hundred thousand elements."""

import numpy as np

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")


def test_heap_intermediate_at_root(target):
    big = hl.Func("big")
    big[x, y] = hl.f64(x) * 0.5 + hl.f64(y)
    out = hl.Func("out")
    out[x, y] = hl.f32(big[x, y] + big[x + 1, y + 1])
    big.compute_root()
    xs, ys = np.meshgrid(np.arange(300), np.arange(40), indexing="ij")
    expected = (xs * 0.5 + ys + (xs + 1) * 0.5 + ys + 1).astype(np.float32)
    check(out, [300, 40], target, expected=expected)


def test_heap_intermediate_per_parallel_row(target):
    row = hl.Func("row")
    row[x, y] = hl.i64(x) * y
    out = hl.Func("out")
    out[x, y] = row[x, y] - row[x + 2100, y]
    row.compute_at(out, y)  # 2200 int64 per row: 17 KB, on the heap in every task
    out.parallel(y)
    xs, ys = np.meshgrid(np.arange(100), np.arange(6), indexing="ij")
    check(out, [100, 6], target, expected=(xs * ys - (xs + 2100) * ys).astype(np.int64))


def test_large_output(target):
    f = hl.Func("f")
    f[x, y] = hl.u8(x ^ y)
    f.vectorize(x, 16).parallel(y)
    xs, ys = np.meshgrid(np.arange(640), np.arange(480), indexing="ij")
    check(f, [640, 480], target, expected=(xs ^ ys).astype(np.uint8))
