"""A generator for tests/packaging/test_profile_package.py: a two-stage blur, its first stage
at root, heavy enough per point (a polynomial) that the profiler's calls are small beside it."""

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")


@hl.generator(name="profiled_blur")
class ProfiledBlur:
    """blur_x at root, then output = a polynomial of the vertical blur of blur_x."""

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
        bx.compute_root().vectorize(x, 4)
        g.output.vectorize(x, 4)
