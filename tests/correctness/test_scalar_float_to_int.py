"""Scalar float-to-int32/int64 conversions saturate (NaN to 0, values beyond the type's range to
its min or max) on every target. On x86 they are the truncating conversion (cvttss2si), which
gives the type's minimum for all of those, and a rarely taken branch that corrects them; a
histogram's index, converted for the load and again for the store of its update, is converted
once, so the x86 IR has one correcting branch per conversion."""

import re

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x = hl.Var("x")
SSE41 = "x86-64-linux-sse41"


def _input(dtype) -> np.ndarray:
    rng = np.random.default_rng(5)
    a = rng.uniform(-3e9, 3e9, 64).astype(dtype)
    a[16:32] = rng.uniform(-40, 40, 16).astype(dtype)
    a[:18] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1e30, -1e30, 2.0**31, -(2.0**31),
              2147483520.0, -2147483904.0, 2.0**63, -(2.0**63), 9.2e18, -9.2e18, 1.99]
    return a


def _saturated(a: np.ndarray, bits: int) -> np.ndarray:
    info = np.iinfo(np.int32 if bits == 32 else np.int64)
    t = np.trunc(np.nan_to_num(a.astype(np.float64), nan=0.0, posinf=2.0**70, neginf=-2.0**70))
    out = np.empty(a.shape, np.int64 if bits == 64 else np.int32)
    for i, v in enumerate(t):  # float64 comparisons with the exact bounds, value by value
        out[i] = info.max if v >= float(info.max) + 1 else info.min if v < float(info.min) \
            else int(v)
    return out


@pytest.mark.parametrize("src", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("bits", [32, 64])
def test_scalar_conversion_saturates(target, src, bits):
    a = _input(src)
    f = hl.Func("f")
    f[x] = (hl.i32 if bits == 32 else hl.i64)(hl.Buffer(a, "a")[x])
    check(f, [a.size], target, expected=_saturated(a, bits))


def _histogram(img, bins: int):
    """Counts of i32(v * bins) over img (whose values are in [0, 1), NaN or beyond), each index
    clamped into the histogram after the conversion."""
    r = hl.RDom([(0, 64)], "r")
    h = hl.Func("h")
    h[x] = 0
    cell = hl.clamp(hl.i32(img[r.x] * hl.f32(bins)), -1, bins) + 1
    h[cell] += 1
    return h


def test_histogram(target):
    rng = np.random.default_rng(2)
    a = rng.uniform(0, 1, 64).astype(np.float32)
    a[:6] = [np.nan, np.inf, -np.inf, 3e9, -3e9, 0.999]
    cells = np.clip(np.trunc(np.nan_to_num(a.astype(np.float64) * 16, nan=0.0, posinf=1e10,
                                           neginf=-1e10)), -1, 16).astype(int) + 1
    want = np.bincount(cells, minlength=18).astype(np.int32)
    check(_histogram(hl.Buffer(a, "a"), 16), [18], target, expected=want)


def test_x86_histogram_converts_once(tmp_path):
    img = hl.ImageParam(hl.Float(32), 1, "img")
    path = tmp_path / "h.ll"
    _histogram(img, 16).compile_to_llvm_assembly(str(path), [img], "h", hl.Target(SSE41))
    ir = path.read_text()
    assert "llvm.fptosi.sat" not in ir
    # However LLVM unrolls the update, each correcting branch follows its own conversion: the
    # store's index reuses the load's (made twice, LLVM merges the conversions but keeps one
    # branch, and the index computed after it, for each).
    conversions = re.findall(r"call i32 @llvm\.x86\.sse\.cvttss2si\(", ir)
    branches = re.findall(r"^f2i\.saturate[\w.]*:", ir, re.M)
    assert conversions and len(branches) == len(conversions), ir


def test_conversion_after_a_store(target):
    """The same conversion before and after a store to what it reads converts the new value."""
    h = hl.Func("h")
    h[x] = hl.f32(x) * 1.5
    h[0] = hl.f32(hl.i32(h[1]) * 3)
    h[1] = hl.f32(100.7)
    h[2] = hl.f32(hl.i32(h[1]) * 3)
    want = np.array([3, 100.7, 300, 4.5, 6], np.float32)
    check(h, [5], target, expected=want)
