"""Halide's arithmetic on numpy arrays: the semantics every backend is checked against.

Integers wrap; division and modulo are Euclidean (the remainder is never negative) and give 0 for
a zero divisor; casts from float to int truncate toward zero (and saturate: NaN is 0); shifts by
a negative amount shift the other way; saturating casts clamp. Float min(a, b) is b < a ? b : a
and max(a, b) is a < b ? b : a (wasm's pmin and pmax): a NaN first operand comes through, a NaN
second operand is passed over, so clamp(NaN, lo, hi) is NaN.
"""

from __future__ import annotations

import math

import numpy as np

from webhal.ir.math_functions import FUNCTIONS, MathFunction
from webhal.ir.types import Type


def minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.result_type(a, b).kind == "f":
        return np.where(b < a, b, a)
    return np.minimum(a, b)


def maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.result_type(a, b).kind == "f":
        return np.where(a < b, b, a)
    return np.maximum(a, b)


def float_reciprocal(c, t: Type):
    """1/c rounded to t when a float32/float64 division by the constant c is a multiplication
    by it (as Halide's simplifier rewrites `x / c`, off under strict_float): c finite and nonzero,
    its reciprocal finite. None otherwise (the division stays)."""
    if c is None or not t.is_float() or t.bits not in (32, 64):
        return None
    c = t.dtype.type(c)
    if not np.isfinite(c) or c == 0:
        return None
    with np.errstate(over="ignore"):
        r = t.dtype.type(1) / c
    return r if np.isfinite(r) else None


def div(a: np.ndarray, b: np.ndarray, t: Type, divisor=None) -> np.ndarray:
    """a / b; `divisor` is b's value where b is a constant (see float_reciprocal)."""
    if t.is_float():
        r = float_reciprocal(divisor, t)
        if r is not None:
            return np.multiply(a, r).astype(t.dtype)
        return np.divide(a, b)
    zero = b == 0
    safe_b = np.where(zero, 1, b).astype(t.dtype)
    if t.is_uint():
        q = a // safe_b
    else:
        q = np.floor_divide(a, safe_b)
        # floor division leaves a negative remainder when b < 0; Euclidean wants q + 1 there.
        r = a - q * safe_b
        q = np.where(r < 0, q + 1, q).astype(t.dtype)
    return np.where(zero, 0, q).astype(t.dtype)


def mod(a: np.ndarray, b: np.ndarray, t: Type) -> np.ndarray:
    if t.is_float():
        return (a - b * np.floor(a / b)).astype(t.dtype)
    zero = b == 0
    safe_b = np.where(zero, 1, b).astype(t.dtype)
    r = np.mod(a, safe_b)
    if t.is_int():
        r = np.where(r < 0, r - safe_b, r).astype(t.dtype)  # b < 0 leaves r in (b, 0]
    return np.where(zero, 0, r).astype(t.dtype)


def cast(a: np.ndarray, src: Type, dst: Type) -> np.ndarray:
    if dst.is_bool():
        return a != 0
    if src.is_float() and not dst.is_float():
        # Out of range is undefined in Halide; webhal saturates, as the conversions of its
        # compiled targets do, so that every target gives the same result.
        return saturating_cast(a, src, dst)
    return np.asarray(a).astype(dst.dtype)


def saturating_cast(a: np.ndarray, src: Type, dst: Type) -> np.ndarray:
    if dst.is_float():
        if src.is_float():  # infinities too are pinned to dst's finite range
            wide = dst if dst.bits >= src.bits else src
            return np.clip(a.astype(wide.dtype), dst.min(), dst.max()).astype(dst.dtype)
        return a.astype(dst.dtype)
    if src.is_float():
        # Bounds in float64: float32(2**31 - 1) would round up to 2**31 and wrap on the cast.
        a = np.nan_to_num(np.trunc(a.astype(np.float64)), nan=0.0)
        too_big = a >= float(dst.max())
        inside = np.where(too_big, 0.0, np.maximum(a, float(dst.min()))).astype(dst.dtype)
        return np.where(too_big, np.asarray(dst.max()).astype(dst.dtype), inside)
    # Integer to integer: compare in Python-sized terms through object-free wide types.
    lo = max(dst.min(), src.min()) if not src.is_bool() else 0
    hi = min(dst.max(), src.max()) if not src.is_bool() else 1
    return np.clip(a, np.asarray(lo).astype(a.dtype), np.asarray(hi).astype(a.dtype)) \
        .astype(dst.dtype)


def shift(a: np.ndarray, b: np.ndarray, t: Type, left: bool) -> np.ndarray:
    b = np.asarray(b)
    if b.dtype.kind == "i":
        neg = b < 0
        mag = np.where(neg, -b, b).astype(np.uint64)
        lval = np.left_shift(a, mag.astype(a.dtype)) if True else None
        rval = np.right_shift(a, mag.astype(a.dtype))
        return np.where(neg ^ (not left), rval, lval).astype(t.dtype)
    b = b.astype(a.dtype)
    return (np.left_shift(a, b) if left else np.right_shift(a, b)).astype(t.dtype)


def absolute(a: np.ndarray, src: Type, dst: Type) -> np.ndarray:
    if src.is_int():
        return np.abs(a.astype(np.int64)).astype(dst.dtype)
    return np.abs(a) if src.is_float() else a


def absd(a: np.ndarray, b: np.ndarray, src: Type, dst: Type) -> np.ndarray:
    if src.is_float():
        return np.abs(a - b)
    wide = np.int64 if src.is_int() else np.uint64
    a, b = a.astype(wide), b.astype(wide)
    return np.where(a > b, a - b, b - a).astype(dst.dtype)


def lerp(z: np.ndarray, o: np.ndarray, w: np.ndarray, t: Type, wt: Type) -> np.ndarray:
    if t.is_float():
        if wt.is_float():
            w = w.astype(t.dtype)
        else:  # an unsigned weight spans 0 to its type's max
            w = w.astype(t.dtype) / t.dtype.type((1 << wt.bits) - 1)
        return (z * (1 - w) + o * w).astype(t.dtype)
    # Integers: the weight becomes an unsigned fixed-point fraction as wide as the values
    # (floats truncate; wider weights divide by (2^m - 1) / (2^n - 1), narrower multiply by it);
    # then z * (max - w) + o * w is divided by max, rounding to nearest.
    bits = t.bits
    scale = (1 << bits) - 1
    if wt.is_float():
        # In the weight's own float type below 32 bits, in float64 at 32, as Halide does.
        wf = w.astype(np.float64 if bits == 32 else wt.dtype)
        wq = np.trunc(np.clip(wf * wf.dtype.type(scale), 0, scale)).astype(np.uint64)
    elif wt.bits >= bits:
        wq = w.astype(np.uint64) // np.uint64(((1 << wt.bits) - 1) // scale)
    else:
        wq = w.astype(np.uint64) * np.uint64(scale // ((1 << wt.bits) - 1))
    bias = 1 << (bits - 1) if t.is_int() else 0
    zu = (z.astype(np.int64) + bias).astype(np.uint64)
    ou = (o.astype(np.int64) + bias).astype(np.uint64)
    # At most (2^32 - 1)^2 + 2^31: fits in uint64.
    num = zu * (np.uint64(scale) - wq) + ou * wq + np.uint64(scale // 2)
    res = num // np.uint64(scale)
    return (res.astype(np.int64) - bias).astype(t.dtype)


def popcount(a: np.ndarray, t: Type) -> np.ndarray:
    u = a.astype(np.uint64) & np.uint64((1 << t.bits) - 1)
    count = np.zeros(u.shape, dtype=np.uint64)
    for i in range(t.bits):
        count += (u >> np.uint64(i)) & np.uint64(1)
    return count.astype(t.dtype)


def count_leading_zeros(a: np.ndarray, t: Type) -> np.ndarray:
    u = a.astype(np.uint64) & np.uint64((1 << t.bits) - 1)
    n = np.full(u.shape, t.bits, dtype=np.int64)
    for i in range(t.bits):
        set_ = ((u >> np.uint64(i)) & np.uint64(1)) == 1
        n = np.where(set_, t.bits - 1 - i, n)
    return n.astype(t.dtype)


def count_trailing_zeros(a: np.ndarray, t: Type) -> np.ndarray:
    u = a.astype(np.uint64) & np.uint64((1 << t.bits) - 1)
    n = np.full(u.shape, t.bits, dtype=np.int64)
    for i in reversed(range(t.bits)):
        set_ = ((u >> np.uint64(i)) & np.uint64(1)) == 1
        n = np.where(set_, i, n)
    return n.astype(t.dtype)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _numpy(f: MathFunction):
    if f.numpy is not None:
        return getattr(np, f.numpy)
    assert f.name == "erf", f"numeric.py has no numpy version of {f.name}"
    return lambda a: _erf(a).astype(np.asarray(a).dtype)


MATH = {name: _numpy(f) for name, f in FUNCTIONS.items()}

ROUNDING = {"floor": np.floor, "ceil": np.ceil, "round": np.rint, "trunc": np.trunc}
