"""A generator for the image input and output tests: one input and output of each layout an
image converts to (planar and interleaved uint8 colour, grey uint8, grey float32), each output
a simple function of its input alone, so that a wrong channel, row or byte shows."""

import webhal as hl

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")


@hl.generator(name="image_kinds")
class ImageKinds:
    """planar (x, y, c) -> 255 - planar; interleaved (c, x, y), dim(0) == 3 -> 255 - it; grey
    uint8 (x, y) -> grey // 2 + 64; level float32 (x, y) -> level * 0.5 + 0.25. On WebGPU each
    output is a kernel reading only its input, so every buffer is a device argument."""

    planar = hl.InputBuffer(hl.UInt(8), 3)
    interleaved = hl.InputBuffer(hl.UInt(8), 3)
    grey = hl.InputBuffer(hl.UInt(8), 2)
    level = hl.InputBuffer(hl.Float(32), 2)
    planar_out = hl.OutputBuffer(hl.UInt(8), 3)
    interleaved_out = hl.OutputBuffer(hl.UInt(8), 3)
    grey_out = hl.OutputBuffer(hl.UInt(8), 2)
    level_out = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        g.planar_out[x, y, c] = 255 - g.planar[x, y, c]
        g.interleaved_out[c, x, y] = 255 - g.interleaved[c, x, y]
        g.grey_out[x, y] = g.grey[x, y] // 2 + 64
        g.level_out[x, y] = g.level[x, y] * 0.5 + 0.25
        g.interleaved.dim(0).set_bounds(0, 3)
        g.interleaved_out.output_buffer().dim(0).set_bounds(0, 3)
        g.interleaved_out.bound(c, 0, 3).unroll(c)
        if g.target().has_gpu_feature():
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            for out in (g.planar_out, g.grey_out):
                out.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
            g.interleaved_out.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
            g.level_out.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
