"""select (two-way and chained, scalar and vector conditions, with side-effect-free reads out of
range in the unused branch) and clamp, for integer and float types."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def test_clamp(target):
    funcs, expected = [], []
    for dtype in (np.uint8, np.int16, np.int32, np.float32, np.float64):
        name = np.dtype(dtype).name
        a = ramp_image(dtype, seed=141)
        A = hl.Buffer(a, f"a_{name}")
        t = A.type()
        f = hl.Func(f"clamped_{name}")
        f[x, y] = hl.clamp(A[x, y], hl.cast(t, 10), hl.cast(t, 100))
        f.vectorize(x, 8)
        funcs.append(f)
        expected.append(np.clip(a, 10, 100).astype(dtype).T)
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


def test_clamped_coordinates(target):
    a = ramp_image(np.int32, seed=142)
    A = hl.Buffer(a, "a")
    f = hl.Func("f")
    f[x, y] = A[hl.clamp(x * 2 - 10, 0, W - 1), hl.clamp(y - x, 0, H - 1)]
    f.vectorize(x, 4)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(f, [W, H], target,
          expected=a.T[np.clip(xs * 2 - 10, 0, W - 1), np.clip(ys - xs, 0, H - 1)])


def test_chained_select(target):
    f = hl.Func("f")
    f[x, y] = hl.select(x < 5, 1, x < 10, y * 2, (x + y) % 3 == 0, -x, 100)
    f.vectorize(x, 8)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    expected = np.where(xs < 5, 1, np.where(xs < 10, ys * 2,
                                            np.where((xs + ys) % 3 == 0, -xs, 100)))
    check(f, [W, H], target, expected=expected.astype(np.int32))


def test_select_with_scalar_condition_in_vector_loop(target):
    a = ramp_image(np.float32, seed=143)
    A = hl.Buffer(a, "a")
    f = hl.Func("f")
    f[x, y] = hl.select(y % 2 == 0, A[x, y], -A[x, y]) + hl.select(A[x, y] > 0, 1.0, -1.0)
    f.vectorize(x, 4)
    sign = np.where(np.arange(H) % 2 == 0, 1, -1)[:, None]
    expected = (a * sign + np.where(a > 0, 1, -1)).astype(np.float32)
    check(f, [W, H], target, expected=expected.T)


def test_mux(target):
    f = hl.Func("f")
    f[x] = hl.mux(x % 5, [10, 20, 30, x])
    xs = np.arange(W)
    table = np.array([10, 20, 30])
    expected = np.where(xs % 5 < 3, table[np.minimum(xs % 5, 2)], xs)
    check(f, [W], target, expected=expected.astype(np.int32))


def test_func_read_only_on_the_untaken_side(target):
    g = hl.Func("g")
    g[x, y] = x * 2 + y
    f = hl.Func("f")
    f[x, y] = hl.select(x < 1000, x - y, g[x, y])
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(f, [W, H], target, expected=xs - ys)
