"""The benchmark pipelines, each written once against a module parameter `hl`.

`SUITE[name].build(hl)` defines the pipeline with `hl = webhal` or with `hl = halide` (PyPI, a
benchmark-only peer): the same algorithm and the same schedule, so the two compilers see the same
program. It returns a `Built`: the output Func, the arguments in call order (ImageParams and
Params), and the Params' values. Inputs come from demos/images, tiled to the benchmark size;
`numpy_impl` computes the same thing (or nearly: see each docstring) with numpy, for scale.

Image layout everywhere: x is the innermost dimension (stride 1), then y, then (for colour) c,
i.e. planar colour. A numpy array of shape (h, w) or (c, h, w) is that layout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

IMAGES = Path(__file__).resolve().parent.parent / "demos" / "images"

WIDTH, HEIGHT = 1536, 1024  # every output is this size (Halide's blur app's image size)


@dataclass(frozen=True)
class Built:
    """One pipeline as a library built it."""

    output: Any  # hl.Func
    args: list[Any]  # ImageParams and Params, in the entry function's argument order
    params: dict[str, float] = field(default_factory=dict)  # Param name -> value


@dataclass(frozen=True)
class Spec:
    """A suite pipeline: how to build it, its inputs and its output."""

    name: str
    summary: str
    build: Callable[[Any], Built]
    inputs: Callable[[], list[np.ndarray]]  # one array per ImageParam, in argument order
    output_shape: tuple[int, ...]  # numpy order: (h, w) or (c, h, w)
    output_dtype: str
    numpy_impl: Callable[..., np.ndarray] | None = None  # (*inputs, **params) -> output
    params: dict[str, float] = field(default_factory=dict)  # the scalar Params' values

    @property
    def is_float(self) -> bool:
        return np.dtype(self.output_dtype).kind == "f"


# -- inputs ------------------------------------------------------------------------------------


@cache
def _photo(name: str) -> np.ndarray:
    from PIL import Image
    with Image.open(IMAGES / name) as im:
        return np.array(im)


def _tile(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """Repeat `image` (h, w[, c]) until it covers height x width, then crop."""
    reps = (-(-height // image.shape[0]), -(-width // image.shape[1])) + (1,) * (image.ndim - 2)
    return np.ascontiguousarray(np.tile(image, reps)[:height, :width])


def gray_u8(height: int = HEIGHT, width: int = WIDTH) -> np.ndarray:
    return _tile(_photo("camera.png"), height, width)


def rgb_planar_u8(height: int = HEIGHT, width: int = WIDTH) -> np.ndarray:
    """(3, h, w): planar RGB."""
    return np.ascontiguousarray(_tile(_photo("astronaut.png")[..., :3], height, width)
                                .transpose(2, 0, 1))


def gray_f32(height: int = HEIGHT, width: int = WIDTH) -> np.ndarray:
    return gray_u8(height, width).astype(np.float32) / np.float32(255)


# -- (a) Halide's blur app ---------------------------------------------------------------------


def build_blur(hl) -> Built:
    """3x3 box blur of uint16 in two passes, no boundary condition (the input is 2 larger),
    with the blur app's schedule: strips of 8 rows in parallel; within a strip, each row of
    blur_x is computed once (sliding window) into a folded buffer."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(16), 2, "input")
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3
    blur_y.split(y, y, yi, 8).parallel(y).vectorize(x, 8)
    blur_x.store_at(blur_y, y).compute_at(blur_y, yi).vectorize(x, 8)
    return Built(blur_y, [inp])


def blur_input() -> list[np.ndarray]:
    # 12-bit values (as from a raw sensor): the uint16 sums of three never wrap.
    return [gray_u8(HEIGHT + 2, WIDTH + 2).astype(np.uint16) * np.uint16(16)]


def blur_numpy(inp: np.ndarray) -> np.ndarray:
    h, w = HEIGHT, WIDTH
    bx = (inp[:, :w] + inp[:, 1:w + 1] + inp[:, 2:w + 2]) // 3
    return (bx[:h] + bx[1:h + 1] + bx[2:h + 2]) // 3


# -- (b) float 3x3 convolution -----------------------------------------------------------------

KERNEL_3X3 = ((0.0625, 0.125, 0.0625),
              (0.125, 0.1875, 0.125),
              (0.0625, 0.1875, 0.0625))  # a fixed, deliberately non-separable kernel


def build_conv3x3(hl) -> Built:
    """float32 3x3 convolution with a fixed kernel over repeat_edge; the sum is written out
    term by term (row by row) so both compilers add in the same order."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    conv = hl.Func("conv3x3")
    total = None
    for dy in range(3):
        for dx in range(3):
            term = clamped[x + dx - 1, y + dy - 1] * hl.f32(KERNEL_3X3[dy][dx])
            total = term if total is None else total + term
    conv[x, y] = total
    conv.split(y, y, yi, 16).parallel(y).vectorize(x, 8)
    return Built(conv, [inp])


def conv3x3_numpy(inp: np.ndarray) -> np.ndarray:
    p = np.pad(inp, 1, mode="edge")
    h, w = inp.shape
    out = None
    for dy in range(3):
        for dx in range(3):
            term = p[dy:dy + h, dx:dx + w] * np.float32(KERNEL_3X3[dy][dx])
            out = term if out is None else out + term
    return out


# -- (c) RGB -> gray ---------------------------------------------------------------------------


def build_rgb_to_gray(hl) -> Built:
    """Planar uint8 RGB to uint8 luma, BT.601 weights in 8-bit fixed point (77, 150, 29)/256,
    rounded, with uint16 arithmetic."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(8), 3, "input")
    gray = hl.Func("gray")
    weighted = (hl.u16(inp[x, y, 0]) * 77 + hl.u16(inp[x, y, 1]) * 150
                + hl.u16(inp[x, y, 2]) * 29 + 128)
    gray[x, y] = hl.u8(weighted >> 8)
    gray.split(y, y, yi, 16).parallel(y).vectorize(x, 16)
    return Built(gray, [inp])


def rgb_to_gray_numpy(inp: np.ndarray) -> np.ndarray:
    r, g, b = (inp[i].astype(np.uint16) for i in range(3))
    return ((r * 77 + g * 150 + b * 29 + 128) >> 8).astype(np.uint8)


# -- (d) histogram equalization ----------------------------------------------------------------


def build_hist_equalize(hl) -> Built:
    """uint8 histogram (int32 counts), its running sum (a scan over an RDom), then each pixel
    mapped to cdf * 255 / (width * height)."""
    x, y, yi, i = hl.Var("x"), hl.Var("y"), hl.Var("yi"), hl.Var("i")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    r = hl.RDom([(0, inp.width()), (0, inp.height())], "r")
    hist = hl.Func("hist")
    hist[i] = 0
    hist[hl.i32(inp[r.x, r.y])] += 1
    s = hl.RDom([(1, 255)], "s")
    cdf = hl.Func("cdf")
    cdf[i] = hist[i]
    cdf[s.x] = cdf[s.x - 1] + hist[s.x]
    equalized = hl.Func("equalized")
    scaled = cdf[hl.i32(inp[x, y])] * 255 / (inp.width() * inp.height())
    equalized[x, y] = hl.u8(hl.clamp(scaled, 0, 255))
    hist.compute_root()
    cdf.compute_root()
    equalized.split(y, y, yi, 16).parallel(y).vectorize(x, 16)
    return Built(equalized, [inp])


def hist_equalize_numpy(inp: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(np.bincount(inp.ravel(), minlength=256)).astype(np.int64)
    table = np.clip(cdf * 255 // inp.size, 0, 255).astype(np.uint8)
    return table[inp]


# -- (e) separable 5-tap gaussian ----------------------------------------------------------------


def build_gaussian5(hl) -> Built:
    """uint8 5x5 binomial blur (1 4 6 4 1)^2 / 256 in two passes with uint16 intermediates over
    repeat_edge; the horizontal pass is computed per strip of 16 rows."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    c = hl.BoundaryConditions.repeat_edge(inp)
    gx, gy, out = hl.Func("gauss_x"), hl.Func("gauss_y"), hl.Func("gaussian5")
    gx[x, y] = (hl.u16(c[x - 2, y]) + hl.u16(c[x - 1, y]) * 4 + hl.u16(c[x, y]) * 6
                + hl.u16(c[x + 1, y]) * 4 + hl.u16(c[x + 2, y]))
    gy[x, y] = gx[x, y - 2] + gx[x, y - 1] * 4 + gx[x, y] * 6 + gx[x, y + 1] * 4 + gx[x, y + 2]
    out[x, y] = hl.u8((gy[x, y] + 128) >> 8)
    out.split(y, y, yi, 16).parallel(y).vectorize(x, 16)
    gx.compute_at(out, y).vectorize(x, 16)
    return Built(out, [inp])


def gaussian5_numpy(inp: np.ndarray) -> np.ndarray:
    h, w = inp.shape
    p = np.pad(inp, 2, mode="edge").astype(np.uint16)
    taps = (1, 4, 6, 4, 1)
    gx = sum(p[:, k:k + w] * np.uint16(t) for k, t in enumerate(taps))
    gy = sum(gx[k:k + h] * np.uint16(t) for k, t in enumerate(taps))
    return ((gy + np.uint16(128)) >> 8).astype(np.uint8)


# -- (f) brighten + gamma ------------------------------------------------------------------------


BRIGHTEN_GAMMA_PARAMS = {"gain": 1.25, "bias": 0.05, "gamma": 0.8}


def build_brighten_gamma(hl) -> Built:
    """float32 pointwise: clamp(input * gain + bias, 0, 1) ^ gamma, gain, bias and gamma as
    scalar Params (passed by value to the entry function)."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    gain = hl.Param(hl.Float(32), "gain")
    bias = hl.Param(hl.Float(32), "bias")
    gamma = hl.Param(hl.Float(32), "gamma")
    out = hl.Func("brighten_gamma")
    out[x, y] = hl.pow(hl.clamp(inp[x, y] * gain + bias, 0.0, 1.0), gamma)
    out.split(y, y, yi, 16).parallel(y).vectorize(x, 8)
    return Built(out, [inp, gain, bias, gamma], dict(BRIGHTEN_GAMMA_PARAMS))


def brighten_gamma_numpy(inp: np.ndarray, gain: float, bias: float,
                         gamma: float) -> np.ndarray:
    v = np.clip(inp * np.float32(gain) + np.float32(bias), 0, 1)
    return np.power(v, np.float32(gamma))


# -- (g) separable 9-tap gaussian, sliding window -------------------------------------------------

TAPS_9 = (1, 8, 28, 56, 70, 56, 28, 8, 1)  # binomial, C(8, k): sum 256


def build_gaussian9(hl) -> Built:
    """uint8 9x9 binomial blur (1 8 28 56 70 56 28 8 1)^2 / 65536 over repeat_edge, in two
    passes: uint16 horizontal sums (at most 255 * 256), uint32 vertical ones. Strips of 32 rows
    in parallel; within a strip the horizontal pass is stored per strip and computed per row,
    so the sliding window computes each of its rows once (8 halo rows per strip, not 8 per
    output row)."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    c = hl.BoundaryConditions.repeat_edge(inp)
    gx, out = hl.Func("gauss9_x"), hl.Func("gaussian9")
    gx[x, y] = _weighted_sum([hl.u16(c[x + k - 4, y]) for k in range(9)])
    gy = _weighted_sum([hl.u32(gx[x, y + k - 4]) for k in range(9)])
    out[x, y] = hl.u8((gy + (1 << 15)) >> 16)
    out.split(y, y, yi, 32).parallel(y).vectorize(x, 16)
    gx.store_at(out, y).compute_at(out, yi).vectorize(x, 16)
    return Built(out, [inp])


def _weighted_sum(terms: list):
    """sum(TAPS_9[k] * terms[k]), added left to right so both compilers see the same tree; the
    weights of 1 are left out."""
    total = None
    for tap, term in zip(TAPS_9, terms, strict=True):
        term = term if tap == 1 else term * tap
        total = term if total is None else total + term
    return total


def gaussian9_numpy(inp: np.ndarray) -> np.ndarray:
    h, w = inp.shape
    p = np.pad(inp, 4, mode="edge").astype(np.uint32)
    gx = sum(p[:, k:k + w] * np.uint32(t) for k, t in enumerate(TAPS_9))
    gy = sum(gx[k:k + h] * np.uint32(t) for k, t in enumerate(TAPS_9))
    return ((gy + np.uint32(1 << 15)) >> 16).astype(np.uint8)


# -- (h) 5x5 census transform --------------------------------------------------------------------

# The 24 neighbours of a 5x5 window, row by row; neighbour k sets bit 23 - k, so the first one
# (top left) is the signature's highest bit.
CENSUS_OFFSETS = tuple((dx, dy) for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy)


def build_census5(hl) -> Built:
    """uint8 5x5 census transform over repeat_edge: a 24-bit uint32 signature, one bit per
    neighbour, set where the neighbour is darker than the centre. Integer compares, selects
    and ors only; strips of 16 rows in parallel."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    c = hl.BoundaryConditions.repeat_edge(inp)
    out = hl.Func("census5")
    centre = c[x, y]
    signature = None
    for k, (dx, dy) in enumerate(CENSUS_OFFSETS):
        bit = hl.select(c[x + dx, y + dy] < centre, hl.u32(1 << (23 - k)), hl.u32(0))
        signature = bit if signature is None else signature | bit
    out[x, y] = signature
    out.split(y, y, yi, 16).parallel(y).vectorize(x, 16)
    return Built(out, [inp])


def census5_numpy(inp: np.ndarray) -> np.ndarray:
    h, w = inp.shape
    p = np.pad(inp, 2, mode="edge")
    out = np.zeros((h, w), np.uint32)
    for k, (dx, dy) in enumerate(CENSUS_OFFSETS):
        darker = p[2 + dy:2 + dy + h, 2 + dx:2 + dx + w] < inp
        out |= darker.astype(np.uint32) << np.uint32(23 - k)
    return out


# -- the suite -----------------------------------------------------------------------------------

SUITE: dict[str, Spec] = {s.name: s for s in [
    Spec("blur", "uint16 3x3 box blur, 2 passes (Halide's blur app)", build_blur, blur_input,
         (HEIGHT, WIDTH), "uint16", blur_numpy),
    Spec("conv3x3", "float32 3x3 convolution, repeat_edge", build_conv3x3,
         lambda: [gray_f32()], (HEIGHT, WIDTH), "float32", conv3x3_numpy),
    Spec("rgb_to_gray", "uint8 planar RGB -> gray, fixed point", build_rgb_to_gray,
         lambda: [rgb_planar_u8()], (HEIGHT, WIDTH), "uint8", rgb_to_gray_numpy),
    Spec("hist_equalize", "uint8 histogram + cumulative + equalize", build_hist_equalize,
         lambda: [gray_u8()], (HEIGHT, WIDTH), "uint8", hist_equalize_numpy),
    Spec("gaussian5", "uint8 separable 5-tap gaussian, uint16 intermediates", build_gaussian5,
         lambda: [gray_u8()], (HEIGHT, WIDTH), "uint8", gaussian5_numpy),
    Spec("brighten_gamma", "float32 brighten + gamma (pow), scalar Params",
         build_brighten_gamma, lambda: [gray_f32()], (HEIGHT, WIDTH), "float32",
         brighten_gamma_numpy, BRIGHTEN_GAMMA_PARAMS),
    Spec("gaussian9", "uint8 separable 9-tap gaussian, sliding window over rows",
         build_gaussian9, lambda: [gray_u8()], (HEIGHT, WIDTH), "uint8", gaussian9_numpy),
    Spec("census5", "uint8 5x5 census transform -> 24-bit uint32 signature", build_census5,
         lambda: [gray_u8()], (HEIGHT, WIDTH), "uint32", census5_numpy),
]}
