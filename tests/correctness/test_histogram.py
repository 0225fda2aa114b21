"""A histogram of the cameraman photo (an RDom over the image, a data-dependent update), and its
cumulative distribution (a scan)."""

import numpy as np
import pytest

import webhal as hl

from .conftest import camera, check

x = hl.Var("x")


def _histogram(pixels):
    image = hl.Buffer(pixels, "photo")
    r = hl.RDom([(0, pixels.shape[1]), (0, pixels.shape[0])], "r")
    hist = hl.Func("hist")
    hist[x] = 0
    hist[hl.i32(image[r.x, r.y])] += 1
    return hist


def test_histogram_of_the_photo(target):
    pixels = camera(64, 48)
    hist = _histogram(pixels)
    check(hist, [256], target, expected=np.bincount(pixels.reshape(-1), minlength=256))


def test_histogram_with_vectorized_pure_definition(target):
    pixels = camera(40, 30, left=10, top=400)
    hist = _histogram(pixels)
    hist.vectorize(x, 8)
    check(hist, [256], target, expected=np.bincount(pixels.reshape(-1), minlength=256))


def test_cumulative_histogram(target):
    pixels = camera(50, 20)
    hist = _histogram(pixels)
    cdf = hl.Func("cdf")
    s = hl.RDom([(1, 255)], "s")
    cdf[x] = hist[x]
    cdf[s.x] = cdf[s.x - 1] + cdf[s.x]
    hist.compute_root()
    check(cdf, [256], target,
          expected=np.cumsum(np.bincount(pixels.reshape(-1), minlength=256)))


def test_histogram_equalization(target):
    pixels = camera(48, 32, left=300, top=300)
    hist = _histogram(pixels)
    cdf = hl.Func("cdf")
    s = hl.RDom([(1, 255)], "s")
    cdf[x] = hist[x]
    cdf[s.x] = cdf[s.x - 1] + cdf[s.x]
    image = hl.Buffer(pixels, "photo")
    y = hl.Var("y")
    equalized = hl.Func("equalized")
    n = pixels.size
    equalized[x, y] = hl.u8(cdf[hl.i32(image[x, y])] * 255 // n)
    hist.compute_root()
    cdf.compute_root()
    equalized.vectorize(x, 8).parallel(y)
    c = np.cumsum(np.bincount(pixels.reshape(-1), minlength=256))
    check(equalized, [48, 32], target, expected=(c[pixels] * 255 // n).astype(np.uint8).T)


def test_atomic_histogram_update_parallel_and_vectorized_over_its_rdom(target):
    """Stage.atomic() (Halide's atomics test): the RDom loop of a histogram may be parallel or
    vectorized; webhal runs it in order, so every count is right."""
    pixels = camera(40, 30, left=60, top=90)
    for how in ("parallel", "vectorize"):
        image = hl.Buffer(pixels, "photo")
        r = hl.RDom([(0, pixels.shape[1]), (0, pixels.shape[0])], "r")
        hist = hl.Func(f"hist_atomic_{how}")
        hist[x] = 0
        hist[hl.i32(image[r.x, r.y])] += 1
        stage = hist.compute_root().update().atomic()
        stage.parallel(r.y) if how == "parallel" else stage.vectorize(r.x, 8)
        check(hist, [256], target, expected=np.bincount(pixels.reshape(-1), minlength=256))


def test_atomic_is_for_updates_and_gpu_rvars_stay_refused():
    h = hl.Func("pure_only")
    h[x] = x
    with pytest.raises(hl.ScheduleError, match="atomic\\(\\) applies to update definitions"):
        h.atomic()
    r = hl.RDom([(0, 10)], "rr")
    g = hl.Func("g_atomic")
    g[x] = 0
    g[r.x % 3] += 1
    with pytest.raises(hl.ScheduleError, match="it is an RVar"):
        g.update().atomic().gpu_blocks(r.x)
