"""Casts between every pair of numeric types: integers wrap (truncate, sign- or zero-extend),
floats to integers saturate (NaN to 0) after truncation toward zero, integers to floats round
to nearest, bools from nonzero, reinterpret keeps the bits."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")
TYPES = [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
         np.float32, np.float64]
HL = {np.dtype(t): hl.Buffer(np.zeros(1, t)).type() for t in TYPES + [np.bool_]}


def _data(dtype):
    d = ramp_image(dtype, seed=101)
    if np.dtype(dtype).kind == "f":
        d = d * np.asarray(1e7, dtype)  # past every 8/16/32-bit range
        d.reshape(-1)[:8] = [np.nan, np.inf, -np.inf, -0.5, 0.5, -1.5, 2 ** 63, -2 ** 63 - 4096]
    return d


def _numpy_cast(d, dst):
    src = d.dtype
    dst = np.dtype(dst)
    if src.kind == "f" and dst.kind in "iu":
        info = np.iinfo(dst)
        t = np.trunc(d.astype(np.float64))
        out = np.where(np.isnan(t), 0, np.clip(t, info.min, info.max))
        # float64 cannot hold every 64-bit bound: pin the ends exactly.
        res = np.array([int(v) for v in out.reshape(-1)], dtype=object)
        res = np.clip(res, info.min, info.max)
        return res.astype(dst).reshape(d.shape)
    if src.kind in "iub" and dst.kind in "iu":
        return d.astype(dst)  # numpy wraps integer to integer conversions, as Halide does
    return d.astype(dst)


@pytest.mark.parametrize("src", with_slow([np.int16, np.float32],
                                           [np.uint8, np.int8, np.uint16, np.uint32, np.int32,
                                            np.int64, np.uint64, np.float64]),
                         ids=lambda d: np.dtype(d).name)
def test_cast_to_every_type(target, src):
    d = _data(src)
    image = hl.Buffer(d, "source")
    funcs, expected = [], []
    for dst in TYPES + [np.bool_]:
        f = hl.Func(f"to_{np.dtype(dst).name}")
        f[x, y] = hl.cast(HL[np.dtype(dst)], image[x, y])
        # Vector lanes too: x86 converts vectors of floats to integers with selects around a
        # plain conversion, not LLVM's saturating intrinsic (expanded lane by lane there).
        if dst in (np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.float32,
                   np.bool_):
            f.vectorize(x, 8)
        funcs.append(f)
        with np.errstate(all="ignore"):
            if dst is np.bool_:
                expected.append((d != 0).T)
            else:
                expected.append(_numpy_cast(d, dst).T)
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


def test_reinterpret(target):
    d = _data(np.float32)
    image = hl.Buffer(d, "source")
    bits = hl.Func("bits")
    bits[x, y] = hl.reinterpret(hl.UInt(32), image[x, y])
    back = hl.Func("back")
    back[x, y] = hl.reinterpret(hl.Int(16), hl.u16(bits[x, y] >> hl.u32(16)))
    bits.compute_root().vectorize(x, 4)
    check(hl.Pipeline([bits, back]), [W, H], target,
          expected=[d.view(np.uint32).T, (d.view(np.uint32) >> 16).astype(np.uint16)
                    .view(np.int16).T])


def test_int_literals_wrap_to_the_type(target):
    f = hl.Func("f")
    f[x] = hl.cast(hl.UInt(8), 300) + hl.u8(x) * hl.u8(200)
    check(f, [W], target, expected=((44 + np.arange(W) * 200) % 256).astype(np.uint8))


@pytest.mark.parametrize("dst,lo,hi", [(np.int32, 0, 1792), (np.int32, 3, 6), (np.uint8, 0, 255),
                                       (np.int16, 0, 1000), (np.uint16, 2, 65535)],
                         ids=lambda v: str(v) if isinstance(v, int) else np.dtype(v).name)
def test_clamped_cast_of_a_float(target, dst, lo, hi):
    """clamp(int(f), lo, hi) with constants 0 <= lo <= hi, which the LLVM backend clamps in
    floats and converts without saturating: NaN, infinities and values past either end give
    what saturation then the clamp give (NaN to lo, as int(NaN) is 0 and 0 <= lo)."""
    d = _data(np.float32)
    d.reshape(-1)[8:16] = [lo - 0.5, hi + 0.5, hi + 0.99, lo + 0.99, -0.0, 0.0, 5e9, -5e9]
    image = hl.Buffer(d, "source")
    t = HL[np.dtype(dst)]
    clamped, nested = hl.Func("clamped"), hl.Func("nested")
    clamped[x, y] = hl.clamp(hl.cast(t, image[x, y]), lo, hi)
    nested[x, y] = hl.min(hl.max(hl.cast(t, image[x, y] * 3), lo), hi)
    clamped.compute_root().vectorize(x, 8)  # vectors and their scalar tail
    with np.errstate(all="ignore"):
        expected = [np.clip(_numpy_cast(d, dst).astype(np.int64), lo, hi).astype(dst).T,
                    np.clip(_numpy_cast(d * np.float32(3), dst).astype(np.int64), lo, hi)
                    .astype(dst).T]
    check(hl.Pipeline([clamped, nested]), [W, H], target, expected=expected)
