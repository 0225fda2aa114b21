"""An output Buffer smaller than a split factor of its schedule: the last tile shifts inwards,
past the output's start. As in Halide, realize into a given Buffer (and the AOT entry) only
checks it, and the message says what to do; realize with sizes enlarges its own buffer
(tests/correctness/test_output_smaller_than_its_split.py)."""

import webhal as hl

from ._util import expect_error

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")


def test_output_buffer_narrower_than_the_split_factor():
    doubled = hl.Func("doubled")
    doubled[x] = x * 2
    doubled.split(x, xo, xi, 8)
    with expect_error(hl.BufferError, "Output buffer doubled", "at -5", "before the min (0)",
                      "pass a larger output buffer", "TailStrategy.GuardWithIf"):
        doubled.realize(hl.Buffer(hl.Int(32), [3]), hl.Target("host"))
