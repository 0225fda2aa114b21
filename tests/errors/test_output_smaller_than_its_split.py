"""An output smaller than a split factor of its schedule: the last tile shifts inwards, past
the output's start. The message says what to do (Halide's realize would enlarge the output;
webhal's, as Halide's AOT code, writes only the buffer it is given)."""

import webhal as hl

from ._util import expect_error

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")


def test_output_narrower_than_the_split_factor():
    doubled = hl.Func("doubled")
    doubled[x] = x * 2
    doubled.split(x, xo, xi, 8)
    with expect_error(hl.BufferError, "Output buffer doubled", "at -5", "before the min (0)",
                      "realize a larger output", "TailStrategy.GuardWithIf"):
        doubled.realize([3], hl.Target("host"))
