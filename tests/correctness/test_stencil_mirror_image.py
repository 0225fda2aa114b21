"""A horizontal gradient of the cameraman photo, mirrored at the edges (mirror_image)."""

import numpy as np

import webhal as hl

from .conftest import H, W, camera, check

x, y = hl.Var("x"), hl.Var("y")


def _mirror(n: int, i: np.ndarray) -> np.ndarray:
    m = i % (2 * n)
    return np.where(m < n, m, 2 * n - 1 - m)


def test_gradient_of_the_photo(target):
    pixels = camera(left=40, top=300)
    mirrored = hl.BoundaryConditions.mirror_image(hl.Buffer(pixels, "photo"))
    grad = hl.Func("grad")
    grad[x, y] = hl.i16(mirrored[x + 2, y]) - hl.i16(mirrored[x - 2, y - 1])
    grad.vectorize(x, 8)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    p = pixels.T.astype(np.int16)
    expected = p[_mirror(W, xs + 2), ys] - p[_mirror(W, xs - 2), _mirror(H, ys - 1)]
    check(grad, [W, H], target, expected=expected)


def test_far_outside(target):
    data = np.arange(4, dtype=np.float32) * 1.5
    mirrored = hl.BoundaryConditions.mirror_image(hl.Buffer(data, "line"))
    out = hl.Func("out")
    out[x] = mirrored[x]
    xs = np.arange(-13, 14)
    check(out, [27], target, mins=[-13], expected=data[_mirror(4, xs)])
