"""An update whose computed coordinate uses a pure Var that also stands alone in its own
position, as Halide allows (the bilateral grid's histogram): a histogram of each column of the
photo, the bin read from the pixel at (x, r)."""

import numpy as np

import webhal as hl

from .conftest import W, camera, check

x, b = hl.Var("x"), hl.Var("b")
BINS = 8


def _column_histograms(pixels: np.ndarray) -> tuple[hl.Func, hl.RDom]:
    image = hl.Buffer(pixels, "photo")
    r = hl.RDom([(0, pixels.shape[0])], "r")
    hist = hl.Func("hist")
    hist[x, b] = 0
    hist[x, hl.i32(image[x, r.x]) // (256 // BINS)] += 1
    return hist, r


def _numpy_column_histograms(pixels: np.ndarray) -> np.ndarray:
    return np.stack([np.bincount(column // (256 // BINS), minlength=BINS)
                     for column in pixels.T])


def test_histogram_of_each_column(target):
    pixels = camera()
    hist, _ = _column_histograms(pixels)
    check(hist, [W, BINS], target, expected=_numpy_column_histograms(pixels))


def test_histogram_of_each_column_parallel_and_vectorized(target):
    pixels = camera(left=40, top=300)
    hist, r = _column_histograms(pixels)
    xo, xi = hl.Var("xo"), hl.Var("xi")
    hist.vectorize(x, 4)
    # Columns apart in parallel, four neighbours in the lanes of a vector (a scatter: each
    # lane writes its own column's bin).
    hist.update().split(x, xo, xi, 4, hl.TailStrategy.GuardWithIf).reorder(xi, r.x, xo) \
        .vectorize(xi).parallel(xo)
    check(hist, [W, BINS], target, expected=_numpy_column_histograms(pixels))
