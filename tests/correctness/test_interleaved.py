"""Interleaved images (Halide's lesson 16): dim() stride constraints on inputs and on
output_buffer(), an undefined hl.Expr() that lets any stride in, and a specialize() per
layout, whose condition fixes the channel count so the channel loop unrolls."""

import numpy as np
import pytest

import webhal as hl

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
W, H = 29, 17


def _pixels(seed=0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (H, W, 3), dtype=np.uint8)


def _buffer(pixels: np.ndarray, interleaved: bool) -> hl.Buffer:
    """pixels (rows, columns, channels) as a Buffer indexed [x, y, c]."""
    if interleaved:
        b = hl.Buffer.make_interleaved(hl.UInt(8), W, H, 3)
    else:
        b = hl.Buffer(hl.UInt(8), [W, H, 3])
    np.asarray(b)[...] = pixels.transpose(2, 0, 1)  # numpy's view of a Buffer is [c, y, x]
    return b


def _values(b: hl.Buffer) -> np.ndarray:
    return np.array([[[b[i, j, k] for k in range(3)] for i in range(W)] for j in range(H)],
                    dtype=np.uint8)


def _brighter(layout: str):
    inp = hl.ImageParam(hl.UInt(8), 3, f"rgb_{layout}")
    f = hl.Func(f"brighter_{layout}")
    f[x, y, c] = hl.u8(hl.min(hl.u16(inp[x, y, c]) * 3 // 2, 255))
    out = f.output_buffer()
    if layout == "interleaved":
        for d in (inp.dim(0), out.dim(0)):
            d.set_stride(3)
        for d in (inp.dim(2), out.dim(2)):
            d.set_stride(1).set_bounds(0, 3)
        f.reorder(c, x, y).unroll(c).vectorize(x, 8)
    elif layout in ("either", "specialized"):
        inp.dim(0).set_stride(hl.Expr())  # any stride, planar or interleaved
        out.dim(0).set_stride(hl.Expr())
        if layout == "specialized":
            interleaved = (inp.dim(0).stride() == 3) & (inp.dim(2).stride() == 1) & \
                (inp.dim(2).extent() == 3) & (out.dim(0).stride() == 3) & \
                (out.dim(2).stride() == 1) & (out.dim(2).extent() == 3)
            f.specialize(interleaved).reorder(c, x, y).unroll(c)  # c's extent is 3 there
            planar = (inp.dim(0).stride() == 1) & (out.dim(0).stride() == 1)
            f.specialize(planar).vectorize(x, 8)
    return inp, f


@pytest.mark.parametrize("layout, interleaved", [("interleaved", True), ("either", True),
                                                 ("either", False), ("specialized", True),
                                                 ("specialized", False)])
def test_layouts(compiled_target, layout, interleaved):
    inp, f = _brighter(layout)
    pixels = _pixels()
    inp.set(_buffer(pixels, interleaved))
    out = hl.Buffer.make_interleaved(hl.UInt(8), W, H, 3) if interleaved else \
        hl.Buffer(hl.UInt(8), [W, H, 3])
    f.realize(out, compiled_target)
    want = np.minimum(pixels.astype(np.uint16) * 3 // 2, 255).astype(np.uint8)
    np.testing.assert_array_equal(_values(out), want)


def test_a_planar_buffer_where_interleaved_is_required(compiled_target):
    inp, f = _brighter("interleaved")
    inp.set(_buffer(_pixels(), True))
    with pytest.raises(hl.BufferError, match=r"brighter_interleaved.stride.0 \(1\) == 3 .*"
                       "make_interleaved"):
        f.realize([W, H, 3], compiled_target)
