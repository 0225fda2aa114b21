"""Generators for tests/runtime/test_webgpu_replay.py: a kernel pair with an intermediate on
the GPU whose size follows the output's, and a table the host computes from a scalar and a
kernel reads (uploaded every run)."""

import webhal as hl

x, y, i = hl.Var("x"), hl.Var("y"), hl.Var("i")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
GUARD = hl.TailStrategy.GuardWithIf


@hl.generator(name="two_kernels")
class TwoKernels:
    """sums(x, y) = input(x, y) + input(x + 1, y) on the GPU at root (w x (h + 1) floats for
    an output of w x h), output(x, y) = sums(x, y) + 2 * sums(x, y + 1)."""

    input = hl.InputBuffer(hl.Float(32), 2)
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        sums = hl.Func("sums")
        sums[x, y] = g.input[x, y] + g.input[x + 1, y]
        g.output[x, y] = sums[x, y] + 2 * sums[x, y + 1]
        sums.compute_root()
        if g.target().has_gpu_feature():
            sums.gpu_tile(x, y, xo, yo, xi, yi, 8, 4, GUARD)
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 8, 4, GUARD)


@hl.generator(name="host_table")
class HostTable:
    """table(i) = i * scale + 1 for i in 0..255, computed by the host and uploaded; output(x, y)
    = table(input(x, y)) in a kernel."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    scale = hl.InputScalar(hl.Int(32))
    output = hl.OutputBuffer(hl.Int(32), 2)

    def generate(g):
        table = hl.Func("table")
        table[i] = i * g.scale + 1
        g.output[x, y] = table[hl.clamp(hl.i32(g.input[x, y]), 0, 255)]
        table.compute_root()
        if g.target().has_gpu_feature():
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 8, 4, GUARD)
