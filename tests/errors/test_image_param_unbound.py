"""Realizing a pipeline whose ImageParam has no Buffer bound."""

import webhal as hl

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_read_of_an_unbound_image():
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    copy = hl.Func("copy")
    copy[x, y] = photo[x, y]
    with expect_error(hl.BufferError, "ImageParam photo has no Buffer", "photo.set(buffer)"):
        copy.realize([4, 4], REFERENCE)


def test_extent_of_an_unbound_image():
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    width = hl.Func("width")
    width[x] = photo.width() + x
    with expect_error(hl.BufferError, "ImageParam photo has no Buffer"):
        width.realize([4], REFERENCE)
