"""store_at/compute_at: a producer stored outside the loop where it is computed (Halide's sliding
window; webhal recomputes what each iteration needs into the shared storage)."""

import numpy as np

import webhal as hl

from .conftest import H, W, camera, check

x, y = hl.Var("x"), hl.Var("y")


def _pipeline():
    pixels = camera(left=100, top=100)
    clamped = hl.BoundaryConditions.repeat_edge(hl.Buffer(pixels, "photo"))
    blur_x = hl.Func("blur_x")
    blur_x[x, y] = hl.u16(clamped[x - 1, y]) + clamped[x, y] + clamped[x + 1, y]
    blur_y = hl.Func("blur_y")
    blur_y[x, y] = hl.u8((blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) // 9)
    p = np.pad(pixels.astype(np.uint16), 1, mode="edge")
    bx = p[:, :-2] + p[:, 1:-1] + p[:, 2:]
    expected = ((bx[:-2] + bx[1:-1] + bx[2:]) // 9).astype(np.uint8).T[:, :]
    return blur_x, blur_y, expected


def test_store_root_compute_at_rows(target):
    blur_x, blur_y, expected = _pipeline()
    blur_x.store_root().compute_at(blur_y, y)
    check(blur_y, [W, H], target, expected=expected)


def test_store_at_outer_compute_at_inner(target):
    blur_x, blur_y, expected = _pipeline()
    yo, yi = hl.Var("yo"), hl.Var("yi")
    blur_y.split(y, yo, yi, 8)
    blur_x.store_at(blur_y, yo).compute_at(blur_y, yi).vectorize(x, 8)
    check(blur_y, [W, H], target, expected=expected)


def test_store_at_with_parallel_outer_loop(target):
    blur_x, blur_y, expected = _pipeline()
    yo, yi = hl.Var("yo"), hl.Var("yi")
    blur_y.split(y, yo, yi, 6).parallel(yo).vectorize(x, 16)
    blur_x.store_at(blur_y, yo).compute_at(blur_y, yi)
    check(blur_y, [W, H], target, expected=expected)


def test_store_root_compute_at_x(target):
    blur_x, blur_y, expected = _pipeline()
    blur_x.store_root().compute_at(blur_y, x)
    check(blur_y, [W, H], target, expected=expected)
