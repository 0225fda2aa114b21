"""realize with a number of sizes other than the Func's dimensions."""

import webhal as hl
from webhal.errors import ArgumentError

from ._util import REFERENCE, expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_too_few_sizes():
    image = hl.Func("image")
    image[x, y] = x + y
    with expect_error(hl.BufferError, "Func image", "2 dimensions", "1 sizes"):
        image.realize([4], REFERENCE)


def test_too_many_sizes():
    row = hl.Func("row")
    row[x] = x
    with expect_error(hl.BufferError, "Func row", "1 dimensions", "3 sizes [4, 4, 3]"):
        row.realize([4, 4, 3], REFERENCE)


def test_sizes_given_as_separate_numbers():
    image = hl.Func("image")
    image[x, y] = x + y
    # A TypeError, as in Halide's bindings, which take no such call.
    with expect_error(ArgumentError, "sizes as one list", "realize([10, 10])") as e:
        image.realize(10, 10)
    assert isinstance(e.value, TypeError)
