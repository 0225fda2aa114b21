"""hl.BoundaryConditions against numpy's np.pad.

Which np.pad mode is which condition:
    repeat_edge      'edge'       ... 0 0 | 0 1 2 3 | 3 3 ...
    constant_exterior'constant'   ... c c | 0 1 2 3 | c c ...
    mirror_image     'symmetric'  ... 1 0 | 0 1 2 3 | 3 2 ...   (the edge pixel repeats)
    mirror_interior  'reflect'    ... 2 1 | 0 1 2 3 | 2 1 ...   (the edge pixel does not)
    repeat_image     'wrap'       ... 2 3 | 0 1 2 3 | 0 1 ...
"""

import numpy as np
import pytest

import webhal as hl

from ._helpers import realize_at

BC = hl.BoundaryConditions
MODES = [("repeat_edge", "edge"), ("mirror_image", "symmetric"),
         ("mirror_interior", "reflect"), ("repeat_image", "wrap")]
RNG = np.random.default_rng(3)


def padded(f, shape_hw, pad, t):
    """f realized over the image's region grown by `pad` on every side (numpy order)."""
    h, w = shape_hw
    x, y = hl.Var("x"), hl.Var("y")
    g = hl.Func("g")
    g[x, y] = f[x, y]
    return realize_at(g, [-pad, -pad], [w + 2 * pad, h + 2 * pad], t)


@pytest.mark.parametrize("name, mode", MODES)
@pytest.mark.parametrize("shape", [(4, 5), (1, 3), (2, 2), (7, 1)])
def test_condition_matches_np_pad(name, mode, shape):
    # pad 11 is several periods of these small images: the pattern must keep repeating.
    data = RNG.integers(0, 1000, shape).astype(np.int32)
    f = getattr(BC, name)(hl.Buffer(data))
    expect = data
    for axis in range(2):  # np.pad cannot reflect an axis of length 1; Halide repeats it
        m = "edge" if mode == "reflect" and data.shape[axis] == 1 else mode
        expect = np.pad(expect, [(11, 11) if a == axis else (0, 0) for a in range(2)], mode=m)
    np.testing.assert_array_equal(padded(f, shape, 11, hl.Int(32)), expect)


def test_mirror_interior_of_a_single_pixel_repeats_it():
    f = BC.mirror_interior(hl.Buffer(np.array([[5]], dtype=np.int32)))
    np.testing.assert_array_equal(padded(f, (1, 1), 3, hl.Int(32)), np.full((7, 7), 5))


@pytest.mark.parametrize("value", [0, 7, -3])
def test_constant_exterior_matches_np_pad_constant(value):
    data = RNG.integers(0, 100, (3, 6)).astype(np.int16)
    f = BC.constant_exterior(hl.Buffer(data), value)
    np.testing.assert_array_equal(padded(f, (3, 6), 4, hl.Int(16)),
                                  np.pad(data, 4, mode="constant", constant_values=value))


def test_constant_exterior_with_an_expr_value():
    data = np.ones((2, 2), np.float32)
    fill = hl.Param(hl.Float(32), "fill", 0.25)
    f = BC.constant_exterior(hl.Buffer(data), fill)
    np.testing.assert_array_equal(padded(f, (2, 2), 1, hl.Float(32)),
                                  np.pad(data, 1, constant_values=0.25))


def test_boundary_of_a_buffer_with_mins():
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = hl.Buffer(data)
    b.set_min([10, 20])
    f = BC.repeat_edge(b)
    x, y = hl.Var("x"), hl.Var("y")
    g = hl.Func("g")
    g[x, y] = f[x, y]
    got = realize_at(g, [8, 18], [8, 7], hl.Int(32))
    np.testing.assert_array_equal(got, np.pad(data, 2, mode="edge"))


@pytest.mark.parametrize("name, mode", MODES)
def test_condition_of_a_func_with_explicit_bounds(name, mode):
    x, y = hl.Var("x"), hl.Var("y")
    src = hl.Func("src")
    src[x, y] = x * 10 + y  # defined everywhere; the bounds say which part to keep
    f = getattr(BC, name)(src, [(2, 4), (1, 3)])
    inner = (np.arange(2, 6)[None, :] * 10 + np.arange(1, 4)[:, None]).astype(np.int32)
    got = realize_at(f, [-4, -5], [4 + 2 * 6, 3 + 2 * 6], hl.Int(32))
    np.testing.assert_array_equal(got, np.pad(inner, 6, mode=mode))


def test_func_needs_bounds():
    x = hl.Var("x")
    src = hl.Func("src")
    src[x] = x
    with pytest.raises(hl.CompileError, match="bounds"):
        BC.repeat_edge(src)


def test_a_dimension_left_unbounded_is_passed_through():
    data = RNG.integers(0, 50, (2, 3, 4)).astype(np.int32)  # (c, h, w)
    b = hl.Buffer(data)
    f = BC.repeat_edge(b, [(0, 4), (0, 3)])  # the channel dimension is not extended
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    g = hl.Func("g")
    g[x, y, c] = f[x, y, c]
    got = realize_at(g, [-1, -1, 0], [6, 5, 2], hl.Int(32))
    np.testing.assert_array_equal(got, np.pad(data, [(0, 0), (1, 1), (1, 1)], mode="edge"))
    h = BC.repeat_edge(b, [(0, 4), None, None])  # None: this dimension as is
    k = hl.Func("k")
    k[x, y, c] = h[x, y, c]
    got = realize_at(k, [-2, 0, 0], [8, 3, 2], hl.Int(32))
    np.testing.assert_array_equal(got, np.pad(data, [(0, 0), (0, 0), (2, 2)], mode="edge"))


@pytest.mark.parametrize("name, mode", MODES)
def test_condition_of_an_image_param(name, mode):
    inp = hl.ImageParam(hl.UInt(8), 2, "inp")
    f = getattr(BC, name)(inp)
    data = RNG.integers(0, 256, (5, 6), dtype=np.uint8)
    inp.set(data)
    np.testing.assert_array_equal(padded(f, (5, 6), 7, hl.UInt(8)),
                                  np.pad(data, 7, mode=mode))


def test_blur_through_a_boundary_condition_reads_nothing_outside():
    data = RNG.integers(0, 256, (6, 9), dtype=np.uint8)
    clamped = BC.mirror_interior(hl.Buffer(data))
    x, y = hl.Var("x"), hl.Var("y")
    blur = hl.Func("blur")
    blur[x, y] = (hl.u16(clamped[x - 1, y]) + clamped[x, y] + clamped[x + 1, y]) / 3
    out = realize_at(blur, [0, 0], [9, 6], hl.UInt(16))
    p = np.pad(data, [(0, 0), (1, 1)], mode="reflect").astype(np.uint16)
    np.testing.assert_array_equal(out, (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) // 3)


def test_halides_argument_names_undefined_bounds_and_lambda_func():
    """f=, exterior=, bounds= as Halide names them; a dimension whose bounds are undefined
    hl.Expr()s is left as it is; hl.lambda_func defines a Func on the spot."""
    x, y = hl.Var("x"), hl.Var("y")
    data = np.arange(6 * 4, dtype=np.int32).reshape(4, 6)
    image = hl.Buffer(data, "img")
    f = hl.BoundaryConditions.constant_exterior(f=image, exterior=-1,
                                                bounds=[(hl.Expr(), hl.Expr()), (0, 4)])
    g = hl.lambda_func(x, y, f[x, y] * 2)
    out = hl.Buffer(hl.Int(32), [6, 6])
    out.set_min([0, -1])
    g.realize(out, "host")
    got = np.asarray(out)
    assert (got[0] == -2).all() and (got[5] == -2).all()  # rows -1 and 4: outside in y
    np.testing.assert_array_equal(got[1:5], data * 2)      # x is left as it is
    with pytest.raises(hl.HalideError, match="undefined hl.Expr"):
        hl.Expr() + 1
