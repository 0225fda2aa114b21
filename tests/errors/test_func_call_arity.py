"""A Func, ImageParam or Buffer called with the wrong number of arguments."""

import numpy as np

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_func_read_with_too_few_arguments():
    blur = hl.Func("blur")
    blur[x, y] = x + y
    out = hl.Func("out")
    with expect_error(hl.CompileError, "Func blur", "2 arguments", "(x, y)", "called with 1"):
        out[x] = blur[x]


def test_update_with_wrong_number_of_arguments_on_the_left():
    acc = hl.Func("acc")
    acc[x, y] = x
    with expect_error(hl.CompileError, "Func acc", "1 arguments on the left", "has 2 (x, y)"):
        acc[x] = acc[x, 0] + 1


def test_image_param_read_with_too_few_arguments():
    photo = hl.ImageParam(hl.UInt(8), 2, "photo")
    out = hl.Func("out")
    with expect_error(hl.CompileError, "ImageParam photo", "2 dimensions", "called with 1"):
        out[x] = photo[x]


def test_buffer_read_with_too_many_arguments():
    pixels = hl.Buffer(np.zeros((4, 4), np.uint8), "pixels")
    out = hl.Func("out")
    with expect_error(hl.CompileError, "Buffer pixels", "2 dimensions", "called with 3"):
        out[x, y] = pixels[x, y, 0]
