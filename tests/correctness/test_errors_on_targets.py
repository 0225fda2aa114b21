"""Run-time errors on every compiled target: the same exception type and the same message as on
the reference evaluator (tests/errors has one file per user error, on the reference only)."""

import re

import numpy as np
import pytest

import webhal as hl
from webhal.jit import argument_values, compile_jit

x, y = hl.Var("x"), hl.Var("y")
xo, xi = hl.Var("xo"), hl.Var("xi")


def _raised(fn):
    with pytest.raises(hl.HalideError) as info:
        fn()
    return info.value


def _same_error(realize_on, target, exc_type, *fragments):
    """The error realize_on(target) raises is exc_type with each fragment, exactly as the
    reference's (when the reference finds it: it ignores schedules)."""
    got = _raised(lambda: realize_on(target))
    assert type(got) is exc_type, f"{target}: {type(got).__name__}: {got}"
    for fragment in fragments:
        assert fragment in got.message, f"{target}: {fragment!r} not in {got.message!r}"
    assert got.where is not None and got.where.filename == __file__, \
        f"{target}: the error points at {got.where}, not at this test"
    return got


def test_input_read_beyond_the_max(compiled_target):
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    photo.set(hl.Buffer(np.zeros((4, 4), np.uint8)))
    shifted = hl.Func("shifted")
    shifted[x, y] = photo[x + 1, y]
    fragments = ("Input buffer photo", "accessed at 4", "beyond the max (3)", "dimension 0",
                 "boundary condition")
    ref = _same_error(lambda t: shifted.realize([4, 4], t), "reference", hl.BufferError,
                      *fragments)
    got = _same_error(lambda t: shifted.realize([4, 4], t), compiled_target, hl.BufferError,
                      *fragments)
    assert got.message == ref.message


def test_input_read_before_the_min(compiled_target):
    pixels = hl.Buffer(np.zeros((4, 4), np.uint8), "pixels")
    above = hl.Func("above")
    above[x, y] = pixels[x, y - 1]
    above.vectorize(x, 4)
    fragments = ("Input buffer pixels", "accessed at -1", "before the min (0)", "dimension 1")
    ref = _same_error(lambda t: above.realize([4, 4], t), "reference", hl.BufferError,
                      *fragments)
    got = _same_error(lambda t: above.realize([4, 4], t), compiled_target, hl.BufferError,
                      *fragments)
    assert got.message == ref.message


def test_input_with_a_moved_min(compiled_target):
    pixels = hl.Buffer(np.zeros(4, np.uint8), "pixels").set_min(10)
    copy = hl.Func("copy")
    copy[x] = pixels[x]
    fragments = ("Input buffer pixels", "accessed at 0", "before the min (10)")
    ref = _same_error(lambda t: copy.realize([4], t), "reference", hl.BufferError, *fragments)
    got = _same_error(lambda t: copy.realize([4], t), compiled_target, hl.BufferError,
                      *fragments)
    assert got.message == ref.message


def test_input_read_through_a_root_producer(compiled_target):
    pixels = hl.Buffer(np.zeros(4, np.uint8), "pixels")
    every_other = hl.Func("every_other")
    every_other[x] = pixels[2 * x]
    out = hl.Func("out")
    out[x] = every_other[x]
    every_other.compute_root()
    fragments = ("Input buffer pixels", "accessed at 6", "beyond the max (3)")
    ref = _same_error(lambda t: out.realize([4], t), "reference", hl.BufferError, *fragments)
    got = _same_error(lambda t: out.realize([4], t), compiled_target, hl.BufferError,
                      *fragments)
    assert got.message == ref.message


def test_image_param_unbound(compiled_target):
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    copy = hl.Func("copy")
    copy[x, y] = photo[x, y]
    fragments = ("ImageParam photo has no Buffer", "photo.set(buffer)")
    ref = _same_error(lambda t: copy.realize([4, 4], t), "reference", hl.BufferError,
                      *fragments)
    got = _same_error(lambda t: copy.realize([4, 4], t), compiled_target, hl.BufferError,
                      *fragments)
    assert got.message == ref.message


def test_image_param_unbound_read_only_through_its_extent(compiled_target):
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    width = hl.Func("width")
    width[x] = photo.width() + x
    fragments = ("ImageParam photo has no Buffer",)
    _same_error(lambda t: width.realize([4], t), "reference", hl.BufferError, *fragments)
    _same_error(lambda t: width.realize([4], t), compiled_target, hl.BufferError, *fragments)


def test_wrong_buffer_type_bound(compiled_target):
    # Binding is checked before any target runs; the ImageParam stays unbound afterwards.
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    copy = hl.Func("copy")
    copy[x, y] = photo[x, y]
    data = hl.Buffer(np.zeros((4, 4), np.float32), "data")
    error = _raised(lambda: photo.set(data))
    assert type(error) is hl.BufferError
    for fragment in ("ImageParam photo", "type uint8", "Buffer data", "type float32"):
        assert fragment in error.message
    assert photo.get() is None
    _same_error(lambda t: copy.realize([4, 4], t), "reference", hl.BufferError,
                "ImageParam photo has no Buffer")
    _same_error(lambda t: copy.realize([4, 4], t), compiled_target, hl.BufferError,
                "ImageParam photo has no Buffer")


def test_wrong_buffer_type_reaches_the_compiled_pipeline(compiled_target):
    # The compiled pipeline checks the type of what it is given (as an AOT caller could pass).
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    photo.set(hl.Buffer(np.zeros((4, 4), np.uint8)))
    copy = hl.Func("copy")
    copy[x, y] = photo[x, y]
    pipeline = hl.Pipeline(copy)
    compiled, _ = compile_jit(pipeline, hl.Target(compiled_target))
    args = argument_values(pipeline, [hl.Buffer(hl.UInt(8), [4, 4])], None)
    wrong = hl.Buffer(np.zeros((4, 4), np.float32), "data")
    args = [wrong if a is photo.get() else a for a in args]
    code = compiled(args)
    assert code == -3  # halide_error_code_bad_type
    error = compiled.take_error() if hasattr(compiled, "take_error") else None
    if error is None:
        from webhal.runtime.host import take_error
        error = take_error()
    message, cls = error
    assert cls is hl.BufferError
    assert "photo has type uint8" in message and "float32" in message, message


def test_output_too_small_for_shift_inwards(compiled_target):
    f = hl.Func("f")
    f[x] = x * 2
    f.split(x, xo, xi, 8, hl.TailStrategy.ShiftInwards)
    # The reference ignores schedules, so it computes 5 values; the compiled pipeline would
    # shift its one iteration of 8 before the output's min. realize with sizes enlarges its
    # own buffer (as Halide's); a Buffer the caller passes is only checked.
    np.testing.assert_array_equal(np.asarray(f.realize([5], "reference")), np.arange(5) * 2)
    np.testing.assert_array_equal(np.asarray(f.realize([5], compiled_target)), np.arange(5) * 2)
    _same_error(lambda t: f.realize(hl.Buffer(hl.Int(32), [5]), t), compiled_target,
                hl.BufferError,
                "Output buffer f", "accessed at -3", "before the min (0)", "dimension 0")


def test_output_smaller_than_a_bound(compiled_target):
    f = hl.Func("f")
    f[x] = x
    f.bound(x, 0, 16).vectorize(x)
    np.testing.assert_array_equal(np.asarray(f.realize([8], compiled_target)), np.arange(8))
    _same_error(lambda t: f.realize(hl.Buffer(hl.Int(32), [8]), t), compiled_target,
                hl.BufferError,
                "Output buffer f", "accessed at 15", "beyond the max (7)")


def test_output_larger_than_a_bound(compiled_target):
    f = hl.Func("f")
    f[x] = x
    f.bound(x, 0, 16)
    error = _same_error(lambda t: f.realize([20], t), compiled_target, hl.BufferError,
                        "Bounds given for f in x (from 0 to 15)",
                        "required region (from 0 to 19)")
    assert re.search(r"bound\(\)", error.message)
