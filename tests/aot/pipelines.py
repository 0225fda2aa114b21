"""Pipelines the AOT and golden tests compile."""

import webhal as hl


def blur_u16():
    """Halide's blur app: a 3x3 box blur of uint16 in two passes, its schedule."""
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(16), 2, "input")
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3
    blur_y.split(y, y, yi, 8).parallel(y).vectorize(x, 8)
    blur_x.compute_at(blur_y, y).vectorize(x, 8)
    return blur_y, [inp]


def brighten_f32():
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    gain = hl.Param(hl.Float(32), "gain", 1.5)
    out = hl.Func("brighten")
    out[x, y] = hl.clamp(inp[x, y] * gain, 0.0, 1.0)
    out.vectorize(x, 4)
    return out, [inp, gain]


def histogram_u8():
    x = hl.Var("x")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    r = hl.RDom([(0, inp.width()), (0, inp.height())], "r")
    hist = hl.Func("histogram")
    hist[x] = 0
    hist[hl.i32(inp[r.x, r.y])] += 1
    return hist, [inp]
