"""Sobel edges: the gradient magnitude of a grey photograph, the same size as the photograph.

Each Sobel kernel is separable: a [1 2 1] smoothing across the gradient times a [-1 0 1]
difference along it. The magnitude is the L1 norm |gx| + |gy| (as an absolute difference of two
smoothed values, so all of it is uint16 arithmetic), divided by 4 and saturated to uint8; edges
are repeated at the border. Integer math only, so every target gives the same bits.

CPU schedule: strips of 32 rows in parallel (the Web Workers of the wasm threads variant), each
row vectorized across x by the natural vector size of uint8 (16 lanes of SIMD128), with the two
smoothing passes inlined. Storing them instead (the vertical one per row, the horizontal one per
strip with a sliding window of three rows) does fewer additions, but measured on the photo it
was two to three times slower on the host and in wasm: for a 3x3 stencil the stores and loads
of the intermediate rows cost more than the few additions they save, while the nine reads of
each output vector hit cache lines that its neighbours have just loaded.

GPU schedule: 16x8 invocations per workgroup (within the 256 that Dawn and SwiftShader allow),
each computing four adjacent output pixels, one 32-bit word of the uint8 output, so that no two
invocations share a word of it; the 3x3 stencil is inlined, reading the input straight from the
storage buffer (a tile in workgroup memory would add a barrier for reuse this small).
"""

import webhal as hl


def sobel(image, output: hl.Func) -> hl.Func:
    """Define the Sobel magnitude of `image` (a uint8 ImageParam or Buffer) in `output`."""
    x, y = hl.Var("x"), hl.Var("y")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    wide = hl.Func("wide")
    wide[x, y] = hl.u16(clamped[x, y])
    # [1 2 1] down the columns (for the x gradient) and along the rows (for the y gradient).
    smooth_v, smooth_h = hl.Func("smooth_v"), hl.Func("smooth_h")
    smooth_v[x, y] = wide[x, y - 1] + 2 * wide[x, y] + wide[x, y + 1]
    smooth_h[x, y] = wide[x - 1, y] + 2 * wide[x, y] + wide[x + 1, y]
    gx = hl.absd(smooth_v[x + 1, y], smooth_v[x - 1, y])
    gy = hl.absd(smooth_h[x, y + 1], smooth_h[x, y - 1])
    output[x, y] = hl.u8(hl.min((gx + gy) / 4, 255))
    return output


def schedule_cpu(output: hl.Func, vector: int) -> None:
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    output.split(y, y, yi, 32).parallel(y).vectorize(x, vector)


def schedule_gpu(output: hl.Func) -> None:
    x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    output.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)


@hl.generator(name="sobel")
class Sobel:
    """Sobel edge magnitude: uint8 grey in, uint8 out of the same size; targets with a GPU
    feature get the GPU schedule."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        sobel(g.input, g.output)
        if g.target().has_gpu_feature():
            schedule_gpu(g.output)
        else:
            schedule_cpu(g.output, g.natural_vector_size(hl.UInt(8)))


DEMO = {
    "title": "Sobel edges",
    "image": "camera.png",
    "color": "gray",
    "scalars": {},
    "tolerance": 0,
    "description": "The gradient magnitude of the cameraman photo from two separable 3x3 Sobel "
                   "kernels, in integer arithmetic.",
}
