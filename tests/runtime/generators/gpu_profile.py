"""A generator for tests/runtime/test_webgpu_profile.py: two kernels (a horizontal blur at
root, then a polynomial of its vertical blur), each heavy enough on SwiftShader that its
timestamps are not lost under Dawn's quantization of them."""

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")


@hl.generator(name="profiled_gpu_blur")
class ProfiledGpuBlur:
    """blur_x at root, then output = a polynomial of the vertical blur of blur_x; on a GPU
    target each is a gpu_tile kernel."""

    input = hl.InputBuffer(hl.Float(32), 2)
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        c = hl.BoundaryConditions.repeat_edge(g.input)
        bx = hl.Func("blur_x")
        bx[x, y] = (c[x - 1, y] + c[x, y] + c[x + 1, y]) / 3
        v = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3
        p = v
        for i in range(32):
            p = p * v + (0.5 + i / 64)
        g.output[x, y] = p
        bx.compute_root()
        if g.target().has_gpu_feature():
            guard = hl.TailStrategy.GuardWithIf
            bx.gpu_tile(x, y, xo, yo, xi, yi, 16, 8, guard)
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 16, 8, guard)
        else:
            bx.vectorize(x, 4)
            g.output.vectorize(x, 4)
