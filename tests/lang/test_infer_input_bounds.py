"""Func.infer_input_bounds (Halide's bounds query) binds each unbound ImageParam a Buffer just
large enough, as Halide's does; bounds query Buffers (make_bounds_query) get the region the
pipeline writes, their dim() constraints applied."""

import halide
import numpy as np
import pytest

import webhal as hl
from webhal.errors import BufferError


def _sizes(lib, shifts, sizes):
    image = lib.ImageParam(lib.UInt(8), 2, "image")
    x, y = lib.Var("x"), lib.Var("y")
    f = lib.Func("f")
    f[x, y] = lib.u16(image[x + shifts[0], y]) + image[x, y + shifts[1]]
    f.infer_input_bounds(sizes)
    return image.get().width(), image.get().height()


@pytest.mark.parametrize("shifts", [(0, 0), (2, 1), (5, 3)])
def test_sizes_match_halide(shifts):
    assert _sizes(hl, shifts, [10, 7]) == _sizes(halide, shifts, [10, 7])


def test_a_bound_image_param_is_left_alone():
    image = hl.ImageParam(hl.UInt(8), 1, "image")
    image.set(hl.Buffer(hl.UInt(8), [50]))
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = image[x + 1]
    f.infer_input_bounds([10])
    assert image.get().width() == 50


def test_a_read_before_zero_gets_a_buffer_starting_there():
    """As Halide's: the new Buffer's min is where the pipeline starts reading."""
    for lib in (hl, halide):
        image = lib.ImageParam(lib.UInt(8), 1, "image")
        x = lib.Var("x")
        f = lib.Func("f")
        f[x] = image[x - 3] + image[x + 2]
        f.infer_input_bounds([10])
        assert (image.get().dim(0).min(), image.get().dim(0).extent()) == (-3, 15)


def _multipass(lib):
    """Halide's multipass_constraints test: constraints that depend on each other, solved by
    repeated passes (an output's extent on itself, an input's on the output's)."""
    image = lib.ImageParam(lib.Float(32), 2, "input")
    x, y = lib.Var("x"), lib.Var("y")
    f = lib.Func("f")
    f[x, y] = image[x + 1, y + 1] + image[x - 1, y - 1]
    f[x, y] += 3.0
    f.update().vectorize(x, 4)  # Auto: an output's update rounds x up to a multiple of 4
    o = f.output_buffer()
    image.dim(0).set_bounds(image.dim(1).min() - 5, image.dim(1).extent() + o.dim(0).extent())
    o.dim(0).set_bounds(0, lib.select(o.dim(0).extent() < 22, o.dim(0).extent() + 1,
                                      o.dim(0).extent()))
    query = lib.Buffer.make_bounds_query(type=lib.Float(32), sizes=[7, 8])
    query.set_min([2, 2])
    f.infer_input_bounds(query)
    got = image.get()
    return f, image, query, ([(got.dim(d).min(), got.dim(d).extent()) for d in range(2)],
                             [(query.dim(d).min(), query.dim(d).extent()) for d in range(2)])


def test_bounds_query_buffer_with_constraints_as_halide():
    *_, mine = _multipass(hl)
    *_, halides = _multipass(halide)
    assert mine == halides == ([(-4, 34), (1, 10)], [(0, 24), (2, 8)])


@pytest.mark.parametrize("target", ["reference", "host", "wasm-32-wasmrt"])
def test_the_inferred_buffers_realize(target):
    """The answer is a region the pipeline runs on: realized into a Buffer of the query's
    shape, with the input it bound, on each target."""
    f, image, query, _ = _multipass(hl)
    data = np.arange(34 * 10, dtype=np.float32).reshape(10, 34)
    image.get().data()[...] = data.T
    out = hl.Buffer(hl.Float(32), [24, 8]).set_min([0, 2])
    f.realize(out, hl.Target(target))
    xs, ys = np.meshgrid(np.arange(24), np.arange(2, 10))
    want = data[ys + 1 - 1, xs + 1 + 4] + data[ys - 1 - 1, xs - 1 + 4] + 3.0
    assert np.array_equal(np.asarray(out), want)


def test_a_bounds_query_buffer_has_no_data():
    q = hl.Buffer.make_bounds_query(hl.UInt(8), [4, 3], "q")
    assert q.is_bounds_query() and q.dim(1).stride() == 4 and q.shape() == (4, 3)
    for use in (lambda: q[0, 0], lambda: q.__setitem__((0, 0), 1), lambda: np.asarray(q)):
        with pytest.raises(BufferError, match="Buffer q is a bounds query"):
            use()
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = hl.u8(x + y)
    with pytest.raises(BufferError, match="Buffer q is a bounds query .* cannot be realized "
                       "into"):
        f.realize(q)
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    image.set(q)
    g = hl.Func("g")
    g[x, y] = image[x, y]
    with pytest.raises(BufferError, match="cannot be read by a pipeline"):
        g.realize([4, 3])


def test_constraints_that_never_settle_are_named():
    image = hl.ImageParam(hl.UInt(8), 1, "image")
    x = hl.Var("x")
    f = hl.Func("grows")
    f[x] = image[x]
    o = f.output_buffer()
    o.dim(0).set_extent(o.dim(0).extent() + 1)
    with pytest.raises(BufferError, match="didn't converge after 16 passes: the dim.. "
                       "constraints of grows, image"):
        f.infer_input_bounds([10])
