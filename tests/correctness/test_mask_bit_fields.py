"""Bit fields of comparison results (census transforms, local binary patterns, descriptors):
passes/pack_mask_bits.py builds them in the comparisons' lane width. The values must stay
Halide's on every target whatever the terms look like, and the rewrite must happen where it
pays (narrow comparisons) and nowhere else."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, camera, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")
SIMD = "wasm-32-wasmrt-wasm_simd128"
U32 = hl.UInt(32)


def _census(image, out_type=U32, radius: int = 2):
    """Halide-style census transform over repeat_edge, one bit per neighbour."""
    c = hl.BoundaryConditions.repeat_edge(image)
    offsets = [(dx, dy) for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)
               if (dx, dy) != (0, 0)]
    top = len(offsets) - 1
    f = hl.Func("census")
    terms = [hl.select(c[x + dx, y + dy] < c[x, y], hl.cast(out_type, 1 << (top - k)),
                       hl.cast(out_type, 0)) for k, (dx, dy) in enumerate(offsets)]
    value = terms[0]
    for t in terms[1:]:
        value = value | t
    f[x, y] = value
    return f, offsets


def _census_numpy(img: np.ndarray, offsets, dtype) -> np.ndarray:
    h, w = img.shape
    r = max(max(abs(dx), abs(dy)) for dx, dy in offsets)
    p = np.pad(img, r, mode="edge")
    out = np.zeros((h, w), np.uint64)
    for k, (dx, dy) in enumerate(offsets):
        darker = p[r + dy:r + dy + h, r + dx:r + dx + w] < img
        out |= darker.astype(np.uint64) << np.uint64(len(offsets) - 1 - k)
    return out.astype(dtype)


@pytest.mark.parametrize("lanes", [16, 8, 32])
def test_census_of_a_photo(target, lanes):
    img = camera()
    f, offsets = _census(hl.Buffer(img, "photo"))
    f.vectorize(x, lanes)
    check(f, [W, H], target, expected=_census_numpy(img, offsets, np.uint32).T)


def test_sixteen_bit_comparisons_into_int32_with_the_sign_bit(target):
    """int16 comparisons make 16-bit fields; bit 31 of a signed result is set by one of them."""
    a = ramp_image(np.int16, seed=5)
    f, offsets = _census(hl.Buffer(a, "a"), hl.Int(32), radius=3)  # 48 neighbours: 32 bits used
    f.vectorize(x, 8)
    want = _census_numpy(a, offsets, np.uint64) & 0xFFFFFFFF
    check(f, [W, H], target, expected=want.astype(np.uint32).view(np.int32).T)


def test_terms_that_do_not_pack(target):
    """A constant across two bytes, a byte with one term, a term that is no select, a select of
    0 and K, a condition from float comparisons and one of And/Not stay correct."""
    a = ramp_image(np.uint8, seed=6)
    b = ramp_image(np.uint8, seed=7)
    g = ramp_image(np.float32, seed=8)
    A, B, G = hl.Buffer(a, "a"), hl.Buffer(b, "b"), hl.Buffer(g, "g")
    u32 = hl.UInt(32)
    f = hl.Func("mixed")
    f[x, y] = (hl.select(A[x, y] < B[x, y], hl.u32(0x0180), hl.u32(0))           # two bytes
               | hl.select(A[x, y] > 100, hl.u32(1 << 16), hl.u32(0))            # alone
               | hl.select(A[x, y] == B[x, y], hl.u32(2), hl.u32(0))
               | hl.select(hl.logical_not(A[x, y] < 50) & (B[x, y] < 200), hl.u32(4), hl.u32(0))
               | hl.select(A[x, y] < 30, hl.u32(0), hl.u32(8))                   # 0 first
               | hl.select(G[x, y] < 0.5, hl.u32(1 << 24), hl.u32(0))            # float mask
               | hl.select(G[x, y] > 0.25, hl.u32(1 << 25), hl.u32(0))
               | hl.cast(u32, B[x, y]) << 26)                                    # no select
    f.vectorize(x, 16)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    want = (np.where(a64 < b64, 0x0180, 0) | np.where(a64 > 100, 1 << 16, 0)
            | np.where(a64 == b64, 2, 0) | np.where(~(a64 < 50) & (b64 < 200), 4, 0)
            | np.where(a64 < 30, 0, 8) | np.where(g < 0.5, 1 << 24, 0)
            | np.where(g > 0.25, 1 << 25, 0) | ((b64 << 26) & 0xFFFFFFFF))
    check(f, [W, H], target, expected=want.astype(np.uint32).T)


def _lowered(f, args, tmp_path) -> str:
    path = tmp_path / "f.stmt"
    f.compile_to_lowered_stmt(str(path), args, target=hl.Target(SIMD))
    return path.read_text()


def test_narrow_comparisons_are_packed_in_their_width(tmp_path):
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    f, _ = _census(image)
    f.vectorize(x, 16)
    stmt = _lowered(f, [image], tmp_path)
    assert "x16((uint8)128)" in stmt and "uint32x16(bitwise_or(" in stmt, stmt[-2000:]
    assert "x16((uint32)8388608)" not in stmt  # no 32-bit select of bit 23 is left


def test_wide_comparisons_are_left_as_they_are(tmp_path):
    image = hl.ImageParam(hl.Float(32), 2, "image")
    f, _ = _census(image)
    f.vectorize(x, 8)
    stmt = _lowered(f, [image], tmp_path)
    assert "x8((uint32)8388608)" in stmt and "(uint8)" not in stmt
