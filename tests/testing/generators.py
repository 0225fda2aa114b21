"""Generators whose buffers `webhal test` must size from their dim() constraints, or whose
sizing fails with the hook that fixes it (tests/testing/test_sizing.py)."""

import webhal as hl

c, x, y = hl.Var("c"), hl.Var("x"), hl.Var("y")
# An image no generator takes as an Input: no bounds query can know its size.
elsewhere = hl.ImageParam(hl.UInt(8), 1, "elsewhere")


def _sepia(r, g, b):
    return [hl.f32(0.393) * r + hl.f32(0.769) * g + hl.f32(0.189) * b,
            hl.f32(0.349) * r + hl.f32(0.686) * g + hl.f32(0.168) * b,
            hl.f32(0.272) * r + hl.f32(0.534) * g + hl.f32(0.131) * b]


@hl.generator(name="sepia_interleaved")
class SepiaInterleaved:
    """RGB with the channel first, (c, x, y), as interleaved pixels are: dim(0) == 3."""

    input = hl.InputBuffer(hl.UInt(8), 3)
    output = hl.OutputBuffer(hl.UInt(8), 3)

    def generate(g):
        g.input.dim(0).set_bounds(0, 3)
        r, gr, b = (hl.f32(g.input[i, x, y]) for i in range(3))
        g.output[c, x, y] = hl.u8(hl.min(hl.mux(c, _sepia(r, gr, b)), 255.0))
        g.output.output_buffer().dim(0).set_bounds(0, 3)
        g.output.bound(c, 0, 3).unroll(c).vectorize(x, 8)


@hl.generator(name="rows_from_a_param")
class RowsFromAParam:
    """An output whose row count is a constraint of a scalar input: 2 * rows."""

    input = hl.InputBuffer(hl.Float(32), 2)
    rows = hl.InputScalar(hl.Int(32))
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        g.output[x, y] = g.input[x, y] * 2
        g.output.output_buffer().dim(1).set_extent(g.rows * 2)


@hl.generator(name="output_from_one")
class OutputFromOne:
    """An output whose min is constrained away from 0."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        g.output[x, y] = g.input[x, y]
        g.output.output_buffer().dim(0).set_min(1)


@hl.generator(name="extent_of_another_image")
class ExtentOfAnotherImage:
    """An output extent constrained to the size of an image no bounds query knows:
    test_output_shapes() is the fix."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        g.output[x, y] = g.input[x, y]
        g.output.output_buffer().dim(0).set_extent(elsewhere.dim(0).extent())


@hl.generator(name="read_at_another_images_size")
class ReadAtAnotherImagesSize:
    """An input read at an offset of the size of an image no bounds query knows, through a
    long expression: test_inputs() is the fix, and the error is short."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        size = elsewhere.dim(0).extent()
        offset = size
        for i in range(1, 120):
            offset = offset + size * i
        g.output[x, y] = g.input[x + offset, y]

    def test_output_shapes(self):
        return {"output": (6, 7)}
