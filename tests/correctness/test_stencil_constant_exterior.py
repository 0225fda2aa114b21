"""A 5-point Laplacian of the cameraman photo, zero outside it (constant_exterior)."""

import numpy as np

import webhal as hl

from .conftest import H, W, camera, check

x, y = hl.Var("x"), hl.Var("y")


def _numpy_laplacian(pixels: np.ndarray, outside: int) -> np.ndarray:
    p = np.pad(pixels.astype(np.int16), 1, constant_values=outside)
    h, w = pixels.shape
    return (4 * p[1:h + 1, 1:w + 1] - p[:h, 1:w + 1] - p[2:, 1:w + 1] - p[1:h + 1, :w]
            - p[1:h + 1, 2:]).astype(np.int16)


def _laplacian(source, outside):
    padded = hl.BoundaryConditions.constant_exterior(source, outside)
    lap = hl.Func("laplacian")
    lap[x, y] = 4 * hl.i16(padded[x, y]) - padded[x - 1, y] - padded[x + 1, y] \
        - padded[x, y - 1] - padded[x, y + 1]
    return lap


def test_laplacian_of_the_photo(target):
    pixels = camera()
    lap = _laplacian(hl.Buffer(pixels, "photo"), 0)
    check(lap, [W, H], target, expected=_numpy_laplacian(pixels, 0).T)


def test_laplacian_with_a_grey_exterior_tiled(target):
    pixels = camera(45, 31, left=300, top=60)
    lap = _laplacian(hl.Buffer(pixels, "photo"), 128)
    xi, yi = hl.Var("xi"), hl.Var("yi")
    lap.tile(x, y, xi, yi, 8, 4).vectorize(xi)
    check(lap, [45, 31], target, expected=_numpy_laplacian(pixels, 128).T)


def test_exterior_beyond_the_image(target):
    # The output is larger than the input on every side: the exterior value fills the border.
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    padded = hl.BoundaryConditions.constant_exterior(hl.Buffer(data, "small"), -1)
    out = hl.Func("out")
    out[x, y] = padded[x, y]
    expected = np.full((8, 7), -1, np.int32)
    expected[2:6, 2:5] = data.T
    check(out, [8, 7], target, mins=[-2, -2], expected=expected)
