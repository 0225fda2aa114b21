"""Boundary conditions around a Func (bounds given explicitly) rather than an input: a
computed-at-root producer clamped, wrapped and padded, read by a 3-tap stencil."""

import numpy as np

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")
N = 11


def _source():
    src = hl.Func("src")
    src[x, y] = x * 10 + y
    src.compute_root()
    return src


def test_boundaries_of_a_func(target):
    src = _source()
    bounds = [(0, N), (0, N)]
    edge = hl.BoundaryConditions.repeat_edge(src, bounds)
    const = hl.BoundaryConditions.constant_exterior(src, -5, bounds)
    wrap = hl.BoundaryConditions.repeat_image(src, bounds)
    outs = []
    for name, bc in (("edge", edge), ("const", const), ("wrap", wrap)):
        f = hl.Func("out_" + name)
        f[x, y] = bc[x - 2, y] + bc[x + 2, y + 1] * 2
        f.vectorize(x, 4)
        outs.append(f)
    xs, ys = np.meshgrid(np.arange(-3, N + 3), np.arange(-2, N + 2), indexing="ij")

    def value(i, j, mode):
        inside = (i >= 0) & (i < N) & (j >= 0) & (j < N)
        if mode == "edge":
            return np.clip(i, 0, N - 1) * 10 + np.clip(j, 0, N - 1)
        if mode == "wrap":
            return (i % N) * 10 + j % N
        return np.where(inside, i * 10 + j, -5)
    expected = [value(xs - 2, ys, m) + value(xs + 2, ys + 1, m) * 2
                for m in ("edge", "const", "wrap")]
    check(hl.Pipeline(outs), [N + 6, N + 4], target, mins=[-3, -2], expected=expected)
