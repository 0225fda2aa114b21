"""RDoms restricted by where(): a triangular sum, a sparse scatter, and a predicate that reads a
Func."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y = hl.Var("x"), hl.Var("y")


def test_triangle(target):
    r = hl.RDom([(0, 12), (0, 12)], "r")
    r.where(r.x <= r.y)
    tri = hl.Func("tri")
    tri[x] = 0
    tri[r.y] += r.x + 1
    check(tri, [12], target, expected=np.array([(j + 1) * (j + 2) // 2 for j in range(12)]))


def test_scatter_where_the_input_is_bright(target):
    data = ramp_image(np.uint8, seed=41)
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, W), (0, H)], "r")
    r.where(image[r.x, r.y] > 200)
    mask = hl.Func("mask")
    mask[x, y] = hl.u8(0)
    mask[r.x, r.y] = image[r.x, r.y]
    mask.vectorize(x, 8)
    check(mask, [W, H], target, expected=np.where(data > 200, data, 0).astype(np.uint8).T)


def test_sum_where_with_two_predicates(target):
    data = ramp_image(np.int32, seed=42) % 1000
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, W)], "r")
    r.where(image[r.x, y] > 0)
    r.where(r.x % 3 != 1)
    total = hl.Func("total")
    total[y] = 0
    total[y] += image[r.x, y]
    d = data.T
    keep = (d > 0) & ((np.arange(W) % 3 != 1)[:, None])
    check(total, [H], target, expected=np.where(keep, d, 0).sum(axis=0))
