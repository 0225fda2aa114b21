"""Narrowing and shifts of whole vectors, where wasm SIMD differs from scalar code: saturating
casts of unsigned lanes at and above 2**15 and 2**31 (wasm's narrow reads lanes as signed),
shifts whose amount differs per lane (wasm shifts all lanes by one amount, so they are split),
of constants, of narrowed values and by signed amounts; clamp with lo above hi. Expected values
come from numpy (written out here), and the last test compares with PyPI halide."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x = hl.Var("x")
N = 48  # three 16-lane vectors

U16 = np.array([0, 1, 254, 255, 256, 1000, 32767, 32768, 40000, 65534, 65535, 300] * 4,
               np.uint16)
U32 = np.array([0, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1] * 6, np.uint32)
AMOUNTS = np.array([0, 1, 2, 3, 4, 5, 6, 7] * 6, np.uint8)
SIGNED_AMOUNTS = np.array([0, -1, 2, -3, 4, -5, 6, -7] * 6, np.int8)


def _shift(a: np.ndarray, n: np.ndarray, left: bool) -> np.ndarray:
    """Halide's shift: a negative amount shifts the other way; right shifts of unsigned values
    are logical, of signed ones arithmetic."""
    a64, n64 = a.astype(np.int64), n.astype(np.int64)
    if a.dtype.kind == "u":
        a64 = a64 & ((1 << (8 * a.dtype.itemsize)) - 1)
    go_left = (n64 >= 0) == left
    out = np.where(go_left, a64 << np.abs(n64), a64 >> np.abs(n64))
    return out.astype(a.dtype)  # wraps to the type's width, as Halide's shifts do


@pytest.mark.parametrize("lanes", [8, 16])
def test_saturating_cast_of_unsigned_lanes(target, lanes):
    a16, a32 = hl.Buffer(U16, "a16"), hl.Buffer(U32, "a32")
    casts = {"u16_u8": (a16, hl.UInt(8)), "u32_u16": (a32, hl.UInt(16)),
             "u32_u8": (a32, hl.UInt(8)), "u16_i8": (a16, hl.Int(8)),
             "u32_i16": (a32, hl.Int(16))}
    funcs, expected = [], []
    for name, (source, t) in casts.items():
        f = hl.Func(f"sat_{name}_{lanes}")
        f[x] = hl.saturating_cast(t, source[x])
        f.vectorize(x, lanes)
        funcs.append(f)
        values = source.data().astype(np.int64)
        info = np.iinfo(t.dtype)
        expected.append(np.clip(values, info.min, info.max).astype(t.dtype))
    # and the same clamp written out by hand
    g = hl.Func(f"min_then_cast_{lanes}")
    g[x] = hl.u8(hl.min(a16[x], 255))
    g.vectorize(x, lanes)
    funcs.append(g)
    expected.append(np.minimum(U16, 255).astype(np.uint8))
    check(hl.Pipeline(funcs), [N], target, expected=expected)


def test_shifts_by_an_amount_per_lane(target):
    a16 = hl.Buffer(U16, "a16")
    n, sn = hl.Buffer(AMOUNTS, "n"), hl.Buffer(SIGNED_AMOUNTS, "sn")
    narrowed = U16.astype(np.uint8)  # u8(a16): the low byte
    cases = {
        "const_u16_right": (hl.u16(65534) >> hl.u16(n[x]),
                            _shift(np.full(N, 65534, np.uint16), AMOUNTS.astype(np.uint16),
                                   left=False)),
        "const_u8_right": (hl.u8(254) >> n[x],
                           _shift(np.full(N, 254, np.uint8), AMOUNTS, left=False)),
        "narrowed_right": (hl.u8(a16[x]) >> n[x], _shift(narrowed, AMOUNTS, left=False)),
        "narrowed_left_signed": (hl.u8(a16[x]) << sn[x],
                                 _shift(narrowed, SIGNED_AMOUNTS, left=True)),
        "u16_left_signed": (a16[x] << hl.i16(sn[x]),
                            _shift(U16, SIGNED_AMOUNTS.astype(np.int16), left=True)),
        "u16_right_signed": (a16[x] >> hl.i16(sn[x]),
                             _shift(U16, SIGNED_AMOUNTS.astype(np.int16), left=False)),
        "i16_right": (hl.i16(a16[x]) >> hl.u16(n[x]),
                      _shift(U16.astype(np.int16), AMOUNTS.astype(np.uint16), left=False)),
        "i8_right_signed": (hl.i8(a16[x]) >> sn[x],
                            _shift(U16.astype(np.int8), SIGNED_AMOUNTS, left=False)),
    }
    funcs, expected = [], []
    for name, (value, want) in cases.items():
        f = hl.Func(f"shift_{name}")
        f[x] = value
        f.vectorize(x, 16)
        funcs.append(f)
        expected.append(want)
    check(hl.Pipeline(funcs), [N], target, expected=expected)


def test_clamp_with_lo_above_hi_gives_lo(target):
    # Halide's clamp is max(min(a, hi), lo): when lo > hi every value becomes lo.
    a = hl.Buffer(np.arange(-8, 8, dtype=np.int32), "a")
    f = hl.Func("clamp_inverted")
    f[x] = hl.clamp(a[x], 5, 2)
    f.vectorize(x, 4)
    check(f, [16], target, expected=np.full(16, 5, np.int32))


@pytest.mark.halide
def test_the_same_expressions_in_halide():
    halide = pytest.importorskip("halide")
    results = []
    for module in (hl, halide):
        a16, n = module.Buffer(U16, "a16"), module.Buffer(AMOUNTS, "n")
        sn = module.Buffer(SIGNED_AMOUNTS, "sn")
        v = module.Var("x")
        exprs = [module.saturating_cast(module.UInt(8), a16[v]),
                 module.u16(65534) >> module.u16(n[v]),
                 module.u8(a16[v]) >> n[v],
                 module.u8(a16[v]) << sn[v],
                 a16[v] << module.i16(sn[v]),
                 module.clamp(module.i32(a16[v]), 5, 2)]
        outs = []
        for i, e in enumerate(exprs):
            f = module.Func(f"e{i}")
            f[v] = e
            f.vectorize(v, 16)
            outs.append(np.asarray(f.realize([N])).copy())
        results.append(outs)
    for i, (ours, theirs) in enumerate(zip(*results)):
        np.testing.assert_array_equal(ours, theirs, err_msg=f"expression {i}")


def test_saturating_casts_and_clamp_on_webgpu(wgpu_adapter):
    xo, xi = hl.Var("xo"), hl.Var("xi")
    a16 = hl.Buffer(U16, "a16")
    sat, by_min, inverted = hl.Func("sat_gpu"), hl.Func("min_then_cast_gpu"), hl.Func("clamp_gpu")
    sat[x] = hl.saturating_cast(hl.UInt(8), a16[x])
    by_min[x] = hl.u8(hl.min(a16[x], 255))
    inverted[x] = hl.clamp(hl.i32(a16[x]), 5, 2)
    for f in (sat, by_min, inverted):
        f.gpu_tile(x, xo, xi, 16)
    clipped = np.minimum(U16, 255).astype(np.uint8)
    check(hl.Pipeline([sat, by_min, inverted]), [N], "host-webgpu",
          expected=[clipped, clipped, np.full(N, 5, np.int32)])
