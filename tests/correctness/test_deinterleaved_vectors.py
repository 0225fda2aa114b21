"""A vectorized loop that reads x / 2 and selects on x % 2 (a demosaic's interleave of colour
planes) is computed over its even and its odd lanes apart, as Halide deinterleaves: there
x / 2 is a dense read and x % 2 one value, where the whole vector gathered lane by lane."""

import numpy as np
import pytest

import webhal as hl
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.visitor import walk
from webhal.lower import lower

from .conftest import H, W, check, ramp_image

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")


def _demosaic(lanes: int, channels: bool):
    a = hl.Buffer(ramp_image(np.int16, W, H), "a")
    b = hl.Buffer(ramp_image(np.int16, W, H) * np.int16(3), "b")
    f = hl.Func("f")
    pick = hl.select(x % 2 == 0, a[x / 2, y], b[x / 2, y] + hl.cast(hl.Int(16), (x + 1) / 2))
    if channels:  # an unrolled channel loop: a block of stores in the vectorized loop
        f[x, y, c] = pick + hl.cast(hl.Int(16), c)
        f.bound(c, 0, 3).reorder(c, x, y).unroll(c)
    else:
        f[x, y] = pick
    f.vectorize(x, lanes)
    return f, a, b


@pytest.mark.parametrize("lanes", [4, 8, 16])
@pytest.mark.parametrize("channels", [False, True], ids=["one store", "three stores"])
def test_values(target, lanes, channels):
    f, a, b = _demosaic(lanes, channels)
    an, bn = np.asarray(a).T, np.asarray(b).T  # [x, y] order
    xs = np.arange(2 * W - 1)
    col = xs[:, None]
    want = np.where(col % 2 == 0, an[xs // 2], bn[xs // 2] + (col + 1) // 2)
    if channels:
        want = np.stack([want + k for k in range(3)], axis=-1)
        check(f, [2 * W - 1, H, 3], target, expected=want.astype(np.int16))
    else:
        check(f, [2 * W - 1, H], target, expected=want.astype(np.int16))


def test_halves_read_densely():
    """No division of a dense ramp by 2 is left, and each store writes stride 2."""
    f, _, _ = _demosaic(8, True)
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target("host"), "f")
    nodes = list(walk(module.body))
    assert not any(isinstance(n, ir.Div | ir.Mod) and isinstance(n.a, ir.Ramp) and
                   n.a.stride == ir.IntImm(n.a.stride.type, 1) for n in nodes)
    strides = {n.index.stride.value for n in nodes
               if isinstance(n, st.Store) and isinstance(n.index, ir.Ramp)}
    assert strides == {2}



def _upsample(lanes: int, update: bool = False):
    """An upsample's taps (x / 2, x / 2 - 1 + 2 * (x % 2), (x + 1) / 2 + x % 2) added up, with
    no select, over rows split in fours (a let of the row in the vectorized loop). With
    `update`, the taps are added to f itself, which the even/odd split does not take (a store
    reading its own buffer), so each tap stays one full-width load at x / 2 and x % 2."""
    a = hl.Buffer(ramp_image(np.float32, W, H), "a")
    f = hl.Func("f")
    yo, yi = hl.Var("yo"), hl.Var("yi")
    taps = (a[x / 2, y] * hl.f32(0.75) + a[x / 2 - 1 + 2 * (x % 2), y] * hl.f32(0.25)
            + a[(x + 1) / 2 + x % 2, y])
    if update:
        f[x, y] = hl.f32(x)
        f[x, y] = f[x, y] + taps
        f.update().split(y, yo, yi, 4).vectorize(x, lanes)
    else:
        f[x, y] = taps
    f.split(y, yo, yi, 4).vectorize(x, lanes)
    return f, a


@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("left", [2, 3])
@pytest.mark.parametrize("update", [False, True], ids=["pure", "update"])
def test_upsample_values(target, lanes, left, update):
    """Both phases of x (an even and an odd output min) read the right elements."""
    f, a = _upsample(lanes, update)
    an = np.asarray(a).T.astype(np.float64)
    xs = np.arange(left, left + 56)  # whole vectors: an update is not shifted inward
    want = (an[xs // 2] * 0.75 + an[xs // 2 - 1 + 2 * (xs % 2)] * 0.25
            + an[(xs + 1) // 2 + xs % 2])
    if update:
        want = want + xs[:, None]
    check(f, [len(xs), 20], target, expected=want[:, :20].astype(np.float32), mins=[left, 0],
          rtol=1e-4)


def test_upsample_splits_under_lets():
    """The loop under the row's let is split into even and odd lanes: no x / 2 is left."""
    f, _ = _upsample(8)
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target("host"), "f")
    assert any(isinstance(n, st.LetStmt) for n in walk(module.body))
    assert not any(isinstance(n, ir.Div | ir.Mod) and isinstance(n.a, ir.Ramp)
                   for n in walk(module.body))


def test_upsample_update_reads_dense_vectors(tmp_path):
    """Where the loop is not split, each tap at x / 2 and x % 2 is two dense vector loads and
    shuffles, not one scalar load per lane."""
    f, _ = _upsample(8, update=True)
    path = str(tmp_path / "f.ll")
    hl.Pipeline(f).compile_to_llvm_assembly(path, [], "f", hl.Target("x86-64-linux-sse41"))
    text = open(path).read()
    assert "load <4 x float>" in text
    assert "load float," not in text
