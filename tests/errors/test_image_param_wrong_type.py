"""A Buffer of the wrong element type bound to an ImageParam."""

import numpy as np

import webhal as hl

from ._util import expect_error


def test_float_buffer_for_uint8_input():
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    data = hl.Buffer(np.zeros((4, 4), np.float32), "data")
    with expect_error(hl.BufferError, "ImageParam photo", "type uint8", "Buffer data",
                      "type float32"):
        photo.set(data)
    assert photo.get() is None
