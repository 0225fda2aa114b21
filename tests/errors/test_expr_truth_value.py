"""Python `if`, `and`, `or`, `not` on an Expr, which has no truth value."""

import pytest

import webhal as hl
from webhal.errors import TruthValueError

from ._util import expect_error

x = hl.Var("x")


def test_if_on_an_expr():
    with expect_error(TruthValueError, "(x > 3)", "no truth value", "hl.select"):
        if x > 3:
            pass


def test_and_of_exprs():
    with expect_error(TruthValueError, "(x > 1)", "no truth value", "&"):
        hl.select((x > 1) and (x < 3), 1, 0)


def test_caught_as_halides_value_error():
    """Halide's bindings raise ValueError ("cannot be converted to a bool"); so does webhal,
    and it is an hl.HalideError too."""
    with pytest.raises(ValueError, match="cannot be converted to a bool"):
        bool(x == 0)
    with pytest.raises(hl.HalideError):
        bool(x == 0)
