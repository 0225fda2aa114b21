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


@pytest.mark.parametrize("how", ["parallel_rows", "vectorized_columns", "weighted_sum"])
def test_rfactor(target, how):
    """Stage.rfactor (Halide's lesson 18): the reduction split through an intermediate Func
    that runs in parallel or vectorized over the preserved RVar."""
    pixels = camera(45, 23, left=30, top=300)
    image = hl.Buffer(pixels, "photo")
    y, u = hl.Var("y"), hl.Var("u")
    r = hl.RDom([(0, pixels.shape[1]), (0, pixels.shape[0])], "r")
    h = hl.Func(f"rfactor_{how}")
    h[x] = 0
    if how == "weighted_sum":
        h[x] = h[x] + hl.i32(image[r.x, r.y]) * (x + 1)
        expected = int(pixels.astype(np.int64).sum()) * np.arange(1, 9)
    else:
        h[hl.i32(image[r.x, r.y]) // 32] += 1
        expected = np.bincount(pixels.reshape(-1) // 32, minlength=8)
    if how == "vectorized_columns":
        intermediate = h.update().rfactor(r.x, u)
        intermediate.compute_root().update().vectorize(u, 8)
    else:
        intermediate = h.update().rfactor([(r.y, y)])
        intermediate.compute_root().update().parallel(y)
    intermediate.vectorize(x, 8)
    h.vectorize(x, 8)
    check(h, [8], target, expected=expected)


def test_rfactor_mistakes():
    r = hl.RDom([(0, 10), (0, 4)], "rm")
    f = hl.Func("not_a_reduction")
    f[x] = 0
    f[x] = x * r.x
    with pytest.raises(hl.HalideError, match="must combine f at its own left side"):
        f.update().rfactor(r.y, hl.Var("v"))
    g = hl.Func("split_first")
    g[x] = 0
    g[x] += r.x
    ro, ri = hl.RVar("ro"), hl.RVar("ri")
    g.update().split(r.x, ro, ri, 2)
    with pytest.raises(hl.HalideError, match="ro comes from a split"):
        g.update().rfactor(ro, hl.Var("v"))
    with pytest.raises(hl.HalideError, match="Var x is already a Var of split_first"):
        g.update().rfactor(r.y, x)
