"""Division and modulo with Halide's semantics: Euclidean (floor for positive divisors) for
signed integers, for negative and zero divisors too (x / 0 == 0, x % 0 == 0), INT_MIN / -1
wrapping, constant divisors (powers of two and others, vectorized), and floats."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")


def _euclid(a, b):
    """Euclidean quotient and remainder; zero divisors give 0 and 0."""
    a, b = a.astype(object), b.astype(object)
    q = np.empty(a.shape, dtype=object)
    r = np.empty(a.shape, dtype=object)
    for i in np.ndindex(a.shape):
        n, d = a[i], b[i]
        if d == 0:
            q[i], r[i] = 0, 0
            continue
        rem = n % abs(d)
        q[i], r[i] = (n - rem) // d, rem
    return q, r


def _wrap(values, dtype):
    bits = np.dtype(dtype).itemsize * 8
    u = np.array([int(v) % (1 << bits) for v in values.reshape(-1)], dtype=object)
    return u.astype(np.uint64).astype(f"uint{bits}").view(dtype).reshape(values.shape)


@pytest.mark.parametrize("dtype", with_slow([np.int8, np.uint64],
                                             [np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                              np.int64]),
                         ids=lambda d: np.dtype(d).name)
def test_by_data(target, dtype):
    a = ramp_image(dtype, seed=91)
    b = ramp_image(dtype, seed=92)
    b.reshape(-1)[6:40:3] = 0  # zero divisors
    if np.dtype(dtype).kind == "i":
        b.reshape(-1)[7:40:5] = -1  # -1 divisors, INT_MIN among the numerators
        b.reshape(-1)[0] = -1
        b.reshape(-1)[1:6] = [-3, 7, -7, 2, -128]
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    f = hl.Func("quot")
    f[x, y] = A[x, y] / B[x, y]
    g = hl.Func("rem")
    g[x, y] = A[x, y] % B[x, y]
    g.vectorize(x, 8)
    q, r = _euclid(a, b)
    check(hl.Pipeline([f, g]), [W, H], target, expected=[_wrap(q, dtype).T, _wrap(r, dtype).T])


def test_by_constants_int32(target):
    a = ramp_image(np.int32, seed=93)
    A = hl.Buffer(a, "a")
    funcs, expected = [], []
    for divisor in (1, 2, 3, 7, 8, 16, 100, -1, -2, -3, -8, -100):
        f = hl.Func(f"by_{divisor}".replace("-", "minus_"))
        f[x, y] = A[x, y] / divisor + A[x, y] % divisor
        if divisor in (3, 8, 100, -1, -8):
            f.vectorize(x, 4)
        q, r = _euclid(a, np.full_like(a, divisor))
        funcs.append(f)
        expected.append(_wrap(q + r, np.int32).T)
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


@pytest.mark.parametrize("dtype", with_slow([np.int16], [np.uint8, np.int8, np.uint16, np.uint32]),
                         ids=lambda d: np.dtype(d).name)
def test_by_constants_vectorized_narrow(target, dtype):
    a = ramp_image(dtype, seed=94)
    A = hl.Buffer(a, "a")
    t = A.type()
    funcs, expected = [], []
    divisors = (3, 7, 10, 64, 127) + ((-3, -10, -64, -128) if t.is_int() else ())
    for divisor in divisors:
        k = hl.cast(t, divisor)
        f = hl.Func(f"by_{divisor}".replace("-", "minus_"))
        f[x, y] = A[x, y] / k + A[x, y] % k
        f.vectorize(x, 16)
        q, r = _euclid(a, np.full(a.shape, divisor))
        funcs.append(f)
        expected.append(_wrap(q + r, dtype).T)
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


def test_coordinates_negative(target):
    f = hl.Func("f")
    f[x, y] = (x / 4) * 1000 + x % 4 + (y / -3) * 100000 + (y % -3) * 10
    xs, ys = np.meshgrid(np.arange(-20, 17), np.arange(-11, 12), indexing="ij")
    qx, rx = _euclid(xs, np.full_like(xs, 4))
    qy, ry = _euclid(ys, np.full_like(ys, -3))
    expected = (qx * 1000 + rx + qy * 100000 + ry * 10).astype(np.int32)
    check(f, [37, 23], target, mins=[-20, -11], expected=expected)


@pytest.mark.parametrize("dtype", with_slow([np.float32], [np.float64]),
                         ids=lambda d: np.dtype(d).name)
def test_float(target, dtype):
    a = ramp_image(dtype, seed=95)
    b = ramp_image(dtype, seed=96)
    b.reshape(-1)[:3] = [0.0, -0.0, 3.0]
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    f = hl.Func("f")
    f[x, y] = A[x, y] / B[x, y]
    g = hl.Func("g")
    g[x, y] = A[x, y] % B[x, y]
    with np.errstate(all="ignore"):
        q = (a / b).astype(dtype)
        r = (a - b * np.floor(a / b)).astype(dtype)
    check(hl.Pipeline([f, g]), [W, H], target, rtol=1e-6 if dtype == np.float32 else 1e-12,
          atol=1e-4, expected=[q.T, r.T])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32],
                         ids=lambda d: np.dtype(d).name)
def test_vectorized_by_data_extremes(target, dtype):
    """Vector division by divisors known only at run time goes through float32 (8/16-bit) or
    float64 (32-bit) division: exact at the extremes (the type's min and max over every small
    and large divisor, quotients just below an integer), Euclidean, zero and -1 divisors."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(93)
    edge_a = [info.min, info.min + 1, info.max, info.max - 1, 0, 1, -1, 2, -2, 7, -7]
    edge_d = [1, -1, 2, -2, 3, 7, -7, 0, info.max, info.min, info.max - 1, info.min + 1,
              (info.max >> 1) + 1]
    pairs = [(n, d) for n in edge_a for d in edge_d if info.min <= n <= info.max
             and info.min <= d <= info.max]
    n = 64 * 8
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True) >> rng.integers(
        0, info.bits - 1, n).astype(dtype)
    a[:len(pairs)] = [p[0] for p in pairs]
    b[:len(pairs)] = [p[1] for p in pairs]
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    f, g = hl.Func("vquot"), hl.Func("vrem")
    f[x] = A[x] / B[x]
    g[x] = A[x] % B[x]
    f.vectorize(x, 16)
    g.vectorize(x, 8)
    q, r = _euclid(a, b)
    check(hl.Pipeline([f, g]), [n], target, expected=[_wrap(q, dtype), _wrap(r, dtype)])
