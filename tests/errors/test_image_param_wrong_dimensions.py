"""A Buffer with the wrong number of dimensions bound to an ImageParam."""

import numpy as np

import webhal as hl

from ._util import expect_error


def test_color_image_for_gray_input():
    gray = hl.ImageParam(hl.UInt(8), 2, "gray")
    rgb = hl.Buffer(np.zeros((4, 4, 3), np.uint8), "rgb")
    with expect_error(hl.BufferError, "ImageParam gray", "2 dimensions", "Buffer rgb",
                      "has 3"):
        gray.set(rgb)
    assert gray.get() is None
