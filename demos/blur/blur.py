"""The default demo: a 3x3 box blur of a photograph in two passes, as in Halide's blur app.

The output is two pixels smaller than the photograph in each dimension, so every read is inside
the image. The schedule is the blur app's: strips of 8 rows in parallel, each strip computing
the rows of the horizontal pass it needs, both passes vectorized across x.
"""

import webhal as hl

# What `webhal demo blur` shows (webhal/demo_page.py reads it).
DEMO = {
    "title": "Box blur",
    "description": "A 3x3 box blur in two passes, uint16 between them, as in Halide's blur app.",
    "image": "camera.png",
    "color": "gray",
    "margin": 2,
    "tolerance": 0,
}


def blur(image: hl.ImageParam, vector: int = 16, blur_y: hl.Func | None = None) -> hl.Func:
    """The blur of `image`, defined in `blur_y` (a new Func unless given) and scheduled."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    blur_x, blur_y = hl.Func("blur_x"), blur_y or hl.Func("blur_y")
    blur_x[x, y] = (hl.u16(image[x, y]) + image[x + 1, y] + image[x + 2, y]) / 3
    blur_y[x, y] = hl.u8((blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3)
    blur_y.split(y, y, yi, 8).parallel(y).vectorize(x, vector)
    blur_x.compute_at(blur_y, y).vectorize(x, vector)
    return blur_y


@hl.generator(name="blur")
class Blur:
    """The blur as a generator, for `webhal build demos/blur/blur.py -g blur`: the output is
    two pixels smaller than the input in each dimension; targets with webgpu get the GPU
    schedule."""

    vector = hl.GeneratorParam(16)
    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        if g.target().has_gpu_feature():
            blur_gpu(g.input, g.output)
        else:
            blur(g.input, g.vector, g.output)


def blur_gpu(image: hl.ImageParam, blur_y: hl.Func | None = None) -> hl.Func:
    """The same blur scheduled for WebGPU: 16x8 invocations per workgroup, each computing 4
    output pixels (2 of the uint16 pass), so that every invocation writes whole 32-bit words."""
    x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    blur_x, blur_y = hl.Func("blur_x"), blur_y or hl.Func("blur_y")
    blur_x[x, y] = (hl.u16(image[x, y]) + image[x + 1, y] + image[x + 2, y]) / 3
    blur_y[x, y] = hl.u8((blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3)
    blur_x.compute_root().split(x, x, xv, 2).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    blur_y.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    return blur_y
