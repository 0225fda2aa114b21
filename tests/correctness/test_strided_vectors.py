"""Vector loads and stores of stride 2 to 4 (interleaved channels, every other element): a dense
load and a shuffle, k stores into consecutive bases merged into one interleaving store (also
under the same lets), the stores left apart when one value reads what another stores, and a
lone strided store written lane by lane at scalar addresses. A specialize() on a stride makes
its branch's accesses dense."""

import re

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


def _tiled_channels(f: hl.Func) -> None:
    """interpolate's output schedule: channels unrolled inside a 2x2 tile whose x is
    vectorized, so every store has stride 2 and its partner (the next x) is three stores on."""
    xi, yi = hl.Var("xi"), hl.Var("yi")
    f.reorder(c, x, y).bound(c, 0, 3).unroll(c).tile(x, y, xi, yi, 2, 2).unroll(xi) \
        .unroll(yi).vectorize(x, 8)


def _unrolled_pairs(g: hl.Func) -> None:
    """interpolate's pyramid levels: x unrolled by 2 inside its vectors, y by 2 outside its
    parallel strips, so both stores of a pair sit under the unrolled y's lets."""
    g.parallel(y, 8).unroll(x, 2).unroll(y, 2).vectorize(x, 8)


def test_stride_two_stores_apart_and_under_lets(target):
    """Both schedules, with tails (an odd width and height), in every target."""
    inp = hl.ImageParam(hl.Float(32), 3, "inp")
    values = np.random.default_rng(3).random((3, 19, W)).astype(np.float32)
    inp.set(hl.Buffer(values))
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y, c] = inp[x, y, c] * 2 + hl.f32(c)
    g[x, y] = inp[x, y, 1] * 3 + hl.f32(x)
    _tiled_channels(f)
    _unrolled_pairs(g)
    channels = np.arange(3, dtype=np.float32)[:, None, None]
    check(f, [W, 19, 3], target, expected=(values * 2 + channels).T, rtol=1e-6)
    check(g, [W, 19], target, expected=(values[1] * 3 + np.arange(W, dtype=np.float32)).T,
          rtol=1e-6)  # the host fuses the multiply-add


@pytest.mark.parametrize("where", ["host", "wasm-32-wasmrt-wasm_simd128"])
def test_stride_two_stores_address_lanes_as_scalars(tmp_path, where):
    """A store of stride 2 with no partner next to it writes lane by lane at base + 2i, each
    address a scalar (the vector of indices taken apart cost two to three instructions a
    lane); a pair under the same lets is one dense store of 16 floats."""
    inp = hl.ImageParam(hl.Float(32), 3, "inp")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y, c] = inp[x, y, c] * 2 + hl.f32(c)
    g[x, y] = inp[x, y, 0] * 2 + hl.f32(x)
    f.bound(x, 0, 64).bound(y, 0, 8)  # no tails: every store is a ramp of stride 2
    g.bound(x, 0, 64).bound(y, 0, 32)
    _tiled_channels(f)
    _unrolled_pairs(g)
    text = {}
    for h in (f, g):
        path = tmp_path / f"{h.name()}.ll"
        h.compile_to_llvm_assembly(str(path), [inp], h.name(), hl.Target(where))
        text[h.name()] = path.read_text()
    assert "store float" in text["f"]
    assert not re.search(r"extractelement <\d+ x i(32|64)>", text["f"])
    assert "store <16 x float>" in text["g"]
    assert "store float" not in text["g"]


def test_stores_of_a_run_time_stride(target):
    """An output whose dimension 0 stride is left free, vectorized: each store's index is a
    ramp of stride output.stride.0 (3 here, an interleaved buffer), written lane by lane."""
    inp = hl.ImageParam(hl.Float(32), 3, "inp")
    f = hl.Func("f")
    f[x, y, c] = inp[x, y, c] * 2 + hl.f32(c)
    f.output_buffer().dim(0).set_stride(hl.Expr())
    f.vectorize(x, 4)
    b = _interleaved_input(hl.Float(32), 3)
    inp.set(b)
    _realize_interleaved(f, hl.Float(32), 3, target,
                         np.asarray(b) * 2 + np.arange(3, dtype=np.float32)[:, None, None])


def _taps(stride: int) -> tuple[hl.Func, hl.ImageParam]:
    """A downsample's taps at stride * x - 1 ... stride * x + stride (runs of `stride`
    consecutive bases, and one left over), and a tap inside a select (not always read)."""
    inp = hl.ImageParam(hl.Int(32), 2, "inp")
    f = hl.Func("down")
    taps = [inp[stride * x + k, y] * (k + 3) for k in range(-1, stride + 1)]
    f[x, y] = sum(taps[1:], taps[0]) + hl.select(x % 3 == 0, inp[stride * x + 5, y], 0)
    f.vectorize(x, 8)
    return f, inp


@pytest.mark.parametrize("stride", [2, 3])
@pytest.mark.parametrize("left", [1, 2])
def test_downsample_taps(target, stride, left):
    """Taps sharing dense loads give each its own lanes, at an even and an odd output min."""
    f, inp = _taps(stride)
    width = 3 * W
    values = np.arange(width * H, dtype=np.int32).reshape(H, width) * 7 % 1000
    inp.set(hl.Buffer(values))
    xs = np.arange(left, left + 24)
    want = sum(values[:, stride * xs + k] * (k + 3) for k in range(-1, stride + 1))
    want = want + np.where(xs % 3 == 0, values[:, stride * xs + 5], 0)
    check(f, [24, H], target, expected=want.T, mins=[left, 0])


def test_downsample_taps_share_loads(tmp_path):
    """Taps at 2x-1, 2x and at 2x+1, 2x+2 each read one run of 16 elements: two dense loads per
    pair of taps, each shuffled twice (even and odd lanes), not two loads per tap."""
    inp = hl.ImageParam(hl.Float(32), 2, "inp")
    f = hl.Func("down")
    f[x, y] = inp[2 * x - 1, y] + inp[2 * x, y] * 3 + inp[2 * x + 1, y] * 5 + inp[2 * x + 2, y]
    f.vectorize(x, 8)
    path = tmp_path / "down.ll"
    f.compile_to_llvm_assembly(str(path), [inp], "down", hl.Target("x86-64-linux-sse41"))
    text = path.read_text()
    loads = text.count("load <8 x float>")
    assert loads and text.count("shufflevector <8 x float>") == loads
