"""Vector loads and stores of stride 2 to 4 (interleaved channels, every other element): a dense
load and a shuffle, k stores into consecutive bases merged into one interleaving store, and
the stores left apart when one value reads what another stores. A specialize() on a stride
makes its branch's accesses dense."""

import numpy as np
import pytest

import webhal as hl

from .conftest import assert_same, check

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
W, H = 37, 5


def _interleaved_input(t: hl.Type, channels: int, seed: int = 0) -> hl.Buffer:
    dtype = np.dtype(str(t))
    rng = np.random.default_rng(seed)
    values = (rng.integers(0, 100, (channels, H, W)) if not t.is_float() else
              rng.random((channels, H, W))).astype(dtype)
    b = hl.Buffer.make_interleaved(t, W, H, channels)
    np.asarray(b)[...] = values
    return b


def _realize_interleaved(f: hl.Func, t: hl.Type, channels: int, target: str, expected,
                         width: int = W):
    """f realized into an interleaved Buffer (width, H, channels; or width, 3 when channels is
    0) on the reference and on target, each compared with expected (numpy's view)."""
    for where in dict.fromkeys(["reference", target]):
        out = (hl.Buffer.make_interleaved(t, width, H, channels) if channels else
               hl.Buffer(t, [width, 3], [1, 0]))  # [x, c] with c innermost
        f.realize(out, hl.Target(where))
        assert_same(np.array(out), np.asarray(expected, dtype=np.asarray(out).dtype),
                    what=f"output {f.name()} on {where}")


def _interleaved(f: hl.Func, inp: hl.ImageParam, channels: int) -> None:
    out = f.output_buffer()
    for d in (inp.dim(0), out.dim(0)):
        d.set_stride(channels)
    for d in (inp.dim(2), out.dim(2)):
        d.set_stride(1).set_bounds(0, channels)


@pytest.mark.parametrize("t, lanes", [(hl.UInt(8), 16), (hl.Int(16), 8), (hl.Float(32), 4)])
@pytest.mark.parametrize("channels", [2, 3, 4])
def test_interleaved_channels(target, t, lanes, channels):
    inp = hl.ImageParam(t, 3, "inp")
    f = hl.Func("f")
    f[x, y, c] = inp[x, y, c] * 2 + hl.cast(t, c)
    _interleaved(f, inp, channels)
    f.reorder(c, x, y).unroll(c).vectorize(x, lanes)
    b = _interleaved_input(t, channels)
    inp.set(b)
    expected = np.asarray(b) * 2 + np.arange(channels, dtype=np.asarray(b).dtype)[:, None, None]
    _realize_interleaved(f, t, channels, target, expected)


def test_swapped_channels(target):
    """Each store's value reads another channel: loads of stride 3 at offsets 2, 1, 0."""
    inp = hl.ImageParam(hl.UInt(8), 3, "inp")
    f = hl.Func("bgr")
    f[x, y, c] = inp[x, y, 2 - c]
    _interleaved(f, inp, 3)
    f.reorder(c, x, y).unroll(c).vectorize(x, 16)
    b = _interleaved_input(hl.UInt(8), 3)
    inp.set(b)
    _realize_interleaved(f, hl.UInt(8), 3, target, np.asarray(b)[::-1])


def test_every_other_element(target):
    """A stride-2 load of a planar input (a 2x downsample)."""
    inp = hl.ImageParam(hl.Int(32), 2, "inp")
    f = hl.Func("half")
    f[x, y] = inp[2 * x, y] + inp[2 * x + 1, y]
    f.vectorize(x, 8)
    values = np.arange(2 * W * H, dtype=np.int32).reshape(H, 2 * W)
    inp.set(hl.Buffer(values))
    check(f, [W, H], target, expected=(values[:, 0::2] + values[:, 1::2]).T)


def test_stores_that_read_each_other_stay_in_order(target):
    """An update over channels in order, where channels 1 and 2 read channel 0 of the same
    pixels after its store: merging the stores would read channel 0 before it is written."""
    xo, xi = hl.Var("xo"), hl.Var("xi")
    r = hl.RDom([(0, 3)], "r")
    f = hl.Func("f")
    f[x, c] = hl.i32(x * 10 + c)
    f[x, r] = f[x, r] + f[x, 0]
    f.output_buffer().dim(0).set_stride(3)
    f.output_buffer().dim(1).set_stride(1).set_bounds(0, 3)
    f.update().split(x, xo, xi, 4).reorder(xi, r, xo).vectorize(xi).unroll(r)
    first = np.arange(36)[:, None] * 10 + np.arange(3)[None, :]
    expected = first.copy()
    expected[:, 0] = first[:, 0] * 2
    expected[:, 1:] = first[:, 1:] + expected[:, :1]
    _realize_interleaved(f, hl.Int(32), 0, target, expected.T, width=36)


def test_interleaved_code_is_dense(tmp_path):
    """The host code of lesson 16's interleaved brighten reads its 46 bytes in two loads of a
    power-of-two width (32 bytes from the start, 32 ending at the last byte: an odd-sized load
    becomes a dozen scalar inserts on x86) and stores 48 at once."""
    inp = hl.ImageParam(hl.UInt(8), 3, "inp")
    f = hl.Func("brighter")
    f[x, y, c] = inp[x, y, c] + 1
    _interleaved(f, inp, 3)
    f.reorder(c, x, y).unroll(c).vectorize(x, 16)
    path = tmp_path / "brighter.ll"
    f.compile_to_llvm_assembly(str(path), [inp], "brighter", hl.Target("host"))
    text = path.read_text()
    assert "load <32 x i8>" in text
    assert "load <46 x i8>" not in text
    assert "store <48 x i8>" in text


def test_a_specialized_stride_makes_dense_accesses(tmp_path):
    """specialize(stride == 1) substitutes the stride in its branch, as Halide does."""
    inp = hl.ImageParam(hl.UInt(8), 3, "inp")
    f = hl.Func("brighter")
    f[x, y, c] = inp[x, y, c] + 1
    inp.dim(0).set_stride(hl.Expr())
    f.output_buffer().dim(0).set_stride(hl.Expr())
    f.vectorize(x, 16)  # before specialize(), so the specialization is vectorized too
    f.specialize((inp.dim(0).stride() == 1) & (f.output_buffer().dim(0).stride() == 1))
    path = tmp_path / "brighter.stmt"
    f.compile_to_lowered_stmt(str(path), [inp], hl.StmtOutputFormat.Text, hl.Target("host"))
    assert ", 1, 16)]" in path.read_text()
