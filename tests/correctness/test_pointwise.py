"""A pointwise pipeline over an input Buffer: arithmetic on every pixel, no neighbours."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def test_brighten(target):
    data = ramp_image(np.uint8)
    image = hl.Buffer(data, "image")
    brighter = hl.Func("brighter")
    brighter[x, y] = hl.u8(hl.min(hl.u16(image[x, y]) * 3 // 2 + 10, 255))
    expected = np.minimum(data.astype(np.uint16) * 3 // 2 + 10, 255).astype(np.uint8).T
    check(brighter, [W, H], target, expected=expected)


def test_coordinates(target):
    coords = hl.Func("coords")
    coords[x, y] = x * 1000 - y * 7 + 3
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(coords, [W, H], target, expected=xs * 1000 - ys * 7 + 3)


def test_output_with_moved_min(target):
    moved = hl.Func("moved")
    moved[x, y] = x + 100 * y
    xs, ys = np.meshgrid(np.arange(-5, W - 5), np.arange(7, H + 7), indexing="ij")
    check(moved, [W, H], target, mins=[-5, 7], expected=xs + 100 * ys)


def test_three_dimensions(target):
    c = hl.Var("c")
    planes = hl.Func("planes")
    planes[x, y, c] = hl.f32(x) * 0.5 + hl.f32(y) * 0.25 - hl.f32(c)
    xs, ys, cs = np.meshgrid(np.arange(W), np.arange(H), np.arange(3), indexing="ij")
    expected = xs.astype(np.float32) * 0.5 + ys.astype(np.float32) * 0.25 - cs
    check(planes, [W, H, 3], target, expected=expected.astype(np.float32))
