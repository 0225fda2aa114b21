"""Shifts: by unsigned and signed amounts (a negative amount shifts the other way), by
constants, vectorized, in every integer width; right shifts of signed values are arithmetic."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")


def _shift(a, amounts, left):
    bits = a.dtype.itemsize * 8
    out = []
    for v, k in zip(a.reshape(-1).tolist(), amounts.reshape(-1).tolist()):
        go_left = left == (k >= 0)
        k = abs(k)
        if go_left:
            r = v << k
        else:
            r = v >> k  # Python's >> is arithmetic for negative values
        out.append(r % (1 << bits))
    u = np.array(out, dtype=np.uint64).astype(f"uint{bits}")
    return u.view(a.dtype).reshape(a.shape)


@pytest.mark.parametrize("dtype", with_slow([np.int8, np.uint64],
                                             [np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                              np.int64]),
                         ids=lambda d: np.dtype(d).name)
def test_shifts(target, dtype):
    a = ramp_image(dtype, seed=181)
    A = hl.Buffer(a, "a")
    t = A.type()
    bits = t.bits
    signed_amount = hl.Int(bits)
    # Amounts from -(bits - 1) to bits - 1, in a signed type of the same width.
    k = (x + 3 * y) % (2 * bits - 1) - (bits - 1)
    ks = ((np.arange(W)[:, None] + 3 * np.arange(H)[None, :]) % (2 * bits - 1) - (bits - 1)).T
    left = hl.Func("left")
    left[x, y] = A[x, y] << hl.cast(signed_amount, k)
    right = hl.Func("right")
    right[x, y] = A[x, y] >> hl.cast(signed_amount, k)
    by_unsigned = hl.Func("by_unsigned")
    by_unsigned[x, y] = (A[x, y] >> hl.cast(hl.UInt(bits), hl.abs(k))) + \
        (A[x, y] << hl.cast(t, 1))
    by_constant = hl.Func("by_constant")
    by_constant[x, y] = (A[x, y] >> hl.cast(t, bits - 1)) ^ (A[x, y] << hl.cast(t, 2))
    for f in (right, by_constant):
        f.vectorize(x, 16 if bits <= 16 else 4)
    mag = np.abs(ks).astype(np.int64)
    with np.errstate(over="ignore"):
        expected = [
            _shift(a, ks, True).T,
            _shift(a, ks, False).T,
            (_shift(a, mag, False) + _shift(a, np.ones_like(mag), True)).astype(dtype).T,
            (_shift(a, np.full_like(mag, bits - 1), False) ^
             _shift(a, np.full_like(mag, 2), True)).T,
        ]
    check(hl.Pipeline([left, right, by_unsigned, by_constant]), [W, H], target,
          expected=expected)
