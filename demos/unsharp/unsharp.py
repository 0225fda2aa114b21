"""Unsharp mask: an RGB photograph sharpened by adding back `amount` times what a blur removes.

The blur is separable, a 7-tap binomial kernel [1 6 15 20 15 6 1] / 64 down the columns and
then along the rows, in uint16 fixed point (the vertical pass keeps two bits below the pixel's,
the horizontal pass rounds to uint8), with edges repeated at the border. The sharpened pixel is
input + amount * (input - blurred), clamped to 0..255; `amount` is turned into a fixed-point
multiplier of 1/256 steps once, so that everything per pixel is integer arithmetic and every
target gives the same bits.

CPU schedule: the three planes and strips of 32 rows, fused into one parallel loop (48 tasks on
the photo, for the Web Workers of the wasm threads variant), each row vectorized across x by the
natural vector size of uint8 (16 lanes of SIMD128). For each output row the vertical pass is
computed for just that row (seven input rows in, one row out, in a buffer stored once per task)
and the horizontal pass is inlined into the output, so the blur's only intermediate is one
uint16 row, still in the L1 cache when the horizontal pass reads it.

GPU schedule: the vertical pass is a kernel of its own over the whole image (16x8 invocations
per workgroup, two uint16 pixels each, so that each writes whole 32-bit words), then the output
kernel (16x8 invocations, four uint8 pixels each, one workgroup grid per plane) reads seven of
them per pixel for the horizontal pass and sharpens.
"""

import webhal as hl

TAPS = (1, 6, 15, 20, 15, 6, 1)  # binomial, sum 64


def unsharp(image, amount, output: hl.Func) -> hl.Func:
    """Define the unsharp mask of `image` (planar uint8: x, y, c) in `output`; returns the
    vertical pass, the Func the schedules place."""
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    clamped = hl.BoundaryConditions.repeat_edge(image, [(0, image.width()),
                                                        (0, image.height())])
    blur_y = hl.Func("blur_y")  # sum of 64 weights, divided by 16: at most 1020
    vertical = sum(w * hl.u16(clamped[x, y + i - 3, c]) for i, w in enumerate(TAPS))
    blur_y[x, y, c] = (vertical + 8) >> 4
    horizontal = sum(w * blur_y[x + i - 3, y, c] for i, w in enumerate(TAPS))  # < 65536
    blurred = hl.i32((horizontal + 128) >> 8)
    # amount in steps of 1/256: exact on every target, and the slider moves by 0.1.
    scale = hl.i32(hl.round(amount * 256.0))
    pixel = hl.i32(image[x, y, c])
    sharpened = pixel + ((scale * (pixel - blurred) + 128) >> 8)
    output[x, y, c] = hl.u8(hl.clamp(sharpened, 0, 255))
    return blur_y


def schedule_cpu(output: hl.Func, blur_y: hl.Func, vector: int) -> None:
    x, y, c, yo, yi, t = (hl.Var(n) for n in ("x", "y", "c", "yo", "yi", "t"))
    output.split(y, yo, yi, 32).reorder(x, yi, yo, c).fuse(yo, c, t).parallel(t)
    output.vectorize(x, vector)
    blur_y.store_at(output, t).compute_at(output, yi).vectorize(x, vector)


def schedule_gpu(output: hl.Func, blur_y: hl.Func) -> None:
    x, y, c, xv = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("xv")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    blur_y.compute_root().split(x, x, xv, 2).vectorize(xv)
    blur_y.gpu_tile(x, y, xo, yo, xi, yi, 16, 8).gpu_blocks(c)
    output.split(x, x, xv, 4).vectorize(xv)
    output.gpu_tile(x, y, xo, yo, xi, yi, 16, 8).gpu_blocks(c)


@hl.generator(name="unsharp")
class Unsharp:
    """Unsharp mask: planar uint8 RGB in (x, y, c with 3 planes), uint8 out of the same size,
    `amount` the strength; targets with a GPU feature get the GPU schedule."""

    input = hl.InputBuffer(hl.UInt(8), 3)
    amount = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.UInt(8), 3)

    def generate(g):
        blur_y = unsharp(g.input, g.amount, g.output)
        if g.target().has_gpu_feature():
            schedule_gpu(g.output, blur_y)
        else:
            schedule_cpu(g.output, blur_y, g.natural_vector_size(hl.UInt(8)))


DEMO = {
    "title": "Unsharp mask",
    "image": "astronaut.png",
    "color": "rgb",
    "scalars": {"amount": {"default": 1.5, "min": 0.0, "max": 4.0, "step": 0.1}},
    "tolerance": 0,
    "description": "Sharpens the astronaut portrait by adding back what a separable 7-tap "
                   "blur takes away, in integer arithmetic.",
}
