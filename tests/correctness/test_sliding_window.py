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


def _sobel_chain():
    """The Sobel demo's stages: `wide` feeds both smoothing passes, which the gradients read."""
    pixels = camera(left=60, top=40)
    clamped = hl.BoundaryConditions.repeat_edge(hl.Buffer(pixels, "photo"))
    wide, smooth_v, smooth_h = hl.Func("wide"), hl.Func("smooth_v"), hl.Func("smooth_h")
    wide[x, y] = hl.u16(clamped[x, y])
    smooth_v[x, y] = wide[x, y - 1] + 2 * wide[x, y] + wide[x, y + 1]
    smooth_h[x, y] = wide[x - 1, y] + 2 * wide[x, y] + wide[x + 1, y]
    gx = hl.absd(smooth_v[x + 1, y], smooth_v[x - 1, y])
    gy = hl.absd(smooth_h[x, y + 1], smooth_h[x, y - 1])
    out = hl.Func("out")
    out[x, y] = hl.u8(hl.min((gx + gy) / 4, 255))
    w = np.pad(pixels.astype(np.int32), 2, mode="edge")         # w[y + 2, x + 2] = wide[x, y]
    sv = w[:-2] + 2 * w[1:-1] + w[2:]                             # sv[y + 1, x + 2]
    sh = w[:, :-2] + 2 * w[:, 1:-1] + w[:, 2:]                    # sh[y + 2, x + 1]
    gx = np.abs(sv[1:-1, 3:-1] - sv[1:-1, 1:-3])
    gy = np.abs(sh[3:-1, 1:-1] - sh[1:-3, 1:-1])
    expected = np.minimum((gx + gy) // 4, 255).astype(np.uint8).T
    return wide, smooth_v, smooth_h, out, expected


def _chain_schedule(wide, smooth_v, smooth_h, out, rows):
    yo, yi = hl.Var("yo"), hl.Var("yi")
    out.split(y, yo, yi, rows).parallel(yo)
    for f in (smooth_h, smooth_v, wide):
        f.store_at(out, yo).compute_at(out, yi)


def test_chain_of_sliding_windows(target):
    """The Sobel autoschedule's schedule: `wide` is stored per strip and computed per row for
    two consumers, one of them (smooth_h) slid itself."""
    wide, smooth_v, smooth_h, out, expected = _sobel_chain()
    _chain_schedule(wide, smooth_v, smooth_h, out, 4)
    smooth_h.vectorize(x, 8)
    wide.vectorize(x, 8)
    check(out, [W, H], target, expected=expected)


def test_producer_of_a_slid_consumer_slides(compiled_target, capsys):
    """Each 4-row strip of an 8x8 output computes each row of `wide` it needs once (6 rows of 10:
    60 stores a strip), not 3 rows per output row (12 rows, 120 stores a strip, before the
    sliding-window pass expanded the consumers' region lets). Halide 21 also stores each row
    once a strip for this schedule (checked with PyPI halide), 8 rows a strip: it starts the
    strip's loop 2 iterations early to warm the chain up."""
    wide, smooth_v, smooth_h, out, _ = _sobel_chain()
    _chain_schedule(wide, smooth_v, smooth_h, out, 4)
    wide.trace_stores()
    out.realize([8, 8], hl.Target(compiled_target))
    stores = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Store wide")]
    assert len(stores) == 2 * 6 * 10
    rows = [int(ln.split(",")[1].split(")")[0]) for ln in stores]
    assert sorted(set(rows)) == list(range(-1, 9))


def test_sliding_window_in_guarded_fused_strips(compiled_target, capsys):
    """The bilateral grid autoschedule's blur_x: strips split with GuardWithIf (the last rows'
    max is clamped, `min(y, y.max) + 2`: its step is 0 or 1, not a constant) and fused with an
    outer Var into one parallel loop (the strip's rows are `let yo = t % n in ...`). Each row is
    computed once a strip: 8 + 8 + 6 rows of f over 10 output rows in strips of 4, times two
    values of c; before, 5 rows per output row."""
    c, yo, yi, t = hl.Var("c"), hl.Var("yo"), hl.Var("yi"), hl.Var("t")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y, c] = x + 3 * y + 7 * c
    g[x, y, c] = f[x, y - 2, c] + f[x, y, c] + f[x, y + 2, c]
    g.split(y, yo, yi, 4, hl.TailStrategy.GuardWithIf).reorder(x, yi, yo, c) \
        .fuse(yo, c, t).parallel(t)
    f.store_at(g, t).compute_at(g, yi).trace_stores()
    out = np.asarray(g.realize([3, 10, 2], hl.Target(compiled_target)))
    stores = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Store f")]
    assert len(stores) == (8 + 8 + 6) * 3 * 2
    xs, ys, cs = np.meshgrid(np.arange(3), np.arange(10), np.arange(2), indexing="ij")
    np.testing.assert_array_equal(out.T if out.shape != xs.shape else out,
                                  3 * xs + 9 * ys + 21 * cs)
