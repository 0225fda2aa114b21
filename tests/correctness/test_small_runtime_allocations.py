"""Intermediates whose size is known only at run time: on the stack when small (released when
their loop iteration ends), on the heap when large, nested ones on the heap, in serial and
parallel loops; the same compiled pipeline takes both paths as the size changes."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")


def _row_sums(width_of_row: hl.Param):
    """out(x, y) = row(x) + row(x + n - 1) with row computed per y over n + width elements."""
    row = hl.Func("row")
    row[x, y] = hl.i32(x) * 3 - y
    out = hl.Func("out")
    out[x, y] = row[x, y] + row[x + width_of_row - 1, y]
    row.compute_at(out, y)
    return out, row


def _expected(width: int, height: int, n: int) -> np.ndarray:
    xs, ys = np.meshgrid(np.arange(width), np.arange(height), indexing="ij")
    return (xs * 3 - ys + (xs + n - 1) * 3 - ys).astype(np.int32)


def test_one_allocation_per_row_is_released_each_row(target):
    """4000 rows of an 8 KB row buffer: 32 MB if each row's stack allocation outlived its row,
    more than any thread's stack."""
    n = hl.Param(hl.Int(32), "n", 2000)
    out, _ = _row_sums(n)
    check(out, [8, 4000], target, expected=_expected(8, 4000, 2000))


@pytest.mark.parametrize("n", [1, 100, 4090, 4100, 20000])  # 4 B lanes: the limit is 16 KB
def test_the_same_pipeline_below_and_above_the_stack_limit(target, n):
    width = hl.Param(hl.Int(32), "n", n)
    out, _ = _row_sums(width)
    check(out, [5, 6], target, expected=_expected(5, 6, n))


def test_nested_runtime_sizes(target):
    """A per-row buffer inside another: both on the stack while their sizes add up to the
    limit (16 KB), the inner one on the heap past it; both give the right values."""
    out, expected = _nested(300, parallel=False)
    check(out, [7, 9], target, expected=expected)


def _nested(n: int, parallel: bool = True):
    width = hl.Param(hl.Int(32), "n", n)  # sizes known at run time only
    inner = hl.Func("inner")
    inner[x, y] = hl.i32(x) ^ y
    outer = hl.Func("outer")
    outer[x, y] = inner[x, y] + inner[x + width, y]
    out = hl.Func("out")
    out[x, y] = outer[x, y] - outer[x + width, y]
    outer.compute_at(out, y)
    inner.compute_at(outer, y)
    if parallel:
        out.parallel(y)
    xs, ys = np.meshgrid(np.arange(7), np.arange(9), indexing="ij")
    f = lambda i: (i ^ ys) + ((i + n) ^ ys)  # noqa: E731
    return out, (f(xs) - f(xs + n)).astype(np.int32)


@pytest.mark.parametrize("n,heap", [(300, 0), (1500, 9)])
def test_nested_runtime_sizes_share_the_stack_limit(monkeypatch, n, heap):
    """The inner buffer of each row (as a strip's second buffer of a sliding window: the Sobel
    autoschedule's smooth_v inside wide) costs no halide_malloc while the two fit in 16 KB
    together (n = 300: 1.2 + 2.4 KB), and goes to the heap past it (n = 1500: 6 + 12 KB), once
    for each of the 9 rows. Before, every nested one went to the heap (n = 300: 9 mallocs)."""
    from webhal.runtime import wasm_memory
    calls = []
    real = wasm_memory.WasmHeap.malloc
    monkeypatch.setattr(wasm_memory.WasmHeap, "malloc",
                        lambda self, size: calls.append(size) or real(self, size))
    out, expected = _nested(n)
    got = np.asarray(out.realize([7, 9], hl.Target("wasm-32-wasmrt-wasm_simd128")))
    np.testing.assert_array_equal(got.T if got.shape != expected.shape else got, expected)
    assert len([c for c in calls if 1000 < c < 64 * 1024]) == heap, calls


@pytest.mark.parametrize("n,asked", [(300, 0), (1500, 9)])
def test_free_stack_is_asked_only_past_the_limit(monkeypatch, n, asked):
    """emscripten_stack_get_free (an import: in wasmtime a call into Python) is asked only for
    an allocation past STACK_LIMIT: asked for every one, a row buffer computed per row ran 8x
    slower in wasmtime (0.77 -> 6.0-6.4 ms for a blur's)."""
    from collections import OrderedDict

    from webhal import jit
    from webhal.runners import wasmtime as runner
    monkeypatch.setattr(jit, "_CACHE", OrderedDict())  # an instance of its own, counted
    calls = []
    real = runner.WasmPipeline._import

    def counted(self, name):
        f = real(self, name)
        if name != "emscripten_stack_get_free":
            return f
        return lambda *a: calls.append(name) or f(*a)
    monkeypatch.setattr(runner.WasmPipeline, "_import", counted)
    out, expected = _nested(n)
    got = np.asarray(out.realize([7, 9], hl.Target("wasm-32-wasmrt-wasm_simd128")))
    np.testing.assert_array_equal(got.T if got.shape != expected.shape else got, expected)
    assert len(calls) == asked


def test_parallel_rows_each_on_their_own_stack(target):
    n = hl.Param(hl.Int(32), "n", 1500)
    out, _ = _row_sums(n)
    out.parallel(y)
    check(out, [16, 64], target, expected=_expected(16, 64, 1500))


def test_vectorized_producer_per_tile_of_a_parallel_loop(target):
    """Halide's blur schedule on a width known at run time: a folded row buffer per strip."""
    inp = hl.ImageParam(hl.UInt(16), 2, "inp")
    yi = hl.Var("yi")
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3
    blur_y.split(y, y, yi, 8).parallel(y).vectorize(x, 8)
    blur_x.store_at(blur_y, y).compute_at(blur_y, yi).vectorize(x, 8)
    rng = np.random.default_rng(7)
    data = rng.integers(0, 65536, size=(50, 402), dtype=np.uint16)
    inp.set(hl.Buffer(data))
    a = data.astype(np.int64)
    bx = ((a[:, :-2] + a[:, 1:-1] + a[:, 2:]) % 65536) // 3
    by = ((bx[:-2] + bx[1:-1] + bx[2:]) % 65536) // 3
    check(blur_y, [400, 48], target, expected=by.T.astype(np.uint16))
