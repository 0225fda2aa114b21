"""Reading a Func or image at a floating-point coordinate."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_func_at_a_float():
    ramp = hl.Func("ramp")
    ramp[x] = x
    out = hl.Func("out")
    with expect_error(hl.CompileError, "argument 0 of Func ramp", "float32", "integers"):
        out[x] = ramp[x * 0.5]


def test_image_at_a_float():
    photo = hl.ImageParam(hl.Float(32), 2, "photo")
    out = hl.Func("out")
    with expect_error(hl.CompileError, "argument 1 of photo", "float32", "hl.i32"):
        out[x] = photo[x, hl.f32(x)]
