"""hl.Buffer as Halide's Python bindings use it: the constructor's positional and keyword forms,
copies through numpy, IndexError out of range, interleaved and scalar buffers, crops and
translations, str(). The last tests build the same buffers with PyPI halide and compare."""

import numpy as np
import pytest

import webhal as hl

# -- wrong answers that were silent --------------------------------------------------------------


def test_np_array_with_copy_true_does_not_alias_the_buffer():
    b = hl.Buffer(hl.Int(16), [4, 6])
    b[1, 2] = 42
    copied = np.array(b, copy=True)
    shared = np.array(b, copy=False)
    b[1, 2] = 3
    assert copied[2, 1] == 42 and shared[2, 1] == 3
    assert not np.shares_memory(copied, b.data())


def test_np_array_copies_by_default_and_asarray_does_not():
    b = hl.Buffer(np.zeros((2, 3), np.uint8))
    assert not np.shares_memory(np.array(b), b.data())
    assert np.shares_memory(np.asarray(b), b.data())


def test_np_array_to_another_dtype_copies_and_refuses_copy_false():
    b = hl.Buffer(np.arange(6, dtype=np.int32).reshape(2, 3))
    as_float = np.asarray(b, dtype=np.float64)
    assert as_float.dtype == np.float64 and as_float[1, 2] == 5.0
    with pytest.raises(ValueError, match="copy"):
        np.array(b, dtype=np.float64, copy=False)


def test_positional_arguments_are_data_name_reverse_axes():
    a = np.ones((200, 300), np.int32)
    b = hl.Buffer(a, "kept_order", False)
    assert b.name() == "kept_order"
    assert (b.dim(0).extent(), b.dim(0).stride()) == (200, 300)
    assert (b.dim(1).extent(), b.dim(1).stride()) == (300, 1)
    a[12, 34] = 56
    assert b[12, 34] == 56
    reversed_ = hl.Buffer(a, "reversed", True)
    assert reversed_.dim(0).extent() == 300 and reversed_[34, 12] == 56


def test_allocation_by_keywords():
    b = hl.Buffer(type=hl.UInt(8), sizes=[7, 5], name="kw")
    assert (b.type(), b.shape(), b.name()) == (hl.UInt(8), (7, 5), "kw")
    assert b.dim(0).stride() == 1 and b.dim(1).stride() == 7


def test_wrapping_by_keywords():
    a = np.zeros((2, 3), np.float32)
    b = hl.Buffer(buffer=a, name="w", reverse_axes=False)
    assert b.shape() == (2, 3) and b.name() == "w"


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="no argument extents="):
        hl.Buffer(type=hl.UInt(8), extents=[3])


def test_a_name_in_the_wrong_place_is_a_type_error():
    with pytest.raises(TypeError, match="order is"):
        hl.Buffer(np.zeros(3), False, "name")


def test_out_of_range_index_is_an_index_error_naming_the_axis():
    b = hl.Buffer(hl.Int(16), [4, 6], "img")
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with min=0, "
                                         "extent=4"):
        b[-1, 2]
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 1"):
        b[1, 6] = 42
    with pytest.raises(hl.BufferError, match="Buffer img"):
        b[4, 0]


def test_iterating_over_a_buffer_stops_at_its_end():
    b = hl.Buffer(np.arange(5, dtype=np.int32))
    assert list(b) == [0, 1, 2, 3, 4]
    assert [v * 2 for v in b] == [0, 2, 4, 6, 8]


def test_wrong_number_of_coordinates_is_a_value_error():
    b = hl.Buffer(hl.Int(32), [3, 4])
    with pytest.raises(ValueError, match="2 dimensions but was indexed with 1"):
        b[1]
    with pytest.raises(hl.BufferError):
        b[1, 2, 3] = 0


# -- interleaved, scalar, crops, translations ----------------------------------------------------

def test_make_interleaved_puts_channels_innermost():
    b = hl.Buffer.make_interleaved(hl.UInt(8), 7, 13, 3)
    assert [b.dim(i).stride() for i in range(3)] == [3, 21, 1]
    a = np.array(b, copy=False)
    assert a.shape == (3, 13, 7) and a.strides == (1, 21, 3)


def test_storage_order_lists_dimensions_innermost_first():
    b = hl.Buffer(hl.UInt(8), [7, 5, 3, 2], [2, 3, 0, 1])
    assert [b.dim(i).stride() for i in range(4)] == [6, 42, 1, 3]
    with pytest.raises(ValueError, match="storage_order"):
        hl.Buffer(hl.UInt(8), [7, 5], [0, 0])


def test_scalar_buffer():
    b = hl.Buffer.make_scalar(hl.Float(32), "s")
    assert b.dimensions() == 0 and b.name() == "s"
    b[()] = 2.5
    assert b[()] == 2.5
    assert b.fill(32)[()] == 32


def test_cropped_shares_data_and_keeps_coordinates():
    b = hl.Buffer(hl.Int(32), [6, 4])
    c = b.cropped(0, 2, 3)
    assert (c.dim(0).min(), c.dim(0).extent(), c.dim(1).extent()) == (2, 3, 4)
    c[3, 1] = 9
    assert b[3, 1] == 9
    box = b.cropped([(1, 2), (1, 2)])
    assert box.mins() == [1, 1] and box.shape() == (2, 2)
    assert b.shape() == (6, 4)  # the original is unchanged
    with pytest.raises(hl.BufferError, match="cannot crop"):
        b.cropped(0, 4, 3)


def test_a_renamed_crop_leaves_the_original_name():
    b = hl.Buffer(hl.Int(32), [6, 4], "orig")
    c = b.cropped(0, 2, 3)
    c.set_name("crop")
    assert (b.name(), c.name()) == ("orig", "crop")


def test_crop_in_place_and_numpy_sees_the_crop():
    b = hl.Buffer(hl.Int(16), [4, 6])
    b.crop(dimension=0, min=1, extent=2)
    assert np.array(b, copy=False).shape == (6, 2)


def test_translated_shifts_coordinates_of_a_view():
    b = hl.Buffer(np.arange(12, dtype=np.int32).reshape(3, 4))
    t = b.translated([5, 6])
    assert t.mins() == [5, 6] and t[5, 6] == b[0, 0] and b.mins() == [0, 0]
    assert b.translated(1, 2).mins() == [0, 2]
    b.translate(0, -1)
    assert b.mins() == [-1, 0]


def test_for_each_element_visits_coordinates_x_fastest():
    b = hl.Buffer(hl.Float(32), [3, 2]).translated([10, 20])
    seen = []
    b.for_each_element(seen.append)
    assert seen == [[10, 20], [11, 20], [12, 20], [10, 21], [11, 21], [12, 21]]
    scalar = []
    hl.Buffer.make_scalar(hl.Int(8)).for_each_element(scalar.append)
    assert scalar == [[]]


def test_all_equal():
    b = hl.Buffer(hl.Int(32), [3, 4]).fill(3)
    assert b.all_equal(3)
    b[1, 2] = 4
    assert not b.all_equal(3)


def test_str_and_repr_as_halide_prints_them():
    assert str(hl.Buffer()) == "<undefined halide.Buffer>"
    assert not hl.Buffer().defined()
    b = hl.Buffer(hl.Int(32), [128, 256])
    assert str(b) == repr(b) == "<halide.Buffer of type int32 shape:[[0,128,1],[0,256,128]]>"


def test_buffer_of_a_buffer_shares_its_data():
    b = hl.Buffer(hl.UInt(8), [3, 3])
    c = hl.Buffer(b)
    c[1, 1] = 7
    assert b[1, 1] == 7


# -- against PyPI halide -------------------------------------------------------------------------

def _layout(b) -> tuple:
    return (str(b.type()), [(b.dim(i).min(), b.dim(i).extent(), b.dim(i).stride())
                            for i in range(b.dimensions())])


BUILDERS = {
    "array, name, reverse": lambda hl_, a: hl_.Buffer(a, "n", False),
    "array, name": lambda hl_, a: hl_.Buffer(a, "n"),
    "type, sizes": lambda hl_, a: hl_.Buffer(hl_.UInt(16), [5, 3]),
    "keywords": lambda hl_, a: hl_.Buffer(type=hl_.Float(32), sizes=[4, 2, 3]),
    "storage order": lambda hl_, a: hl_.Buffer(hl_.Int(8), [4, 2, 3], [2, 0, 1]),
    "interleaved": lambda hl_, a: hl_.Buffer.make_interleaved(hl_.UInt(8), 5, 4, 3),
    "scalar": lambda hl_, a: hl_.Buffer.make_scalar(hl_.Float(64)),
    "cropped": lambda hl_, a: hl_.Buffer(a).cropped(1, 1, 2),
    "cropped box": lambda hl_, a: hl_.Buffer(a).cropped([(1, 2), (0, 2)]),
    "translated": lambda hl_, a: hl_.Buffer(a).translated([3, -2]),
    "translated one": lambda hl_, a: hl_.Buffer(a).translated(1, 4),
    "reversed": lambda hl_, a: hl_.Buffer(a).reverse_axes(),
}
ALLOCATED = {"type, sizes", "keywords", "storage order", "interleaved", "scalar"}


@pytest.mark.halide
@pytest.mark.parametrize("form", list(BUILDERS))
def test_layout_and_str_match_halide(form):
    halide = pytest.importorskip("halide")
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    ours, theirs = BUILDERS[form](hl, a), BUILDERS[form](halide, a)
    assert _layout(ours) == _layout(theirs)
    assert str(ours) == str(theirs)
    if form not in ALLOCATED:  # Halide leaves new allocations uninitialized
        assert np.array_equal(np.array(ours), np.array(theirs))


@pytest.mark.halide
def test_iteration_and_errors_match_halide():
    halide = pytest.importorskip("halide")
    for module in (hl, halide):
        b = module.Buffer(np.arange(4, dtype=np.int16))
        assert list(b) == [0, 1, 2, 3]
        with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with min=0, "
                                             "extent=4"):
            b[4]
        with pytest.raises(ValueError):
            module.Buffer(module.Int(32), [3, 4])[1]
