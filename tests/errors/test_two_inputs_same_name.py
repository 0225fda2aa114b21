"""Two different Buffers (or Params) under one name: the compiled code would read one for both."""

import numpy as np

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_two_buffers():
    a = hl.Buffer(np.arange(8, dtype=np.int32), "input")
    b = hl.Buffer(np.arange(8, dtype=np.int32) * 10, "input")
    f = hl.Func("f")
    f[x] = a[x] + b[x]
    with expect_error(hl.CompileError, "two different inputs are named 'input'", "Func f",
                      "its own name"):
        f.realize([8], hl.Target("host"))


def test_two_params():
    gain, other = hl.Param(hl.Float(32), "gain", 2.0), hl.Param(hl.Float(32), "gain", 3.0)
    f = hl.Func("scaled")
    f[x] = hl.f32(x) * gain + other
    with expect_error(hl.CompileError, "two different inputs are named 'gain'", "a Param"):
        f.compile_to_assembly("/dev/null", [gain, other], "scaled", hl.Target("host"))


def test_one_array_wrapped_twice_is_one_input():
    data = np.arange(8, dtype=np.int32)
    f = hl.Func("twice")
    f[x] = hl.Buffer(data, "input")[x] + hl.Buffer(data, "input")[x]
    np.testing.assert_array_equal(np.asarray(f.realize([8], hl.Target("host"))), 2 * data)
