"""saturating_cast between integer and float types: values clamp to the target's range; NaN
becomes 0; float-to-float keeps infinities."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")
TARGET_TYPES = [hl.UInt(8), hl.Int(8), hl.UInt(16), hl.Int(16), hl.UInt(32), hl.Int(32),
                hl.UInt(64), hl.Int(64), hl.Float(32)]


def _expected(d, t: hl.Type):
    dt = t.dtype if hasattr(t, "dtype") else None
    dt = np.dtype(dt)
    if dt.kind == "f":  # infinities are pinned to the finite range too
        finfo = np.finfo(dt)
        return np.clip(d.astype(np.float64), finfo.min, finfo.max).astype(dt)
    info = np.iinfo(dt)
    out = []
    for v in d.reshape(-1):
        if isinstance(v, (np.floating,)):
            if np.isnan(v):
                out.append(0)
                continue
            v = float(v)
            if v >= info.max:
                out.append(info.max)
                continue
            if v <= info.min:
                out.append(info.min)
                continue
            out.append(int(v))  # truncation toward zero
        else:
            out.append(min(max(int(v), info.min), info.max))
    return np.array(out, dtype=object).astype(dt).reshape(d.shape)


@pytest.mark.parametrize("src", with_slow([np.int64, np.float32],
                                           [np.int8, np.uint16, np.int32, np.uint32, np.uint64,
                                            np.float64]),
                         ids=lambda d: np.dtype(d).name)
def test_saturate_into_every_type(target, src):
    d = ramp_image(src, seed=111)
    if np.dtype(src).kind == "f":
        d = (d * np.asarray(3e7, src)).astype(src)
        d.reshape(-1)[:6] = [np.nan, np.inf, -np.inf, 255.9, -128.9, 4e9]
    image = hl.Buffer(d, "source")
    funcs, expected = [], []
    for t in TARGET_TYPES:
        f = hl.Func(f"sat_{t}")
        f[x, y] = hl.saturating_cast(t, image[x, y])
        if t.bits <= 32:
            f.vectorize(x, 4)
        funcs.append(f)
        expected.append(_expected(d, t).T)
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)


def test_sum_saturated_to_u8(target):
    data = ramp_image(np.uint8, seed=112)
    image = hl.Buffer(data, "image")
    f = hl.Func("f")
    f[x, y] = hl.saturating_cast(hl.UInt(8), hl.i16(image[x, y]) * 2 - 100)
    f.vectorize(x, 16)
    expected = np.clip(data.astype(np.int16) * 2 - 100, 0, 255).astype(np.uint8).T
    check(f, [W, H], target, expected=expected)
