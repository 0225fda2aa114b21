"""Math functions on float32 and float64 (sqrt, exp, log, pow, trig, hyperbolic, erf), scalar
and vectorized, compared within a stated tolerance: rtol 1e-5 for float32, 1e-12 for float64
(libm differs from numpy in the last bits), with a small atol where results pass through 0."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, with_slow

x, y = hl.Var("x"), hl.Var("y")
TOLERANCE = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-14)}

# name, hl function, domain of the argument (numpy maps [0, 1) onto it)
UNARY = [
    ("sqrt", hl.sqrt, (0.0, 1000.0)),
    ("exp", hl.exp, (-20.0, 20.0)),
    ("log", hl.log, (1e-3, 1e4)),
    ("sin", hl.sin, (-10.0, 10.0)),
    ("cos", hl.cos, (-10.0, 10.0)),
    ("tan", hl.tan, (-1.5, 1.5)),
    ("asin", hl.asin, (-1.0, 1.0)),
    ("acos", hl.acos, (-1.0, 1.0)),
    ("atan", hl.atan, (-50.0, 50.0)),
    ("sinh", hl.sinh, (-5.0, 5.0)),
    ("cosh", hl.cosh, (-5.0, 5.0)),
    ("tanh", hl.tanh, (-5.0, 5.0)),
    ("asinh", hl.asinh, (-50.0, 50.0)),
    ("acosh", hl.acosh, (1.0, 50.0)),
    ("atanh", hl.atanh, (-0.99, 0.99)),
    ("erf", hl.erf, (-3.0, 3.0)),
]


def _numpy(name):
    if name == "erf":
        import math
        return np.vectorize(math.erf)
    return {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
            "acosh": np.arccosh, "atanh": np.arctanh}.get(name, getattr(np, name, None))


def _argument(dtype, lo, hi):
    t = np.linspace(0.0, 1.0, W * H).reshape(H, W)
    return (lo + (hi - lo) * t).astype(dtype)


@pytest.mark.parametrize("dtype", with_slow([np.float32], [np.float64]),
                         ids=lambda d: np.dtype(d).name)
def test_unary(target, dtype):
    funcs, expected = [], []
    for name, fn, (lo, hi) in UNARY:
        a = _argument(dtype, lo, hi)
        image = hl.Buffer(a, f"arg_{name}")
        f = hl.Func(f"m_{name}")
        f[x, y] = fn(image[x, y])
        if name in ("sqrt", "exp", "log", "sin", "erf"):
            f.vectorize(x, 4)
        funcs.append(f)
        expected.append(_numpy(name)(a.astype(np.float64)).astype(dtype).T)
    rtol, atol = TOLERANCE[dtype]
    check(hl.Pipeline(funcs), [W, H], target, rtol=rtol, atol=atol, expected=expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_pow_and_atan2(target, dtype):
    a = _argument(dtype, 0.01, 10.0)
    b = _argument(dtype, -3.0, 3.0).T.copy().reshape(H, W)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    p = hl.Func("p")
    p[x, y] = hl.pow(A[x, y], B[x, y])
    p.vectorize(x, 8)
    q = hl.Func("q")
    q[x, y] = hl.atan2(B[x, y], A[x, y] - 5)
    q.vectorize(x, 4)
    rtol, atol = TOLERANCE[dtype]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    check(hl.Pipeline([p, q]), [W, H], target, rtol=rtol, atol=atol,
          expected=[np.power(a64, b64).astype(dtype).T,
                    np.arctan2(b64, a64 - 5).astype(dtype).T])


def test_integer_arguments_become_float32(target):
    f = hl.Func("f")
    f[x] = hl.sqrt(x) + hl.exp(x % 5) + hl.pow(x, 2)  # pow by a constant 2 stays int32
    xs = np.arange(W)
    expected = (np.sqrt(xs.astype(np.float64)) + np.exp(xs % 5) + xs * xs).astype(np.float32)
    check(f, [W], target, rtol=1e-6, expected=expected)


def test_float16_math(target):
    a = _argument(np.float16, 0.0, 4.0)
    image = hl.Buffer(a, "halves")
    f = hl.Func("f")
    f[x, y] = hl.sqrt(image[x, y]) + hl.sin(image[x, y])
    a64 = a.astype(np.float64)
    # Each function rounds to float16 (11 significant bits): a few units in the last place.
    check(f, [W, H], target, rtol=2e-3, atol=2e-3,
          expected=(np.sqrt(a64).astype(np.float16) + np.sin(a64).astype(np.float16)).T)


def test_special_values_vectorized(target):
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1e-38, 88.7, 89.0, -87.0,
                        -104.0, -1.0, 1.0, 2.0, 0.5, -2.5], np.float32)
    a = hl.Buffer(special, "a")
    b = hl.Buffer(special[::-1].copy(), "b")
    funcs = {name: hl.Func(name) for name in ("e", "l", "p", "s")}
    funcs["e"][x] = hl.exp(a[x])
    funcs["l"][x] = hl.log(a[x])
    funcs["p"][x] = hl.pow(a[x], b[x])
    funcs["s"][x] = hl.sqrt(a[x])
    for f in funcs.values():
        f.vectorize(x, 8)
    a64, b64 = special.astype(np.float64), special[::-1].astype(np.float64)
    with np.errstate(all="ignore"):
        expected = [np.exp(a64), np.log(a64), np.power(a64, b64), np.sqrt(a64)]
        expected = [e.astype(np.float32) for e in expected]  # overflows to inf
    check(hl.Pipeline(list(funcs.values())), [len(special)], target, rtol=1e-5, atol=1e-37,
          expected=expected)


def test_vectors_mixing_ordinary_and_special_lanes(target):
    """exp/log/pow take a short path when every lane of a vector is ordinary and the complete
    one otherwise: vectors with one special lane, lanes at the short path's limits (|x| near 87
    for exp, y log x near 87 for pow), subnormals and negative bases must all be right."""
    rng = np.random.default_rng(7)
    a = rng.uniform(0.05, 4.0, 64).astype(np.float32)
    b = rng.uniform(-3.0, 3.0, 64).astype(np.float32)
    # vector 1 (lanes 8-15): one NaN; vector 3: a subnormal base; vector 5: a negative base
    # with an integer exponent; vector 6: limits of exp's short path; vector 7: pow overflow.
    a[11], a[26], a[41], b[41] = np.nan, 1e-40, -2.0, 3.0
    a[48:56] = [86.9, -86.9, 87.0, -87.0, 87.1, -87.1, 88.5, -100.0]
    b[48:56] = 1.0
    a[56:64], b[56:64] = 1e10, [3.8, 3.85, 3.9, 4.0, -3.8, -3.9, -4.0, 4.5]
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    funcs = {name: hl.Func(name) for name in ("e", "l", "p")}
    funcs["e"][x] = hl.exp(A[x])
    funcs["l"][x] = hl.log(A[x])
    funcs["p"][x] = hl.pow(A[x], B[x])
    for f in funcs.values():
        f.vectorize(x, 8)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        expected = [np.exp(a64), np.log(a64), np.power(a64, b64)]
        expected = [e.astype(np.float32) for e in expected]
    check(hl.Pipeline(list(funcs.values())), [64], target, rtol=1e-5, atol=1e-38,
          expected=expected)
