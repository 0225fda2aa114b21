"""A 3x3 box blur of the cameraman photo, its edges extended by repeat_edge."""

import numpy as np

import webhal as hl

from .conftest import H, W, camera, check

x, y = hl.Var("x"), hl.Var("y")


def _numpy_blur(pixels: np.ndarray) -> np.ndarray:
    padded = np.pad(pixels.astype(np.uint16), 1, mode="edge")
    total = sum(padded[1 + dy:1 + dy + pixels.shape[0], 1 + dx:1 + dx + pixels.shape[1]]
                for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    return (total // 9).astype(np.uint8)


def _blur(photo):
    clamped = hl.BoundaryConditions.repeat_edge(photo)
    blur = hl.Func("blur")
    blur[x, y] = hl.u8(sum(hl.u16(clamped[x + dx, y + dy])
                           for dy in (-1, 0, 1) for dx in (-1, 0, 1)) // 9)
    return blur


def test_blur_of_the_photo(target):
    pixels = camera()
    blur = _blur(hl.Buffer(pixels, "photo"))
    check(blur, [W, H], target, expected=_numpy_blur(pixels).T)


def test_blur_through_an_image_param_vectorized(target):
    pixels = camera(64, 40)
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    photo.set(hl.Buffer(pixels))
    blur = _blur(photo)
    blur.vectorize(x, 16).parallel(y)
    check(blur, [64, 40], target, expected=_numpy_blur(pixels).T)


def test_separable_blur_at_rows(target):
    pixels = camera()
    clamped = hl.BoundaryConditions.repeat_edge(hl.Buffer(pixels, "photo"))
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[x, y] = hl.u16(clamped[x - 1, y]) + clamped[x, y] + clamped[x + 1, y]
    blur_y[x, y] = hl.u8((blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) // 9)
    blur_x.compute_at(blur_y, y).vectorize(x, 8)
    blur_y.split(y, y, hl.Var("yi"), 4).vectorize(x, 8)
    check(blur_y, [W, H], target, expected=_numpy_blur(pixels).T)
