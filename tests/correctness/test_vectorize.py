"""A pipeline mixing dense, strided and gathered reads, selects and casts, vectorized at many
widths, for several element types."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")


def test_widths(target):
    data = ramp_image(np.uint8, 2 * W + 2, H)
    image = hl.Buffer(data, "image")
    funcs = []
    for lanes in (2, 4, 8, 16, 32):
        f = hl.Func(f"lanes{lanes}")
        # A dense read, a stride-2 read, and a gather through a data-dependent index.
        f[x, y] = hl.u16(image[x, y]) + image[2 * x + 1, y] + \
            image[hl.i32(image[x, y]) % 17, (y + 1) % H]
        f.vectorize(x, lanes)
        funcs.append(f)
    d = data.T.astype(np.uint16)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    expected = d[xs, ys] + d[2 * xs + 1, ys] + d[d[xs, ys] % 17, (ys + 1) % H]
    check(hl.Pipeline(funcs), [W, H], target, expected=[expected.astype(np.uint16)] * 5)


@pytest.mark.parametrize("dtype", with_slow([np.int8, np.uint32, np.float32],
                                             [np.uint16, np.int32, np.int64, np.float64]),
                         ids=lambda d: np.dtype(d).name)
def test_types(target, dtype):
    data = ramp_image(dtype)
    image = hl.Buffer(data, "image")
    f = hl.Func("f")
    v = image[x, y]
    seven = hl.cast(image.type(), 7)
    f[x, y] = hl.select(v > image[x, (y + 1) % H], v - image[(x + 3) % W, y], hl.min(v, seven))
    f.vectorize(x, 8)
    d = data.T
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    with np.errstate(over="ignore"):
        expected = np.where(d > d[xs, (ys + 1) % H], d - d[(xs + 3) % W, ys],
                            np.minimum(d, 7)).astype(dtype)
    check(f, [W, H], target, expected=expected)


def test_vector_across_y(target):
    f = hl.Func("f")
    f[x, y] = x * 3 + y * y
    f.vectorize(y, 8, hl.TailStrategy.GuardWithIf)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    check(f, [W, H], target, expected=xs * 3 + ys * ys)


def test_vectorized_loop_smaller_than_the_output_of_a_compute_root(target):
    g = hl.Func("g")
    g[x] = hl.f32(x) / 3.0
    f = hl.Func("f")
    f[x] = g[x] + g[x + 1]
    g.compute_root().vectorize(x, 4)
    f.vectorize(x, 4)
    xs = np.arange(10, dtype=np.float32)
    third = np.float32(1) / np.float32(3)  # x / 3.0 is x * (1/3), as in Halide
    check(f, [10], target, expected=xs * third + (xs + 1) * third)


def test_whole_extent_vectorized(target):
    f = hl.Func("f")
    f[x, y] = hl.u8(x * 16 + y)
    f.bound(x, 0, 16).vectorize(x)
    xs, ys = np.meshgrid(np.arange(16), np.arange(5), indexing="ij")
    check(f, [16, 5], target, expected=(xs * 16 + ys).astype(np.uint8))
