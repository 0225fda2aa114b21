"""Float vectors converted to integers whose value is known in range on x86 take no saturation:
u16(clamp(f, 0, 1) * 65535) is in [0, 65535] or NaN, so NaN goes to 0 with one maxps against
0 and the rest converts plainly; clamp(i32(f * n), 0, n) (a lookup index) clamps in floats with
maxps as its last step. Values (NaN to 0, infinities and out-of-range inputs clamped) are the
reference's on every target; the x86 SSE4.1 assembly has the maxps and no compares."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x = hl.Var("x")
SSE41 = "x86-64-linux-sse41"


def _input() -> np.ndarray:
    rng = np.random.default_rng(9)
    a = rng.uniform(-0.5, 1.5, 200).astype(np.float32)
    a[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 1e30, -1e30]
    a[50:58] = np.nan  # a whole vector of NaN
    return a


def _to_u16(img):
    f = hl.Func("f")
    f[x] = hl.u16(hl.clamp(img[x], hl.f32(0), hl.f32(1)) * 65535)
    f.vectorize(x, 8)
    return f


def _index(img):
    f = hl.Func("f")
    f[x] = hl.clamp(hl.i32(img[x] * 2048), 0, 2048)
    f.vectorize(x, 8)
    return f


def test_u16_of_a_clamped_product(target):
    a = _input()
    want = np.where(np.isnan(a), 0, np.clip(np.nan_to_num(a), 0, 1) * 65535).astype(np.uint16)
    check(_to_u16(hl.Buffer(a, "a")), [a.size], target, expected=want)


def test_clamped_index(target):
    a = _input()
    with np.errstate(invalid="ignore"):
        scaled = np.clip(np.nan_to_num(a.astype(np.float64), nan=0.0) * 2048, -1, 2049)
    want = np.clip(np.trunc(scaled), 0, 2048).astype(np.int32)
    check(_index(hl.Buffer(a, "a")), [a.size], target, expected=want)


@pytest.mark.parametrize("make", [_to_u16, _index], ids=["u16", "index"])
def test_one_maxps_no_compares(tmp_path, make):
    img = hl.ImageParam(hl.Float(32), 1, "img")
    path = tmp_path / "f.s"
    make(img).compile_to_assembly(str(path), [img], "f", hl.Target(SSE41))
    asm = path.read_text()
    assert "maxps" in asm
    assert not any(op in asm for op in ("cmpps", "cmpltps", "cmpunordps", "cmpnleps",
                                        "cmpleps", "cmpordps", "blendvps")), \
        [ln for ln in asm.splitlines() if "cmp" in ln and "ps" in ln]
