"""Generators for tests/runtime/test_webgpu_host_copies.py: a float32 brighten (one kernel,
two scalars) and a pipeline that runs one kernel several times in a run with different
arguments (a serial RDom loop around a GPU tile)."""

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")


@hl.generator(name="brighten_f32")
class BrightenF32:
    """output = input * gain + bias, float32; one gpu_tile kernel on webgpu."""

    input = hl.InputBuffer(hl.Float(32), 2)
    gain = hl.InputScalar(hl.Float(32))
    bias = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        g.output[x, y] = g.input[x, y] * g.gain + g.bias
        if g.target().has_gpu_feature():
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 16, 8, hl.TailStrategy.GuardWithIf)
        else:
            g.output.vectorize(x, 4)


@hl.generator(name="repeated_kernel")
class RepeatedKernel:
    """output = input, then `rounds` times output = output * 2 + r + offset (r = 0, 1, ...):
    the update's kernel is dispatched once per r, each with its own r, in one run."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    offset = hl.InputScalar(hl.Int(32))
    output = hl.OutputBuffer(hl.Int(32), 2)
    rounds = hl.GeneratorParam(3)

    def generate(g):
        r = hl.RDom([(0, g.rounds)])
        g.output[x, y] = hl.i32(g.input[x, y])
        g.output[x, y] = g.output[x, y] * 2 + r.x + g.offset
        if g.target().has_gpu_feature():
            guard = hl.TailStrategy.GuardWithIf
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 16, 4, guard)
            g.output.update().reorder(x, y, r.x).gpu_tile(x, y, xo, yo, xi, yi, 16, 4, guard)
        else:
            g.output.vectorize(x, 4)
