"""Every expression operator on the reference evaluator, against numpy or plain Python."""

import math

import numpy as np
import pytest

import webhal as hl

from ._helpers import REFERENCE, value_of

RNG = np.random.default_rng(20240611)

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]
SIGNED = [np.int8, np.int16, np.int32]


def apply(fn, *arrays):
    """fn applied by webhal, lane by lane, to 1-D arrays (read through Buffers)."""
    bufs = [hl.Buffer(np.ascontiguousarray(a)) for a in arrays]
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = fn(*[b[x] for b in bufs])
    return np.asarray(f.realize([len(arrays[0])], REFERENCE))


def random_ints(dtype, n=256, extremes=True):
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if extremes:
        special = [0, 1, info.max, info.min, info.max - 1, info.min + 1, 2, 3]
        if info.min < 0:
            special += [-1, -2, -3]
        a[:len(special)] = np.array(special).astype(dtype)
    return a


def small_divisors(dtype, n=256):
    lo = -9 if np.iinfo(dtype).min < 0 else 0
    return RNG.integers(lo, 10, n).astype(dtype)


def wrap(values, dtype):
    """Python ints wrapped to dtype, as numpy arrays."""
    bits = np.dtype(dtype).itemsize * 8
    out = []
    for v in values:
        v &= (1 << bits) - 1
        if np.issubdtype(dtype, np.signedinteger) and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=dtype)


def euclid(a: int, b: int) -> tuple[int, int]:
    """Halide's integer division and modulo: the remainder is in [0, |b|); b == 0 gives 0, 0."""
    if b == 0:
        return 0, 0
    r = a % abs(b)
    return (a - r) // b, r


# -- arithmetic ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_integer_arithmetic_wraps(dtype, op):
    a, b = random_ints(dtype), random_ints(dtype)[::-1].copy()
    ops = {"+": lambda p, q: p + q, "-": lambda p, q: p - q, "*": lambda p, q: p * q}
    expect = wrap([ops[op](int(p), int(q)) for p, q in zip(a, b)], dtype)
    got = apply(ops[op], a, b)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("dtype", SIGNED)
def test_negation_wraps(dtype):
    a = random_ints(dtype)
    np.testing.assert_array_equal(apply(lambda p: -p, a), wrap([-int(v) for v in a], dtype))


def test_unsigned_negation_wraps():
    a = np.array([0, 1, 200], dtype=np.uint8)
    np.testing.assert_array_equal(apply(lambda p: -p, a), [0, 255, 56])


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_division_and_modulo_are_euclidean(dtype):
    a, b = random_ints(dtype), small_divisors(dtype)
    b[:4] = np.array([0, 0, 1, 1]).astype(dtype)
    qs, rs = zip(*(euclid(int(p), int(q)) for p, q in zip(a, b)))
    np.testing.assert_array_equal(apply(lambda p, q: p / q, a, b), wrap(qs, dtype))
    np.testing.assert_array_equal(apply(lambda p, q: p % q, a, b), wrap(rs, dtype))
    np.testing.assert_array_equal(apply(lambda p, q: p // q, a, b), wrap(qs, dtype))


@pytest.mark.parametrize("a, b, q, r", [
    (7, 2, 3, 1), (-7, 2, -4, 1), (7, -2, -3, 1), (-7, -2, 4, 1), (6, -3, -2, 0),
    (-1, 5, -1, 4), (5, 0, 0, 0), (-5, 0, 0, 0), (0, 0, 0, 0), (-2**31, -1, -2**31, 0),
])
def test_division_examples(a, b, q, r):
    pa, pb = hl.Param(hl.Int(32), "a", a), hl.Param(hl.Int(32), "b", b)
    assert value_of(pa / pb) == q
    assert value_of(pa % pb) == r
    assert b == 0 or int(value_of(pa / pb)) * b + int(value_of(pa % pb)) in (a, a + 2**32)


def test_division_by_a_constant():
    a = np.arange(-20, 20, dtype=np.int32)
    np.testing.assert_array_equal(apply(lambda p: p / 3, a), [euclid(int(v), 3)[0] for v in a])
    np.testing.assert_array_equal(apply(lambda p: p / -3, a),
                                  [euclid(int(v), -3)[0] for v in a])
    np.testing.assert_array_equal(apply(lambda p: p % -3, a),
                                  [euclid(int(v), -3)[1] for v in a])
    np.testing.assert_array_equal(apply(lambda p: p / 0, a), np.zeros_like(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_arithmetic(dtype):
    a = RNG.normal(0, 100, 256).astype(dtype)
    b = RNG.normal(0, 10, 256).astype(dtype)
    np.testing.assert_array_equal(apply(lambda p, q: p + q, a, b), a + b)
    np.testing.assert_array_equal(apply(lambda p, q: p * q - p, a, b), a * b - a)
    np.testing.assert_array_equal(apply(lambda p, q: p / q, a, b), a / b)
    np.testing.assert_allclose(apply(lambda p, q: p % q, a, b), a - b * np.floor(a / b),
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(apply(lambda p, q: p // q, a, b), np.floor(a / b))


def test_float_modulo_has_the_sign_of_the_divisor():
    a = np.array([7.5, -7.5, 7.5, -7.5], dtype=np.float32)
    b = np.array([2, 2, -2, -2], dtype=np.float32)
    np.testing.assert_array_equal(apply(lambda p, q: p % q, a, b), [1.5, 0.5, -0.5, -1.5])


def test_float_division_by_zero_is_ieee():
    a = np.array([1, -1, 0], dtype=np.float32)
    got = apply(lambda p: p / hl.f32(0), a)
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


def test_integer_division_mixes_with_python_int():
    a = np.arange(1, 9, dtype=np.uint8)
    np.testing.assert_array_equal(apply(lambda p: 100 / p, a), 100 // a)


# -- bits ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_bitwise(dtype):
    a, b = random_ints(dtype), random_ints(dtype)[::-1].copy()
    np.testing.assert_array_equal(apply(lambda p, q: p & q, a, b), a & b)
    np.testing.assert_array_equal(apply(lambda p, q: p | q, a, b), a | b)
    np.testing.assert_array_equal(apply(lambda p, q: p ^ q, a, b), a ^ b)
    np.testing.assert_array_equal(apply(lambda p: ~p, a), ~a)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_shifts_by_unsigned_amounts(dtype):
    bits = np.dtype(dtype).itemsize * 8
    a = random_ints(dtype)
    s = RNG.integers(0, bits, a.size).astype(dtype)
    np.testing.assert_array_equal(apply(lambda p, q: p << q, a, s), a << s)
    np.testing.assert_array_equal(apply(lambda p, q: p >> q, a, s), a >> s)  # arithmetic if signed


@pytest.mark.parametrize("dtype", SIGNED)
def test_negative_shift_amount_shifts_the_other_way(dtype):
    bits = np.dtype(dtype).itemsize * 8
    a = random_ints(dtype)
    s = RNG.integers(-(bits - 1), bits, a.size).astype(dtype)
    left = np.where(s >= 0, a << np.abs(s), a >> np.abs(s))
    right = np.where(s >= 0, a >> np.abs(s), a << np.abs(s))
    np.testing.assert_array_equal(apply(lambda p, q: p << q, a, s), left)
    np.testing.assert_array_equal(apply(lambda p, q: p >> q, a, s), right)


def test_shift_by_python_constants():
    a = np.array([1, 100, 200, 255], dtype=np.uint8)
    np.testing.assert_array_equal(apply(lambda p: p << 1, a), (a << 1).astype(np.uint8))
    np.testing.assert_array_equal(apply(lambda p: p >> 2, a), a >> 2)
    np.testing.assert_array_equal(apply(lambda p: p >> -1, a), (a << 1).astype(np.uint8))
    b = np.array([-100, -1, 5], dtype=np.int16)
    np.testing.assert_array_equal(apply(lambda p: p >> 1, b), b >> 1)


def test_shift_widens_the_narrower_operand():
    a = np.array([200, 255], dtype=np.uint8)
    s = np.array([1, 4], dtype=np.uint16)
    got = apply(lambda p, q: p << q, a, s)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, a.astype(np.uint16) << s)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_bit_counting(dtype):
    a = random_ints(dtype)
    bits = np.dtype(dtype).itemsize * 8
    unsigned = [int(v) & ((1 << bits) - 1) for v in a]
    pop = [bin(u).count("1") for u in unsigned]
    clz = [bits - u.bit_length() for u in unsigned]
    ctz = [(u & -u).bit_length() - 1 if u else bits for u in unsigned]
    np.testing.assert_array_equal(apply(hl.popcount, a), pop)
    np.testing.assert_array_equal(apply(hl.count_leading_zeros, a), clz)
    np.testing.assert_array_equal(apply(hl.count_trailing_zeros, a), ctz)


def test_reinterpret():
    f = np.array([1.0, -2.5, 0.0, np.inf], dtype=np.float32)
    np.testing.assert_array_equal(apply(lambda p: hl.reinterpret(hl.UInt(32), p), f),
                                  f.view(np.uint32))
    u = np.array([0, 127, 128, 255], dtype=np.uint8)
    np.testing.assert_array_equal(apply(lambda p: hl.reinterpret(hl.Int(8), p), u),
                                  u.view(np.int8))


# -- comparisons, logic, select ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float32])
def test_comparisons(dtype):
    a = (RNG.integers(-3, 4, 128) if dtype != np.uint16 else RNG.integers(0, 4, 128))
    b = a[::-1].copy()
    a, b = a.astype(dtype), b.astype(dtype)
    for op in ["<", "<=", ">", ">=", "==", "!="]:
        fn = eval(f"lambda p, q: p {op} q")
        got = apply(fn, a, b)
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, fn(a, b))


def test_logical_and_or_not():
    a = RNG.integers(0, 10, 64).astype(np.int32)
    got_and = apply(lambda p: (p > 2) & (p < 7), a)
    got_or = apply(lambda p: (p < 2) | (p > 7), a)
    got_not = apply(lambda p: ~(p > 4), a)
    got_xor = apply(lambda p: (p > 2) ^ (p > 6), a)
    np.testing.assert_array_equal(got_and, (a > 2) & (a < 7))
    np.testing.assert_array_equal(got_or, (a < 2) | (a > 7))
    np.testing.assert_array_equal(got_not, ~(a > 4))
    np.testing.assert_array_equal(got_xor, (a > 2) ^ (a > 6))


def test_logical_not_of_a_bool_and_refused_for_an_int():
    a = random_ints(np.int32, 64, extremes=False)
    np.testing.assert_array_equal(apply(lambda p: hl.logical_not(p > 4), a), ~(a > 4))
    np.testing.assert_array_equal(apply(lambda p: (p > 4).logical_not(), a), ~(a > 4))
    with pytest.raises(hl.CompileError, match="logical_not needs a bool, not int32"):
        hl.logical_not(hl.Var("x") + 1)


def test_python_and_or_are_rejected():
    x = hl.Var("x")
    with pytest.raises(hl.CompileError, match="select"):
        bool((x > 1) and (x < 3))  # Python asks the Expr for a truth value


def test_select():
    a = RNG.integers(-50, 50, 128).astype(np.int16)
    np.testing.assert_array_equal(apply(lambda p: hl.select(p > 0, p, -p), a), np.abs(a))


def test_select_many_conditions_takes_the_first_that_holds():
    a = RNG.integers(-20, 20, 200).astype(np.int32)
    got = apply(lambda p: hl.select(p < -10, 1, p < 0, 2, p < 10, 3, 4), a)
    expect = np.select([a < -10, a < 0, a < 10], [1, 2, 3], 4)
    np.testing.assert_array_equal(got, expect)


def test_select_needs_a_bool_condition_and_odd_arity():
    x = hl.Var("x")
    with pytest.raises(hl.CompileError, match="bool"):
        hl.select(x, 1, 2)
    with pytest.raises(hl.CompileError):
        hl.select(x > 1, 1, x > 2, 2)


def test_select_of_reads_at_clamped_coordinates():
    # Both sides stay inside the buffer for every x (Halide checks the reads of both sides).
    data = np.arange(5, dtype=np.int32)
    b = hl.Buffer(data)
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = hl.select(x < 5, b[hl.min(x, 4)], b[hl.max(x - 5, 0)] + 100)
    np.testing.assert_array_equal(np.asarray(f.realize([10], REFERENCE)),
                                  [0, 1, 2, 3, 4, 100, 101, 102, 103, 104])


def test_mux():
    a = np.arange(-2, 6, dtype=np.int32)
    got = apply(lambda p: hl.mux(p, [10, 20, 30]), a)
    # Out-of-range indices give the last value, as Halide's chain of selects does.
    np.testing.assert_array_equal(got, [30, 30, 10, 20, 30, 30, 30, 30])


# -- min, max, clamp, abs, absd ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INT_DTYPES + [np.float32])
def test_min_max_clamp(dtype):
    if dtype == np.float32:
        a, b = RNG.normal(0, 50, 256).astype(dtype), RNG.normal(0, 50, 256).astype(dtype)
    else:
        a, b = random_ints(dtype), random_ints(dtype)[::-1].copy()
    np.testing.assert_array_equal(apply(hl.min, a, b), np.minimum(a, b))
    np.testing.assert_array_equal(apply(hl.max, a, b), np.maximum(a, b))
    np.testing.assert_array_equal(apply(lambda p: hl.clamp(p, 3, 100), a),
                                  np.clip(a, 3, 100).astype(dtype))


def test_min_max_of_many():
    a, b, c = (RNG.integers(0, 100, 64).astype(np.int32) for _ in range(3))
    np.testing.assert_array_equal(apply(lambda p, q, r: hl.min(p, q, r), a, b, c),
                                  np.minimum(np.minimum(a, b), c))
    np.testing.assert_array_equal(apply(lambda p, q, r: hl.max(p, q, r), a, b, c),
                                  np.maximum(np.maximum(a, b), c))


@pytest.mark.parametrize("dtype", SIGNED)
def test_abs_is_unsigned_and_exact_at_the_minimum(dtype):
    a = random_ints(dtype)
    got = apply(hl.abs, a)
    udtype = np.dtype(dtype).str.replace("i", "u")
    assert got.dtype == np.dtype(udtype)
    np.testing.assert_array_equal(got, [abs(int(v)) for v in a])


def test_abs_of_float():
    a = np.array([-1.5, 0.0, 2.25, -np.inf], dtype=np.float32)
    np.testing.assert_array_equal(apply(hl.abs, a), np.abs(a))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_absd_does_not_overflow(dtype):
    a, b = random_ints(dtype), random_ints(dtype)[::-1].copy()
    got = apply(hl.absd, a, b)
    assert got.dtype.kind == "u" and got.dtype.itemsize == np.dtype(dtype).itemsize
    np.testing.assert_array_equal(got, [abs(int(p) - int(q)) for p, q in zip(a, b)])


def test_absd_of_floats():
    a, b = RNG.normal(0, 9, 64).astype(np.float32), RNG.normal(0, 9, 64).astype(np.float32)
    np.testing.assert_array_equal(apply(hl.absd, a, b), np.abs(a - b))


# -- casts ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", INT_DTYPES)
@pytest.mark.parametrize("dst", [hl.UInt(8), hl.Int(8), hl.UInt(16), hl.Int(16), hl.Int(32),
                                 hl.UInt(32), hl.Int(64)])
def test_integer_casts_wrap(src, dst):
    a = random_ints(src)
    got = apply(lambda p: hl.cast(dst, p), a)
    np.testing.assert_array_equal(got, wrap([int(v) for v in a], dst.dtype))


def test_float_to_int_cast_truncates_toward_zero():
    a = np.array([2.9, -2.9, 0.5, -0.5, 100.99, -100.99], dtype=np.float32)
    np.testing.assert_array_equal(apply(hl.i32, a), [2, -2, 0, 0, 100, -100])
    np.testing.assert_array_equal(apply(hl.u8, np.abs(a)), [2, 2, 0, 0, 100, 100])


def test_int_to_float_and_float_widths():
    a = np.array([16777217, -3, 2**31 - 1], dtype=np.int32)
    np.testing.assert_array_equal(apply(hl.f32, a), a.astype(np.float32))
    np.testing.assert_array_equal(apply(hl.f64, a), a.astype(np.float64))
    f = np.array([1 / 3, 1e-50, 1e30], dtype=np.float64)
    np.testing.assert_array_equal(apply(hl.f32, f), f.astype(np.float32))


def test_cast_to_bool_is_nonzero():
    a = np.array([0, 1, -3, 0, 7], dtype=np.int16)
    np.testing.assert_array_equal(apply(lambda p: hl.cast(hl.Bool(), p), a), a != 0)


@pytest.mark.parametrize("src", INT_DTYPES)
@pytest.mark.parametrize("dst", [hl.UInt(8), hl.Int(8), hl.UInt(16), hl.Int(16), hl.UInt(32),
                                 hl.Int(32)])
def test_saturating_cast_between_ints_clamps(src, dst):
    a = random_ints(src)
    got = apply(lambda p: hl.saturating_cast(dst, p), a)
    expect = [min(max(int(v), dst.min()), dst.max()) for v in a]
    np.testing.assert_array_equal(got, np.array(expect, dtype=dst.dtype))


@pytest.mark.parametrize("dst", [hl.UInt(8), hl.Int(8), hl.Int(16), hl.UInt(32), hl.Int(32),
                                 hl.Int(64), hl.UInt(64)])
@pytest.mark.parametrize("src", [np.float32, np.float64])
def test_saturating_cast_from_float_clamps_and_truncates(src, dst):
    a = np.array([0.0, 1.9, -1.9, 254.7, 300.0, -300.0, 3e9, -3e9, 1e30, -1e30, np.inf,
                  -np.inf, 65535.5], dtype=src)
    got = apply(lambda p: hl.saturating_cast(dst, p), a)

    def expect(v):
        if v == np.inf or v >= dst.max():
            return dst.max()
        if v == -np.inf or v <= dst.min():
            return dst.min()
        return math.trunc(v)
    np.testing.assert_array_equal(got, np.array([expect(float(v)) for v in a], dtype=dst.dtype))


def test_saturating_cast_between_floats_pins_to_the_finite_range():
    a = np.array([1e300, -1e300, np.inf, -np.inf, 1.5], dtype=np.float64)
    f32max = np.finfo(np.float32).max
    np.testing.assert_array_equal(apply(lambda p: hl.saturating_cast(hl.Float(32), p), a),
                                  np.array([f32max, -f32max, f32max, -f32max, 1.5], np.float32))
    b = np.array([np.inf, 1e5, -1e5, 2.0], dtype=np.float32)
    np.testing.assert_array_equal(apply(lambda p: hl.saturating_cast(hl.Float(16), p), b),
                                  np.array([65504, 65504, -65504, 2.0], np.float16))
    np.testing.assert_array_equal(apply(lambda p: hl.saturating_cast(hl.Float(64), p), b[:1]),
                                  [np.finfo(np.float64).max])


# -- lerp ----------------------------------------------------------------------------------------

def test_lerp_of_floats():
    z, o = RNG.normal(0, 10, 64).astype(np.float32), RNG.normal(0, 10, 64).astype(np.float32)
    w = RNG.random(64).astype(np.float32)
    np.testing.assert_allclose(apply(hl.lerp, z, o, w), z * (1 - w) + o * w, rtol=1e-6)


def test_lerp_of_floats_with_an_unsigned_weight():
    z, o = np.zeros(3, np.float32), np.full(3, 10, np.float32)
    w = np.array([0, 51, 255], dtype=np.uint8)
    np.testing.assert_allclose(apply(hl.lerp, z, o, w), [0, 2, 10], rtol=1e-6)


def _int_lerp(z: int, o: int, w: int, bits: int, signed: bool) -> int:
    """Halide's integer lerp with a weight already scaled to [0, 2^bits - 1]."""
    scale = (1 << bits) - 1
    bias = 1 << (bits - 1) if signed else 0
    num = (z + bias) * (scale - w) + (o + bias) * w
    return (num + scale // 2) // scale - bias


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_lerp_of_integers_with_a_same_width_weight(dtype):
    bits = np.dtype(dtype).itemsize * 8
    wdtype = np.dtype(f"u{bits // 8}")
    z, o = random_ints(dtype, 128), random_ints(dtype, 128)[::-1].copy()
    w = random_ints(wdtype, 128)
    w[:3] = [0, np.iinfo(wdtype).max, np.iinfo(wdtype).max // 2]
    signed = np.issubdtype(dtype, np.signedinteger)
    expect = [_int_lerp(int(a), int(b), int(c), bits, signed) for a, b, c in zip(z, o, w)]
    got = apply(hl.lerp, z, o, w)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expect)
    assert got[0] == z[0] and got[1] == o[1]  # weight 0 and max give the end points


def test_lerp_of_uint8_with_wider_and_narrower_weights():
    z, o = np.array([0, 10, 200, 255], np.uint8), np.array([255, 250, 0, 0], np.uint8)
    w16 = np.array([65535, 257 * 100 + 256, 257 * 3, 0], np.uint16)
    # A 16-bit weight is divided by 257 (truncating) to become 8-bit.
    expect16 = [_int_lerp(int(a), int(b), int(c) // 257, 8, False) for a, b, c in zip(z, o, w16)]
    np.testing.assert_array_equal(apply(hl.lerp, z, o, w16), expect16)
    v16 = np.array([0, 1000, 65535, 40000], np.uint16)
    w8 = np.array([255, 1, 128, 3], np.uint8)
    # An 8-bit weight for 16-bit values is multiplied by 257: 255 -> 65535.
    expect8 = [_int_lerp(int(a), int(b), int(c) * 257, 16, False)
               for a, b, c in zip(v16, v16[::-1], w8)]
    np.testing.assert_array_equal(apply(hl.lerp, v16, v16[::-1].copy(), w8), expect8)


def test_lerp_of_integers_with_a_float_weight_truncates_the_weight():
    z, o = np.array([133, 0, 0, 100], np.uint8), np.array([232, 255, 255, 100], np.uint8)
    w = np.array([0.5, 0.2, 1.0, 0.7], np.float32)
    # 0.5 * 255 = 127.5 becomes 127, so lerp(133, 232, 0.5) is 182, not 183.
    expect = [_int_lerp(int(a), int(b), int(np.float32(255) * c), 8, False)
              for a, b, c in zip(z, o, w)]
    assert expect[0] == 182
    np.testing.assert_array_equal(apply(hl.lerp, z, o, w), expect)


def test_lerp_rejects_a_signed_weight():
    x = hl.Var("x")
    with pytest.raises(hl.CompileError, match="weight"):
        hl.lerp(hl.u8(x), hl.u8(x), hl.i8(x))


# -- math functions ------------------------------------------------------------------------------

UNARY_MATH = [
    ("sqrt", np.sqrt, (0, 100)), ("exp", np.exp, (-20, 20)), ("log", np.log, (0.01, 1000)),
    ("sin", np.sin, (-10, 10)), ("cos", np.cos, (-10, 10)), ("tan", np.tan, (-1.5, 1.5)),
    ("asin", np.arcsin, (-1, 1)), ("acos", np.arccos, (-1, 1)), ("atan", np.arctan, (-50, 50)),
    ("sinh", np.sinh, (-5, 5)), ("cosh", np.cosh, (-5, 5)), ("tanh", np.tanh, (-5, 5)),
    ("asinh", np.arcsinh, (-50, 50)), ("acosh", np.arccosh, (1, 50)),
    ("atanh", np.arctanh, (-0.99, 0.99)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, ref, domain", UNARY_MATH, ids=[m[0] for m in UNARY_MATH])
def test_unary_math(name, ref, domain, dtype):
    a = RNG.uniform(*domain, 128).astype(dtype)
    got = apply(getattr(hl, name), a)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref(a), rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_erf():
    a = np.linspace(-3, 3, 61).astype(np.float32)
    np.testing.assert_allclose(apply(hl.erf, a), [math.erf(v) for v in a], rtol=1e-6,
                               atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_and_atan2(dtype):
    a = RNG.uniform(0.1, 10, 128).astype(dtype)
    b = RNG.uniform(-3, 3, 128).astype(dtype)
    np.testing.assert_allclose(apply(hl.pow, a, b), np.power(a, b), rtol=1e-6)
    np.testing.assert_allclose(apply(lambda p, q: p ** q, a, b), np.power(a, b), rtol=1e-6)
    np.testing.assert_allclose(apply(hl.atan2, b, a - 5), np.arctan2(b, a - 5), rtol=1e-6)


def test_pow_with_constant_integer_exponent_stays_in_the_base_type():
    a = np.array([0, 1, 3, 20, 255], dtype=np.uint8)
    got = apply(lambda p: p ** 2, a)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, (a.astype(np.int64) ** 2 % 256).astype(np.uint8))
    i = np.array([-3, -1, 1, 2, 5], dtype=np.int32)
    np.testing.assert_array_equal(apply(lambda p: hl.pow(p, 3), i), i ** 3)
    # A negative exponent is 1 / p ** n in p's type: integer division.
    np.testing.assert_array_equal(apply(lambda p: hl.pow(p, -1), i),
                                  [euclid(1, int(v))[0] for v in i])
    np.testing.assert_array_equal(apply(lambda p: hl.pow(p, 0), i), np.ones(5))
    f = np.array([1.1, -2.5, 3.0], dtype=np.float32)
    np.testing.assert_array_equal(apply(lambda p: p ** 3, f), f * f * f)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rounding(dtype):
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -2.6, 3.0, -0.0, 1e10],
                 dtype=dtype)
    np.testing.assert_array_equal(apply(hl.floor, a), np.floor(a))
    np.testing.assert_array_equal(apply(hl.ceil, a), np.ceil(a))
    np.testing.assert_array_equal(apply(hl.trunc, a), np.trunc(a))
    got = apply(hl.round, a)
    np.testing.assert_array_equal(got, np.rint(a))  # halves to even
    np.testing.assert_array_equal(got[:6], [0, 2, 2, -0.0, -2, -2])


def test_fract_keeps_the_sign():
    a = np.array([1.25, -1.25, 3.0, -0.5], dtype=np.float32)
    np.testing.assert_array_equal(apply(hl.fract, a), a - np.trunc(a))


def test_is_nan_is_inf_is_finite():
    a = np.array([0.0, np.nan, np.inf, -np.inf, -1.5, 1e38], dtype=np.float32)
    np.testing.assert_array_equal(apply(hl.is_nan, a), np.isnan(a))
    np.testing.assert_array_equal(apply(hl.is_inf, a), np.isinf(a))
    np.testing.assert_array_equal(apply(hl.is_finite, a), np.isfinite(a))


def test_math_of_integers_casts_to_float32():
    a = np.array([1, 4, 9, 16], dtype=np.int32)
    got = apply(hl.sqrt, a)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [1, 2, 3, 4])


def test_likely_is_the_identity():
    a = np.array([1, 2, 3], dtype=np.int32)
    np.testing.assert_array_equal(apply(hl.likely, a), a)
    np.testing.assert_array_equal(apply(lambda p: hl.select(hl.likely(p > 1), p, 0), a),
                                  [0, 2, 3])


def test_expr_of_constants():
    assert value_of(hl.Expr(7) * 6) == 42
    assert value_of(hl.Expr(-7) / 2) == -4
    assert value_of(hl.Expr(-7) % 3) == 2
    assert value_of(hl.Expr(1.5) + 2) == 3.5
    assert value_of(hl.sqrt(hl.Expr(2.0))) == np.float32(np.sqrt(np.float32(2)))
