"""Generator for tests/runtime/test_webgpu_vector_views.py: a float32 brighten vectorized by 4
inside its GPU tile, whose kernel has a variant with vec4 accesses (passes/vector_buffers.py)."""

import webhal as hl

x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")


@hl.generator(name="brighten_vec4")
class BrightenVec4:
    """output = input * gain + bias, float32, 4 lanes a thread on webgpu."""

    input = hl.InputBuffer(hl.Float(32), 2)
    gain = hl.InputScalar(hl.Float(32))
    bias = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        g.output[x, y] = g.input[x, y] * g.gain + g.bias
        if g.target().has_gpu_feature():
            g.output.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 8, 4)
        else:
            g.output.vectorize(x, 4)
