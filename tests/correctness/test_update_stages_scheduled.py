"""A Func with a pure definition and two updates, each stage scheduled differently: split with
each tail strategy an update allows, vectorized, unrolled, parallel, reordered, RVars split."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")
xo, xi, yo, yi = hl.Var("xo"), hl.Var("xi"), hl.Var("yo"), hl.Var("yi")


def _func():
    data = ramp_image(np.int32, seed=61) // 65536
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, 4)], "r")
    f = hl.Func("f")
    f[x, y] = image[x, y]
    f[x, y] = f[x, y] * 3 + x
    f[x, y] += image[(x + r.x) % W, y]
    d = data.T
    xs = np.arange(W)[:, None]
    expected = d * 3 + xs + sum(d[(np.arange(W) + k) % W] for k in range(4))
    return f, expected.astype(np.int32)


@pytest.mark.parametrize("tail", [hl.TailStrategy.Auto, hl.TailStrategy.GuardWithIf,
                                  hl.TailStrategy.RoundUp], ids=lambda t: t.name)
def test_update_split(target, tail):
    f, expected = _func()
    # Auto rounds up in an output's update (as Halide's), which reads the image past W
    sizes = [W, H] if tail is hl.TailStrategy.GuardWithIf else [W - W % 4, H]
    f.update(0).split(x, xo, xi, 4, tail)
    f.update(1).split(x, xo, xi, 4, tail)
    check(f, sizes, target, expected=expected[:sizes[0]])


def test_update_vectorized_and_parallel(target):
    f, expected = _func()
    f.vectorize(x, 8)
    guard = hl.TailStrategy.GuardWithIf  # Auto would round up: past the image's edge
    f.update(0).vectorize(x, 4, guard).parallel(y)
    f.update(1).vectorize(x, 8, guard).parallel(y, 5, guard)
    check(f, [W, H], target, expected=expected)


def test_update_reordered_with_rvar_outside(target):
    f, expected = _func()
    r = f.update(1)
    r.reorder(y, x)  # loops are now r.x innermost, y, x
    f.update(0).unroll(x, 3, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, expected=expected)


def test_rvar_split_and_unrolled(target):
    data = ramp_image(np.int16, 64, 3, seed=62)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, 64)], "r")
    total = hl.Func("total")
    total[y] = 0
    total[y] += hl.i32(image[r.x, y])
    ro, ri = hl.RVar("ro"), hl.RVar("ri")
    total.update(0).split(r.x, ro, ri, 8).unroll(ri)
    check(total, [3], target, expected=data.astype(np.int32).sum(axis=1))


def test_update_tiled(target):
    f, expected = _func()
    f.update(0).tile(x, y, xo, yo, xi, yi, 8, 8, hl.TailStrategy.GuardWithIf).vectorize(xi)
    check(f, [W, H], target, expected=expected)


def _rounded_update(lib, width):
    image = lib.Buffer((np.arange(width * H) % 1000).astype(np.int32).reshape(H, width), "image")
    fx, fy = lib.Var("x"), lib.Var("y")
    f = lib.Func("rounded")
    f[fx, fy] = image[fx, fy]
    f[fx, fy] = f[fx, fy] * 3 + fx
    f.update(0).vectorize(fx, 8)  # Auto: rounds up in an output's update, as Halide's
    return f


def test_auto_tail_of_an_output_update_rounds_up_as_halide(target):
    """Halide's TailStrategy.Auto rounds up the outermost split of a pure Var in an output's
    update: the output is computed up to x = 39 for a width of 37, reading the image there.
    With an image that wide, the result is cropped to the size asked for; with one of 37, both
    refuse with the same words."""
    import halide
    want = (np.arange(40 * H) % 1000).astype(np.int32).reshape(H, 40)[:, :W] * 3 + np.arange(W)
    check(_rounded_update(hl, 40), [W, H], target, expected=want.T)
    message = "Input buffer image is accessed at 39, which is beyond the max [(]36[)] in dimension"
    with pytest.raises(halide.HalideError, match=message):
        _rounded_update(halide, W).realize([W, H])
    if target != "reference":  # (the reference evaluator ignores schedules)
        with pytest.raises(hl.HalideError, match=message):
            _rounded_update(hl, W).realize([W, H], hl.Target(target))


def test_auto_tail_of_another_funcs_update_guards(target):
    """In a Func that is not an output, Auto guards the tail of an update's split instead (Halide
    rounds up there too, and reads the image past the region it checks): the same values."""
    data = ramp_image(np.int32, seed=63) // 65536
    image = hl.Buffer(data, "image")
    g = hl.Func("inner")
    g[x, y] = image[x, y]
    g[x, y] = g[x, y] * 3 + image[x, y]
    g.compute_root().update(0).vectorize(x, 8)
    out = hl.Func("outer")
    out[x, y] = g[x, y] + 1
    check(out, [W, H], target, expected=data.T * 4 + 1)
