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
    with pytest.raises(hl.HalideError, match="Var x is already a Var of split_first"):
        g.update().rfactor(ro, x)
    with pytest.raises(hl.HalideError, match=r"rm\$x was split into ro and ri on "
                       r"split_first.update\(0\); preserve those RVars instead"):
        g.update().rfactor(r.x, hl.Var("v"))
    fused = hl.Func("fused_first")
    fused[x] = 0
    fused[x] += r.x + r.y
    fused.update().fuse(r.x, r.y, hl.RVar("rxy"))
    with pytest.raises(hl.HalideError, match="applies splits only; fuse"):
        fused.update().rfactor(hl.RVar("rxy"), hl.Var("v"))
    with pytest.raises(hl.HalideError, match=r"rm\$z is not an RVar of split_first.update\(0\), "
                       r"whose RVars are ri, ro, rm\$y"):
        g.update().rfactor(hl.RVar("rm$z"), hl.Var("v"))


def _tiled_histogram(pixels, name, tile):
    """Lesson 18's last histogram: r.x and r.y split into tiles, rfactor over the tile indices."""
    image = hl.Buffer(pixels, "photo")
    u, v = hl.Var("u"), hl.Var("v")
    r = hl.RDom([(0, pixels.shape[1]), (0, pixels.shape[0])], "r")
    h = hl.Func(name)
    h[x] = 0
    h[hl.i32(image[r.x, r.y]) // 32] += 1
    rxo, rxi, ryo, ryi = (hl.RVar(n) for n in ("rxo", "rxi", "ryo", "ryi"))
    h.update().split(r.x, rxo, rxi, tile).split(r.y, ryo, ryi, tile)
    intermediate = h.update().rfactor([(rxo, u), (ryo, v)])
    intermediate.compute_root().update().parallel(u).parallel(v)
    intermediate.update().reorder(rxi, ryi, u, v)
    intermediate.vectorize(x, 8)
    h.vectorize(x, 8)
    return h, intermediate


@pytest.mark.parametrize("width,height", [(48, 24), (45, 23)])
def test_rfactor_of_split_rvars(target, width, height):
    """rfactor over the outer RVars of splits (lesson 18's tiles): each tile's histogram in the
    intermediate, over tiles in parallel; 45x23 leaves partial tiles, which count each pixel
    once."""
    pixels = camera(width, height, left=20, top=280)
    h, _ = _tiled_histogram(pixels, f"tiled_{width}", 4)
    check(h, [8], target, expected=np.bincount(pixels.reshape(-1) // 32, minlength=8))


def test_rfactor_intermediate_holds_each_tile():
    """The intermediate's Vars are the tile indices: intm[x, u, v] is tile (u, v)'s histogram,
    with ceil(extent / 4) tiles per axis."""
    pixels = camera(10, 7, left=60, top=300)
    _, intermediate = _tiled_histogram(pixels, "tiles_seen", 4)
    got = np.asarray(intermediate.realize([8, 3, 2]))  # Halide's axis order reversed: [v, u, x]
    for tv in range(2):
        for tu in range(3):
            tile = pixels[tv * 4:tv * 4 + 4, tu * 4:tu * 4 + 4]
            assert list(got[tv, tu]) == list(np.bincount(tile.reshape(-1) // 32, minlength=8))


def test_rfactor_of_inner_rvar_with_rdom_min(target):
    """Preserving the inner RVar of a split of an RDom that starts at 5: the intermediate has
    one Var of the split's factor, the sum is the same."""
    data = np.arange(40, dtype=np.int32) * 3 + 1
    image = hl.Buffer(data, "seq")
    w = hl.Var("w")
    r = hl.RDom([(5, 30)], "rmin")
    s = hl.Func("sum_inner")
    s[x] = 0
    s[x] = s[x] + image[r.x] * (x + 1)
    ro, ri = hl.RVar("so"), hl.RVar("si")
    s.update().split(r.x, ro, ri, 8)
    intermediate = s.update().rfactor(ri, w)
    intermediate.compute_root().update().vectorize(w, 8)
    check(s, [3], target, expected=int(data[5:35].sum()) * np.arange(1, 4))
