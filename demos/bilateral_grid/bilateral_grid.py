"""Edge-preserving smoothing of a grey photograph with a bilateral grid (Chen, Paris and Durand,
2007).

Each s_sigma x s_sigma tile of the photograph is reduced into a column of intensity bins of width
r_sigma, each holding the sum of the tile's intensities that fall in it and their count; the
grid is blurred a little in intensity, x and y, and every pixel reads its value back by
trilinear interpolation at (x / s_sigma, y / s_sigma, intensity / r_sigma), the sum divided by
the count. Pixels only average with neighbours of similar intensity, so edges stay sharp.

The CPU schedule computes the grid one row of tiles at a time, inside the rows of the intensity
blur that consume it, so the histogram stays in cache; each grid blur is computed whole (the
grid has s_sigma^2 times fewer cells than the photograph has pixels, times the bins) in
parallel over its rows, and the slicing runs in parallel strips of rows, all vectorized across
x. The GPU schedule computes every stage whole, one invocation per grid cell (a column of bins)
in workgroups of 8x8, then 16x16 invocations of four pixels each for the photograph (whole
32-bit words of the uint8 output): a cell's bins are written only by its own invocation, so the
histogram needs no atomics.
"""

import webhal as hl


def bilateral_grid(image, r_sigma, output: hl.Func, *, s_sigma: int = 8, gpu: bool = False,
                   vector: int = 4) -> hl.Func:
    """Define the bilateral grid filter of `image` (uint8, 2-D) in `output` and schedule it."""
    x, y, z, c = hl.Var("x"), hl.Var("y"), hl.Var("z"), hl.Var("c")
    s = s_sigma
    inv_r = 1.0 / r_sigma

    clamped = hl.BoundaryConditions.repeat_edge(image)
    grey = hl.Func("grey")
    grey[x, y] = hl.f32(clamped[x, y]) * hl.f32(1.0 / 255.0)

    # The grid: cell (x, y) gathers the tile centred on pixel (x * s, y * s); channel 0 sums the
    # intensities that round to bin z, channel 1 counts them.
    r = hl.RDom([(0, s), (0, s)], "r")
    sample = grey[x * s + r.x - s // 2, y * s + r.y - s // 2]
    bin_z = hl.i32(sample * inv_r + 0.5)
    grid = hl.Func("grid")
    grid[x, y, z, c] = 0.0
    grid[x, y, bin_z, c] += hl.select(c == 0, sample, 1.0)

    # A 1 4 6 4 1 blur in each grid dimension (its scale cancels in the division below).
    def blur5(f, name, dx, dy, dz):
        b = hl.Func(name)
        b[x, y, z, c] = sum(w * f[x + i * dx, y + i * dy, z + i * dz, c]
                            for i, w in zip(range(-2, 3), (1.0, 4.0, 6.0, 4.0, 1.0)))
        return b

    blur_z = blur5(grid, "blur_z", 0, 0, 1)
    blur_x = blur5(blur_z, "blur_x", 1, 0, 0)
    blur_y = blur5(blur_x, "blur_y", 0, 1, 0)

    # Slicing: trilinear interpolation of the blurred grid at each pixel's position.
    zv = grey[x, y] * inv_r
    zi = hl.i32(zv)
    zf = zv - hl.f32(zi)
    xi, yi = x // s, y // s
    xf = hl.f32(x % s) * hl.f32(1.0 / s)
    yf = hl.f32(y % s) * hl.f32(1.0 / s)

    def mix(a, b, w):
        return a + (b - a) * w

    def at(dx, dy, dz):
        return blur_y[xi + dx, yi + dy, zi + dz, c]

    sliced = hl.Func("sliced")
    sliced[x, y, c] = mix(mix(mix(at(0, 0, 0), at(1, 0, 0), xf),
                              mix(at(0, 1, 0), at(1, 1, 0), xf), yf),
                          mix(mix(at(0, 0, 1), at(1, 0, 1), xf),
                              mix(at(0, 1, 1), at(1, 1, 1), xf), yf), zf)
    smooth = sliced[x, y, 0] / sliced[x, y, 1]
    output[x, y] = hl.u8(hl.clamp(smooth, 0.0, 1.0) * 255.0 + 0.5)

    xo, yo, zo, xn, yn, zn, xv = (hl.Var(n) for n in ("xo", "yo", "zo", "xn", "yn", "zn", "xv"))
    if gpu:
        # Guarded tails, not shifted ones: the regions of the grid stages stay simple
        # expressions of the output's (each shift would add a min() to every bound below it).
        guard = hl.TailStrategy.GuardWithIf
        grid.compute_root().reorder(c, z, x, y).gpu_tile(x, y, xo, yo, xn, yn, 8, 8, guard)
        grid.update().reorder(c, r.x, r.y, x, y).unroll(c) \
            .gpu_tile(x, y, xo, yo, xn, yn, 8, 8, guard)
        for b in (blur_z, blur_x, blur_y):
            b.compute_root().reorder(c, x, y, z).unroll(c) \
                .gpu_tile(x, y, z, xo, yo, zo, xn, yn, zn, 8, 8, 1, guard)
        # Four pixels per invocation, so that each writes a whole 32-bit word of the output.
        output.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xn, yn, 16, 16)
    else:
        # Rows of tiles outermost, so that a row's histogram is built once for all its bins.
        blur_z.compute_root().reorder(x, z, c, y).parallel(y).vectorize(x, vector)
        grid.compute_at(blur_z, y).vectorize(x, vector)
        grid.update().reorder(c, r.x, r.y, x, y).unroll(c)
        for b in (blur_x, blur_y):
            b.compute_root().reorder(x, z, c, y).parallel(y).vectorize(x, vector)
        output.split(y, yo, yn, 16).parallel(yo).vectorize(x, vector)
    return output


@hl.generator(name="bilateral_grid")
class BilateralGrid:
    """The bilateral grid as a generator (`webhal build demos/bilateral_grid/bilateral_grid.py
    -g bilateral_grid`): the output has the input's size; targets with webgpu get the GPU
    schedule."""

    s_sigma = hl.GeneratorParam(8)
    vector = hl.GeneratorParam(4)
    input = hl.InputBuffer(hl.UInt(8), 2)
    r_sigma = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        bilateral_grid(g.input, g.r_sigma, g.output, s_sigma=g.s_sigma,
                       gpu=g.target().has_gpu_feature(), vector=g.vector)


DEMO = {
    "title": "Bilateral grid",
    "image": "camera.png",
    "color": "gray",
    "scalars": {"r_sigma": {"default": 0.1, "min": 0.01, "max": 0.5, "step": 0.01}},
    "tolerance": 1,
    "description": "Edge-preserving smoothing: a bilateral filter computed on a coarse grid of "
                   "space and intensity, then sliced back at every pixel.",
}
