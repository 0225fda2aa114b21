"""A producer-consumer pair (a 2-D stencil) with the producer computed at each loop of the
consumer, including split loops, loops of an update stage, and a chain of compute_ats."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")
xo, xi, yo, yi = hl.Var("xo"), hl.Var("xi"), hl.Var("yo"), hl.Var("yi")


DATA = ramp_image(np.uint8, seed=21)
IMAGE = hl.Buffer(DATA, "image")


def _pipeline(suffix=""):
    clamped = hl.BoundaryConditions.repeat_edge(IMAGE)
    prod = hl.Func("prod" + suffix)
    prod[x, y] = hl.i32(clamped[x, y]) * 3 - clamped[x + 1, y]
    cons = hl.Func("cons" + suffix)
    cons[x, y] = prod[x - 1, y - 1] + prod[x + 1, y + 1] + prod[x, y]
    d = np.pad(DATA.T.astype(np.int32), 3, mode="edge")
    p = d * 3 - np.roll(d, -1, axis=0)

    def at(dx, dy):
        return p[3 + dx:3 + dx + W, 3 + dy:3 + dy + H]
    return prod, cons, at(-1, -1) + at(1, 1) + at(0, 0)


def test_compute_at_pure_loops(target):
    outputs = []
    for loop in ("x", "y"):
        prod, cons, expected = _pipeline("_at_" + loop)
        prod.compute_at(cons, hl.Var(loop))
        outputs.append(cons)
    check(hl.Pipeline(outputs), [W, H], target, expected=[expected] * 2)


def test_compute_at_tile_loops(target):
    outputs = []
    for loop in ("xo", "xi", "yo", "yi"):
        prod, cons, expected = _pipeline("_at_" + loop)
        cons.tile(x, y, xo, yo, xi, yi, 8, 4)
        prod.compute_at(cons, hl.Var(loop)).vectorize(x, 4)
        outputs.append(cons)
    check(hl.Pipeline(outputs), [W, H], target, expected=[expected] * 4)


def test_compute_at_a_parallel_vectorized_consumer(target):
    prod, cons, expected = _pipeline()
    cons.split(y, yo, yi, 4).parallel(yo).vectorize(x, 8)
    prod.compute_at(cons, yo).vectorize(x, 8)
    check(cons, [W, H], target, expected=expected)


def test_chain_of_compute_ats(target):
    prod, cons, expected = _pipeline()
    out = hl.Func("out")
    out[x, y] = cons[x, y] - cons[x, y - 1]
    cons.compute_at(out, y)
    prod.compute_at(cons, y)
    shifted = np.concatenate([expected[:, :1] * 0, expected[:, :-1]], axis=1)
    # cons[x, -1] is real data (the boundary condition), so only rows 1.. are checked by numpy.
    got = check(out, [W, H], target)
    np.testing.assert_array_equal(got[0][:, 1:], (expected - shifted)[:, 1:])


def test_compute_at_update_stage_loop(target):
    prod, cons, expected = _pipeline()
    acc = hl.Func("acc")
    acc[x, y] = 0
    acc[x, y] += cons[x, y] * 2
    cons.compute_at(acc.update(0), y)
    prod.compute_at(acc.update(0), y)
    check(acc, [W, H], target, expected=expected * 2)


def test_compute_at_vectorized_and_unrolled_loops(target):
    outputs = []
    prod, cons, expected = _pipeline("_at_vector_lanes")
    cons.vectorize(x, 8)
    prod.compute_at(cons, hl.Var("x_vi"))  # the loop stays scalar: it allocates
    outputs.append(cons)
    prod, cons, expected = _pipeline("_at_unrolled")
    cons.unroll(y, 3)
    prod.compute_at(cons, hl.Var("y_ui"))
    outputs.append(cons)
    check(hl.Pipeline(outputs), [W, H], target, expected=[expected] * 2)
