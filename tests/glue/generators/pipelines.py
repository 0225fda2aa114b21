"""Generators that tests/glue builds into npm packages: several element types, a scalar of
each kind, a boundary condition, a reduction, two outputs, and a name that needs escaping."""

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")


@hl.generator(name="brighten")
class Brighten:
    vector = hl.GeneratorParam(16)
    input = hl.InputBuffer(hl.UInt(8), 2)
    amount = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        g.output[x, y] = hl.u8(hl.min(hl.f32(g.input[x, y]) * g.amount, 255.0))
        g.output.vectorize(x, g.vector)


@hl.generator(name="blur_edges")
class BlurEdges:
    """A 3x3 box blur of uint16 with the edges repeated: the output is the input's size."""

    input = hl.InputBuffer(hl.UInt(16), 2)
    output = hl.OutputBuffer(hl.UInt(16), 2)

    def generate(g):
        clamped = hl.BoundaryConditions.repeat_edge(g.input)
        blur_x = hl.Func("blur_x")
        blur_x[x, y] = (hl.u32(clamped[x - 1, y]) + clamped[x, y] + clamped[x + 1, y])
        g.output[x, y] = hl.u16((blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) / 9)
        yi = hl.Var("yi")
        g.output.split(y, y, yi, 8).parallel(y).vectorize(x, 8)  # strips on threads
        blur_x.compute_at(g.output, y).vectorize(x, 8)


@hl.generator(name="stats")
class Stats:
    """Two outputs from an int16 and a float64 input: a row sum (an RDom reduction) and a
    thresholded, offset copy; scalars of int32 and bool."""

    values = hl.InputBuffer(hl.Int(16), 2)
    weights = hl.InputBuffer(hl.Float(64), 1)
    offset = hl.InputScalar(hl.Int(32))
    negate = hl.InputScalar(hl.Bool())
    row_sums = hl.OutputBuffer(hl.Float(64), 1)
    shifted = hl.OutputBuffer(hl.Int(32), 2)

    def generate(g):
        r = hl.RDom([(0, g.values.width())])
        g.row_sums[y] = hl.f64(0.0)
        g.row_sums[y] += hl.f64(g.values[r.x, y]) * g.weights[r.x]
        v = hl.i32(g.values[x, y]) + g.offset
        g.shifted[x, y] = hl.select(g.negate, -v, v)
        g.shifted.vectorize(x, 4)


@hl.generator(name="My Blur's <v2>")
class EscapedName:
    image = hl.InputBuffer(hl.UInt(8), 1)
    result = hl.OutputBuffer(hl.UInt(8), 1)

    def generate(g):
        g.result[x] = g.image[x] // 2


@hl.generator(name="brighten_gpu")
class BrightenGpu:
    """brighten with a GPU schedule when the target has webgpu: a WebGPU variant."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    amount = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        g.output[x, y] = hl.u8(hl.min(hl.f32(g.input[x, y]) * g.amount, 255.0))
        if g.target().has_gpu_feature():
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
        else:
            g.output.vectorize(x, 16).parallel(y)


@hl.generator(name="blur_gpu")
class BlurGpu:
    """The demo's blur (uint8 in and out, uint16 between) with two kernels on WebGPU: the
    intermediate stays on the device, packed two to a word."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        blur_x = hl.Func("blur_x")
        blur_x[x, y] = (hl.u16(g.input[x, y]) + g.input[x + 1, y] + g.input[x + 2, y]) / 3
        g.output[x, y] = hl.u8((blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3)
        xo, yo, xi, yi, xv = (hl.Var(n) for n in ("xo", "yo", "xi", "yi", "xv"))
        if g.target().has_gpu_feature():
            blur_x.compute_root().split(x, x, xv, 2).vectorize(xv) \
                .gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
            g.output.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
        else:
            g.output.vectorize(x, 16)
            blur_x.compute_at(g.output, y).vectorize(x, 16)


@hl.generator(name="reads_gpu_result_on_cpu")
class ReadsGpuResultOnCpu:
    """A CPU stage reading what a kernel wrote: needs a readback before the pipeline ends."""

    input = hl.InputBuffer(hl.Float(32), 1)
    output = hl.OutputBuffer(hl.Float(32), 1)

    def generate(g):
        doubled = hl.Func("doubled")
        doubled[x] = g.input[x] * 2.0
        g.output[x] = doubled[x] + 1.0
        xo, xi = hl.Var("xo"), hl.Var("xi")
        doubled.compute_root()
        if g.target().has_gpu_feature():  # (a gpu_tile on a CPU target is refused)
            doubled.gpu_tile(x, xo, xi, 16)


@hl.generator(name="mixed_gpu")
class MixedGpu:
    """A CPU stage feeding a GPU one: the host writes `scaled`, a kernel reads it (float32)."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    gain = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        scaled = hl.Func("scaled")
        scaled[x, y] = hl.f32(g.input[x, y]) * g.gain
        g.output[x, y] = scaled[x, y] + scaled[x + 1, y]
        scaled.compute_root().vectorize(x, 8)
        if g.target().has_gpu_feature():
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
        else:
            g.output.vectorize(x, 8)


@hl.generator(name="scale_u32")
class ScaleU32:
    """3 * input + 1 over uint32 words: on WebGPU its input may be a GPUBuffer that C code on
    webgpu.h filled (tests/glue/test_webgpu_h.py)."""

    input = hl.InputBuffer(hl.UInt(32), 1)
    output = hl.OutputBuffer(hl.UInt(32), 1)

    def generate(g):
        g.output[x] = g.input[x] * 3 + 1
        if g.target().has_gpu_feature():
            xo, xi = hl.Var("xo"), hl.Var("xi")
            g.output.gpu_tile(x, xo, xi, 64)


@hl.generator(name="sepia")
class Sepia:
    """Sepia toning of interleaved RGB, dimensions (c, x, y) with dim(0) == 3 on both buffers,
    a strength in [0, 1] and an offset that may be NaN or infinite (the types and constraints
    of tests/glue/test_npm_types.py)."""

    input = hl.InputBuffer(hl.UInt(8), 3)
    strength = hl.InputScalar(hl.Float(32))
    offset = hl.InputScalar(hl.Float(32), allow_nonfinite=True)
    output = hl.OutputBuffer(hl.UInt(8), 3)

    def generate(g):
        c = hl.Var("c")
        r, gr, b = (hl.f32(g.input[i, x, y]) for i in range(3))
        weights = [(0.393, 0.769, 0.189), (0.349, 0.686, 0.168), (0.272, 0.534, 0.131)]
        toned = [hl.f32(wr) * r + hl.f32(wg) * gr + hl.f32(wb) * b for wr, wg, wb in weights]
        sepia = hl.select(c == 0, toned[0], c == 1, toned[1], toned[2])
        mixed = hl.f32(g.input[c, x, y]) * (1 - g.strength) + sepia * g.strength
        # An offset of NaN gives 0 here (max then min of NaN is the bound).
        g.output[c, x, y] = hl.u8(hl.clamp(mixed + g.offset, 0.0, 255.0))
        g.strength.set_range(0.0, 1.0)
        g.input.dim(0).set_bounds(0, 3)
        g.output.output_buffer().dim(0).set_bounds(0, 3)
        g.output.bound(c, 0, 3).unroll(c)
        if g.target().has_gpu_feature():
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            g.output.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
