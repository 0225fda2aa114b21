"""Histogram equalization: each grey level of a photograph is mapped to its place in the
photograph's cumulative distribution, which spreads the levels over the whole range.

The histogram is an RDom scatter, counted in partial histograms of strips of rows that are then
added up per bin (Halide would write one scatter and split it in the schedule with rfactor;
webhal has no rfactor, so the strips are part of the algorithm, their height a parameter of it
that does not change the result). The cumulative distribution is an RDom scan over the 256
bins, and the output a per-pixel lookup in the table round(cdf * 255 / pixels). Integer math
only (32-bit: exact up to 16 million pixels), so every target gives the same bits.

CPU schedule: strips of 32 rows, their partial histograms counted in parallel (the Web Workers
of the wasm threads variant), then summed per bin vectorized across the bins; the scan and the
table are 256 elements, computed once, serially; the lookup runs over strips of rows in parallel,
vectorized across x by the natural vector size of uint8 (16 lanes of SIMD128: the lookup itself
is a gather, the loads and stores around it are vectors).

GPU schedule, without atomics (which webhal does not have): a partial histogram per row, one
invocation per row (64 rows per workgroup) scattering into that row's own 256 counts, which a
kernel of 16x16 invocations has zeroed; then one invocation per bin (a workgroup of 256) adds
that bin up over the rows; the scan and the table run in one workgroup of a single invocation
(the scan is serial, its 256 counts in that invocation's private memory); the lookup is a
kernel of 16x8 invocations of four pixels each (a 32-bit word of the uint8 output). Every stage
runs on the GPU, so nothing is copied back to the CPU until the output.
"""

import webhal as hl


def equalize(image, output: hl.Func, rows: int) -> dict[str, hl.Func]:
    """Define the histogram equalization of `image` (a uint8 ImageParam) in `output`, its
    histogram counted in strips of `rows` rows; return the Funcs the schedules place."""
    x, y, b, s = hl.Var("x"), hl.Var("y"), hl.Var("b"), hl.Var("s")
    x0, y0 = image.dim(0).min(), image.dim(1).min()
    width, height = image.width(), image.height()
    strips = (height + (rows - 1)) / rows

    # The partial histogram of each strip: an RDom over its pixels, the bin from the pixel.
    partial = hl.Func("partial")
    partial[b, s] = hl.u32(0)
    r = hl.RDom([(0, width), (0, rows)], "r")
    row = s * rows + r.y
    if rows > 1:
        # The last strip's rows past the image are not counted; bounds inference (Halide's
        # too) does not narrow the RDom by this predicate, so the read is clamped to the image
        # as well: a height not a multiple of `rows` (a 720-row webcam frame) reads no further.
        r.where(row < height)
        row = hl.min(row, height - 1)
    partial[hl.i32(image[x0 + r.x, y0 + row]), s] += hl.u32(1)

    histogram = hl.Func("histogram")
    histogram[b] = hl.u32(0)
    t = hl.RDom([(0, strips)], "t")
    histogram[b] += partial[b, t.x]

    cdf = hl.Func("cdf")
    cdf[b] = histogram[b]
    k = hl.RDom([(1, 255)], "k")
    cdf[k.x] = cdf[k.x - 1] + cdf[k.x]

    pixels = hl.u32(width * height)
    table = hl.Func("table")
    table[b] = hl.u8((cdf[b] * 255 + pixels / 2) / pixels)
    output[x, y] = table[hl.i32(image[x, y])]
    return {"partial": partial, "histogram": histogram, "cdf": cdf, "table": table}


CPU_ROWS = 32  # rows per partial histogram: 16 parallel tasks on the 512-row photo
GPU_ROWS = 1   # one row per invocation


def schedule_cpu(output: hl.Func, f: dict[str, hl.Func], vector: int) -> None:
    x, y, b, s, yo, yi = (hl.Var(n) for n in ("x", "y", "b", "s", "yo", "yi"))
    f["partial"].compute_root().vectorize(b, vector)
    f["partial"].update().parallel(s)
    f["histogram"].compute_root().vectorize(b, vector)
    f["histogram"].update().vectorize(b, vector)
    f["cdf"].compute_root()
    f["table"].compute_root().bound(b, 0, 256)
    output.split(y, yo, yi, 32).parallel(yo).vectorize(x, vector)


def schedule_gpu(output: hl.Func, f: dict[str, hl.Func]) -> None:
    x, y, b, s, xv = (hl.Var(n) for n in ("x", "y", "b", "s", "xv"))
    bo, bi, so, si = (hl.Var(n) for n in ("bo", "bi", "so", "si"))
    xo, yo, xi, yi = (hl.Var(n) for n in ("xo", "yo", "xi", "yi"))
    partial = f["partial"].compute_root()
    partial.gpu_tile(b, s, bo, so, bi, si, 16, 16)
    partial.update().split(s, so, si, 64, hl.TailStrategy.GuardWithIf)
    partial.update().gpu_blocks(so).gpu_threads(si)
    histogram = f["histogram"].compute_root()
    histogram.gpu_tile(b, bo, bi, 256)
    histogram.update().gpu_tile(b, bo, bi, 256)
    # One invocation: the scan, then the table, with the scan in its private memory.
    table = f["table"].compute_root().bound(b, 0, 256)
    table.split(b, bo, bi, 256).gpu_blocks(bo)
    f["cdf"].compute_at(table, bo).bound(b, 0, 256)
    output.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)


@hl.generator(name="histogram_equalization")
class HistogramEqualization:
    """Histogram equalization: uint8 grey in, uint8 out of the same size; targets with a GPU
    feature get the GPU schedule."""

    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        if g.target().has_gpu_feature():
            schedule_gpu(g.output, equalize(g.input, g.output, GPU_ROWS))
        else:
            funcs = equalize(g.input, g.output, CPU_ROWS)
            schedule_cpu(g.output, funcs, g.natural_vector_size(hl.UInt(8)))


DEMO = {
    "title": "Histogram equalization",
    "image": "camera.png",
    "color": "gray",
    "scalars": {},
    "tolerance": 0,
    "description": "Spreads the grey levels of the cameraman photo over the whole range through "
                   "its histogram and cumulative distribution.",
}
