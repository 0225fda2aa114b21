"""Integer arithmetic in every width and signedness (and bool): wrapping add/sub/mul, negation,
bitwise operators, shifts, comparisons, min/max, abs and bit counts, scalar and vectorized, over
data that covers each type's whole range. One pipeline per type, one output per operation."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")
LANES = {1: 16, 2: 8, 4: 4, 8: 2}  # one 128-bit vector of each element size


def _arithmetic(A, B, a, b, dtype):
    f = hl.Func("arith")
    f[x, y] = A[x, y] * B[x, y] + (A[x, y] - B[x, y]) * 3 - (-A[x, y])
    with np.errstate(over="ignore"):
        return f, (a * b + (a - b) * dtype(3) - (-a)).astype(dtype).T


def _bitwise(A, B, a, b, dtype):
    bits = np.dtype(dtype).itemsize * 8
    t = A.type()
    f = hl.Func("bitwise")
    f[x, y] = ((A[x, y] & B[x, y]) | (~A[x, y] ^ B[x, y])) + \
        (A[x, y] >> hl.cast(t, x % bits)) + (B[x, y] << hl.cast(t, 3))
    amounts = (np.arange(W) % bits).astype(dtype)[None, :]
    with np.errstate(over="ignore"):
        return f, (((a & b) | (~a ^ b)) + (a >> amounts) + (b << dtype(3))).astype(dtype).T


def _compare(A, B, a, b, dtype):
    f = hl.Func("compare")
    f[x, y] = hl.select((A[x, y] < B[x, y]) & (A[x, y] != 0), hl.max(A[x, y], B[x, y]),
                        A[x, y] >= B[x, y], hl.min(A[x, y], B[x, y]),
                        A[x, y])
    return f, np.where((a < b) & (a != 0), np.maximum(a, b),
                       np.where(a >= b, np.minimum(a, b), a)).astype(dtype).T


def _counts(A, B, a, b, dtype):
    t = A.type()
    unsigned = hl.UInt(t.bits)
    f = hl.Func("counts")
    f[x, y] = hl.abs(A[x, y]) + hl.cast(unsigned, hl.popcount(A[x, y])) + \
        hl.cast(unsigned, hl.count_leading_zeros(A[x, y])) * 3 + \
        hl.cast(unsigned, hl.count_trailing_zeros(A[x, y])) * 5
    bits = t.bits
    udt = np.dtype(f"uint{bits}")
    u = a.view(udt).reshape(-1).tolist()
    pop = np.array([bin(v).count("1") for v in u], dtype=object)
    clz = np.array([bits - v.bit_length() for v in u], dtype=object)
    ctz = np.array([(v & -v).bit_length() - 1 if v else bits for v in u], dtype=object)
    absolute = np.abs(a.reshape(-1).astype(object))
    total = (absolute + pop + clz * 3 + ctz * 5) % (1 << bits)
    return f, np.array(total.tolist(), dtype=np.uint64).astype(udt).reshape(a.shape).T


@pytest.mark.parametrize("dtype", with_slow([np.int8, np.uint16, np.int64],
                                             [np.uint8, np.int16, np.int32, np.uint32, np.uint64]),
                         ids=lambda d: np.dtype(d).name)
def test_integer_operations(target, dtype):
    a, b = ramp_image(dtype, seed=71), ramp_image(dtype, seed=72)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    funcs, expected = [], []
    for make in (_arithmetic, _bitwise, _compare, _counts):
        scalar, want = make(A, B, a, b, dtype)
        vector = hl.Func(scalar.name() + "_vec")
        vector[x, y] = scalar.value()
        vector.vectorize(x, LANES[np.dtype(dtype).itemsize])
        # Scalar code is tested everywhere else: only arithmetic keeps both forms here.
        funcs += [scalar, vector] if make is _arithmetic else [vector]
        expected += [want, want] if make is _arithmetic else [want]
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


def test_bool(target):
    a, b = ramp_image(np.bool_, seed=73), ramp_image(np.bool_, seed=74)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    logic = hl.Func("logic")
    logic[x, y] = (A[x, y] & ~B[x, y]) | (A[x, y] ^ (x % 3 == 0))
    count = hl.Func("count")
    count[x, y] = hl.u8(logic[x, y]) + hl.select(B[x, y], 2, 0)
    logic.compute_root().vectorize(x, 16)
    count.vectorize(x, 8)
    xs = (np.arange(W) % 3 == 0)[None, :]
    lv = (a & ~b) | (a ^ xs)
    check(hl.Pipeline([logic, count]), [W, H], target,
          expected=[lv.T, (lv.astype(np.uint8) + np.where(b, 2, 0)).T])
