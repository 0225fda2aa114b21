"""hl.Buffer (numpy interop, axis order, mins, element access), hl.ImageParam and hl.Param."""

import numpy as np
import pytest

import webhal as hl

from ._helpers import REFERENCE, realize


@pytest.fixture
def xy():
    return hl.Var("x"), hl.Var("y")


# -- numpy interop -------------------------------------------------------------------------------

def test_buffer_wraps_numpy_without_copying():
    a = np.arange(12, dtype=np.uint16).reshape(3, 4)
    b = hl.Buffer(a)
    assert np.shares_memory(np.asarray(b), a)
    a[1, 2] = 999
    assert b[2, 1] == 999  # the buffer sees the change
    b[0, 2] = 7
    assert a[2, 0] == 7    # and the array sees the buffer's


def test_axes_are_reversed_from_numpy():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)  # numpy (c, h, w)... read as x = 4
    b = hl.Buffer(a)
    assert b.dimensions() == 3
    assert (b.width(), b.height(), b.channels()) == (4, 3, 2)
    assert b.shape() == (4, 3, 2)
    assert [b.dim(i).extent() for i in range(3)] == [4, 3, 2]
    assert b[3, 2, 1] == a[1, 2, 3]
    np.testing.assert_array_equal(np.asarray(b), a)


def test_strides_are_in_elements_x_first():
    a = np.zeros((5, 7), dtype=np.float32)
    b = hl.Buffer(a)
    assert b.dim(0).stride() == 1 and b.dim(1).stride() == 7


def test_buffer_keeps_numpy_order_when_asked():
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    b = hl.Buffer(a, reverse_axes=False)
    assert b.shape() == (2, 3)
    assert b[1, 2] == a[1, 2]


@pytest.mark.parametrize("dtype, t", [
    (np.uint8, hl.UInt(8)), (np.int8, hl.Int(8)), (np.uint16, hl.UInt(16)),
    (np.int16, hl.Int(16)), (np.uint32, hl.UInt(32)), (np.int32, hl.Int(32)),
    (np.float32, hl.Float(32)), (np.float64, hl.Float(64)), (np.bool_, hl.Bool()),
    (np.int64, hl.Int(64)), (np.float16, hl.Float(16)),
])
def test_buffer_type_follows_dtype(dtype, t):
    assert hl.Buffer(np.zeros((2, 2), dtype=dtype)).type() == t


def test_unsupported_dtype_is_an_error():
    with pytest.raises(hl.BufferError, match="dtype"):
        hl.Buffer(np.zeros(3, dtype=np.complex64))


def test_allocated_buffer_is_zero_and_x_major():
    b = hl.Buffer(hl.UInt(8), [5, 3])
    assert b.type() == hl.UInt(8) and b.shape() == (5, 3)
    assert b.dim(0).stride() == 1 and b.dim(1).stride() == 5
    assert np.asarray(b).shape == (3, 5) and not np.asarray(b).any()
    assert b.number_of_elements() == 15


def test_fill_copy_and_element_access():
    b = hl.Buffer(hl.Int(16), [3, 2]).fill(4)
    b[2, 1] = -5
    c = b.copy()
    c[0, 0] = 100
    assert b[0, 0] == 4 and c[0, 0] == 100 and c[2, 1] == -5
    assert isinstance(b[2, 1], int)
    np.testing.assert_array_equal(np.asarray(b), [[4, 4, 4], [4, 4, -5]])


# -- mins ----------------------------------------------------------------------------------------

def test_mins_shift_coordinates():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = hl.Buffer(a)
    b.set_min([10, -1])
    assert b.mins() == [10, -1] and b.min(0) == 10 and b.dim(1).min() == -1
    assert (b.left(), b.right(), b.top(), b.bottom()) == (10, 13, -1, 1)
    assert b.dim(0).max() == 13
    assert b[10, -1] == a[0, 0] and b[13, 1] == a[2, 3]
    with pytest.raises(hl.BufferError, match="outside"):
        b[0, 0]
    b.translate([1, 1])
    assert b[11, 0] == a[0, 0]


def test_indexing_with_wrong_arity_is_an_error():
    b = hl.Buffer(np.zeros((2, 2), np.uint8))
    with pytest.raises(hl.BufferError, match="2 dimensions"):
        b[0, 0, 0]


def test_input_buffer_with_mins_is_read_at_its_coordinates(xy):
    x, y = xy
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    b = hl.Buffer(a)
    b.set_min([3, 2])
    f = hl.Func("f")
    f[x, y] = b[x + 3, y + 2] * 2
    np.testing.assert_array_equal(realize(f, [5, 4]), a * 2)


def test_reading_outside_an_input_buffer_is_an_error(xy):
    x, _ = xy
    b = hl.Buffer(np.arange(4, dtype=np.int32))
    f = hl.Func("f")
    f[x] = b[x + 1]
    with pytest.raises(hl.BufferError, match="beyond"):
        f.realize([4], REFERENCE)


def test_realize_into_a_buffer_with_mins(xy):
    x, y = xy
    f = hl.Func("f")
    f[x, y] = x * 10 + y
    out = hl.Buffer(hl.Int(32), [3, 2])
    out.set_min([-1, 5])
    result = f.realize(out, REFERENCE)
    assert result is out
    np.testing.assert_array_equal(np.asarray(out), [[-5, 5, 15], [-4, 6, 16]])


def test_realize_into_a_buffer_of_the_wrong_type_is_an_error(xy):
    x, _ = xy
    f = hl.Func("f")
    f[x] = x
    with pytest.raises(hl.BufferError, match="int32"):
        f.realize(hl.Buffer(hl.UInt(8), [4]), REFERENCE)


def test_realize_result_is_a_buffer_in_numpy_order(xy):
    x, y = xy
    f = hl.Func("f")
    f[x, y] = hl.u8(x)
    out = f.realize([4, 2], REFERENCE)
    assert isinstance(out, hl.Buffer)
    assert out.width() == 4 and out.height() == 2 and out.type() == hl.UInt(8)
    assert np.asarray(out).shape == (2, 4)
    assert out[3, 1] == 3


def test_buffer_used_like_a_func_in_definitions(xy):
    x, y = xy
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = hl.Buffer(a)
    f = hl.Func("f")
    f[x, y] = b[x, y] + b[2 - x, 1 - y]
    np.testing.assert_array_equal(realize(f, [3, 2]), a + a[::-1, ::-1])


# -- ImageParam ----------------------------------------------------------------------------------

def test_image_param_binds_a_buffer(xy):
    x, y = xy
    inp = hl.ImageParam(hl.UInt(8), 2, "inp")
    assert inp.name() == "inp" and inp.type() == hl.UInt(8) and inp.dimensions() == 2
    f = hl.Func("f")
    f[x, y] = hl.u16(inp[x, y]) * 3
    a = np.arange(12, dtype=np.uint8).reshape(3, 4)
    inp.set(hl.Buffer(a))
    np.testing.assert_array_equal(realize(f, [4, 3]), a.astype(np.uint16) * 3)
    b = np.full((3, 4), 50, np.uint8)  # rebinding changes the result
    inp.set(b)  # a numpy array is wrapped
    np.testing.assert_array_equal(realize(f, [4, 3]), np.full((3, 4), 150))
    assert isinstance(inp.get(), hl.Buffer)


def test_an_image_param_made_without_arguments_is_undefined(xy):
    x, _ = xy
    inp = hl.ImageParam()
    assert not inp.defined() and repr(inp) == "<halide.ImageParam ImageParam()>"
    with pytest.raises(hl.CompileError, match="ImageParam is undefined"):
        inp.name()
    with pytest.raises(hl.CompileError, match="ImageParam is undefined"):
        hl.Func("f")[x] = inp[x]
    inp = hl.ImageParam(hl.UInt(8), 1, "inp")  # the usual way to give it a value
    assert inp.defined()


def test_image_param_sizes_are_exprs(xy):
    x, y = xy
    inp = hl.ImageParam(hl.Int(32), 2, "inp")
    f = hl.Func("f")
    # Mirror the image left to right, whatever its width.
    f[x, y] = inp[inp.width() - 1 - x, y] + inp.height() * 0
    a = np.arange(15, dtype=np.int32).reshape(3, 5)
    inp.set(a)
    np.testing.assert_array_equal(realize(f, [5, 3]), a[:, ::-1])
    g = hl.Func("g")
    g[()] = inp.dim(0).min() + inp.dim(1).max() * 100 + inp.dim(1).stride() * 10000
    b = hl.Buffer(a)
    b.set_min([2, 7])
    inp.set(b)
    assert realize(g, []).item() == 2 + 9 * 100 + 5 * 10000


def test_rdom_over_an_image_param():
    inp = hl.ImageParam(hl.Int(32), 2, "inp")
    r = hl.RDom(inp)
    f = hl.Func("f")
    f[()] = 0
    f[()] += inp[r.x, r.y]
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    inp.set(a)
    assert realize(f, []).item() == a.sum()


def test_image_param_checks_type_and_dimensions():
    inp = hl.ImageParam(hl.UInt(8), 2, "inp")
    with pytest.raises(hl.BufferError, match="uint8"):
        inp.set(np.zeros((2, 2), np.float32))
    with pytest.raises(hl.BufferError, match="dimensions"):
        inp.set(np.zeros(4, np.uint8))


def test_unbound_image_param_is_an_error_at_realize(xy):
    x, _ = xy
    inp = hl.ImageParam(hl.Float(32), 1, "inp")
    f = hl.Func("f")
    f[x] = inp[x]
    with pytest.raises(hl.BufferError, match="inp"):
        f.realize([3], REFERENCE)


# -- Param ---------------------------------------------------------------------------------------

def test_param_value_is_read_at_realize(xy):
    x, _ = xy
    gain = hl.Param(hl.Float(32), "gain", 1.5)
    offset = hl.Param(hl.Int(32), "offset")
    assert gain.get() == 1.5 and offset.get() == 0
    f = hl.Func("f")
    f[x] = hl.f32(x + offset) * gain
    np.testing.assert_array_equal(realize(f, [4]), np.arange(4) * 1.5)
    gain.set(2.0)
    offset.set(10)
    np.testing.assert_array_equal(realize(f, [4]), (np.arange(4) + 10) * 2.0)


def test_param_of_small_int_type_keeps_its_type(xy):
    x, _ = xy
    p = hl.Param(hl.UInt(8), "p", 250)
    f = hl.Func("f")
    f[x] = p + hl.u8(x)  # wraps in uint8
    assert f.type() == hl.UInt(8)
    np.testing.assert_array_equal(realize(f, [8]), (250 + np.arange(8)) % 256)


def test_param_rejects_values_it_cannot_hold():
    p = hl.Param(hl.UInt(8), "p")
    with pytest.raises(hl.CompileError):
        p.set(300)
    with pytest.raises(hl.CompileError):
        p.set(1.5)


def test_param_range():
    p = hl.Param(hl.Int(32), "p", 5)
    p.set_range(0, 10)
    assert str(p.min_value()) == "0" and str(p.max_value()) == "10"
