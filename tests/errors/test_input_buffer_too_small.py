"""An input buffer smaller than what the pipeline reads, found when realizing."""

import numpy as np

import webhal as hl

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_read_beyond_the_max():
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    photo.set(hl.Buffer(np.zeros((4, 4), np.uint8)))  # 4 wide, 4 high
    shifted = hl.Func("shifted")
    shifted[x, y] = photo[x + 1, y]
    with expect_error(hl.BufferError, "buffer photo", "at 4", "beyond the max (3)",
                      "dimension 0", "boundary condition"):
        shifted.realize([4, 4], REFERENCE)


def test_read_before_the_min():
    pixels = hl.Buffer(np.zeros((4, 4), np.uint8), "pixels")
    above = hl.Func("above")
    above[x, y] = pixels[x, y - 1]
    with expect_error(hl.BufferError, "buffer pixels", "at -1", "before the min (0)",
                      "dimension 1"):
        above.realize([4, 4], REFERENCE)


def test_buffer_with_a_moved_min():
    pixels = hl.Buffer(np.zeros(4, np.uint8), "pixels").set_min(10)
    copy = hl.Func("copy")
    copy[x] = pixels[x]
    with expect_error(hl.BufferError, "buffer pixels", "at 0", "before the min (10)",
                      "dimension 0"):
        copy.realize([4], REFERENCE)


def test_read_through_another_func():
    pixels = hl.Buffer(np.zeros(4, np.uint8), "pixels")
    every_other = hl.Func("every_other")
    every_other[x] = pixels[2 * x]
    out = hl.Func("out")
    out[x] = every_other[x]
    with expect_error(hl.BufferError, "buffer pixels", "at 6", "beyond the max (3)"):
        out.realize([4], REFERENCE)
