"""Detail enhancement of a colour photograph with a local Laplacian filter (Paris, Hasinoff and
Kautz, 2011).

The photograph's luminance is remapped around K evenly spaced intensity levels (each remapping
scales differences from its level by beta, and small ones, the details, by beta + alpha) and a
Gaussian pyramid of J levels is built of every remapped copy; each level of the output's
Laplacian pyramid is interpolated, pixel by pixel, between the two copies whose levels bracket
that pixel's intensity in the luminance's own pyramid, and the collapsed result is the new
luminance; each colour channel is scaled by the ratio of the new luminance to the old.

The CPU schedule computes each pyramid level whole, in parallel strips of rows vectorized across
x (the remapped copies in parallel by intensity level too); the remapping of the full-size image
and the horizontal pass of each downsampling are computed per strip where they are consumed,
so neither is stored whole, and the output computes its luminance per strip for all three
channels. The GPU schedule computes every level whole, one invocation per pixel with the K
intensity levels unrolled inside it, in workgroups of 16x16 that shrink to 8x8 and 4x4 on the
small levels so that few invocations idle; the output's invocations write four pixels each,
whole 32-bit words.
"""

import webhal as hl


def local_laplacian(image, alpha, beta, output: hl.Func, *, levels: int = 8,
                    intensities: int = 8, gpu: bool = False, vector: int = 4) -> hl.Func:
    """Define the filter of `image` (planar uint8 RGB: x, y, c) in `output` and schedule it:
    `levels` pyramid levels (J), `intensities` remapped intensity levels (K)."""
    x, y, c, k = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("k")
    J, K = levels, intensities

    clamped = hl.BoundaryConditions.repeat_edge(image)
    colour = hl.Func("colour")
    colour[x, y, c] = hl.f32(clamped[x, y, c]) * hl.f32(1.0 / 255.0)
    grey = hl.Func("grey")
    grey[x, y] = (hl.f32(0.299) * colour[x, y, 0] + hl.f32(0.587) * colour[x, y, 1] +
                  hl.f32(0.114) * colour[x, y, 2])

    # Level j covers [0, width_j) x [0, height_j); reads past its edges are clamped to them.
    widths = [(image.width() + (1 << j) - 1) >> j for j in range(J)]
    heights = [(image.height() + (1 << j) - 1) >> j for j in range(J)]

    def edge(f, j):
        return hl.BoundaryConditions.repeat_edge(f, [(0, widths[j]), (0, heights[j])])

    # A 1 3 3 1 filter and a halving in each direction; `extra` Vars beyond x and y (k).
    def downsample(f, j, name, extra=()):
        src = edge(f, j - 1)
        across = hl.Func(f"{name}_across")
        across[(x, y, *extra)] = (src[(2 * x - 1, y, *extra)] +
                                  3.0 * (src[(2 * x, y, *extra)] + src[(2 * x + 1, y, *extra)]) +
                                  src[(2 * x + 2, y, *extra)]) * hl.f32(1 / 8)
        down = hl.Func(name)
        down[(x, y, *extra)] = (across[(x, 2 * y - 1, *extra)] +
                                3.0 * (across[(x, 2 * y, *extra)] +
                                       across[(x, 2 * y + 1, *extra)]) +
                                across[(x, 2 * y + 2, *extra)]) * hl.f32(1 / 8)
        return down, across

    # And back up: each fine sample is 3/4 the coarse sample under it and 1/4 its neighbour on
    # the fine sample's side, in x and in y.
    def upsample(f, j, extra=()):
        src = edge(f, j + 1)

        def taps(v):
            return v // 2, v // 2 - 1 + 2 * (v % 2)

        (x0, x1), (y0, y1) = taps(x), taps(y)
        return (0.75 * (0.75 * src[(x0, y0, *extra)] + 0.25 * src[(x1, y0, *extra)]) +
                0.25 * (0.75 * src[(x0, y1, *extra)] + 0.25 * src[(x1, y1, *extra)]))

    # K remapped copies of the luminance: around level g, differences d from g become
    # beta d + alpha d exp(-d^2 / 2 sigma^2), sigma being the spacing of the levels.
    spacing = 1.0 / (K - 1)

    def remap(kk):
        level = hl.f32(kk) * hl.f32(spacing)
        d = grey[x, y] - level
        return level + beta * d + alpha * d * hl.exp(d * d * hl.f32(-0.5 / (spacing * spacing)))

    remapped = hl.Func("remapped")
    remapped[x, y, k] = remap(k)

    gauss, gauss_across = [remapped], [None]
    in_gauss, in_across = [grey], [None]
    for j in range(1, J):
        down, across = downsample(gauss[-1], j, f"gauss_{j}", (k,))
        gauss.append(down)
        gauss_across.append(across)
        down, across = downsample(in_gauss[-1], j, f"in_gauss_{j}")
        in_gauss.append(down)
        in_across.append(across)

    # The output's Laplacian pyramid, each level interpolated between the two remapped copies
    # whose intensity levels bracket the pixel's own, then collapsed from the coarsest level.
    out_gauss = [None] * J
    for j in reversed(range(J)):
        position = in_gauss[j][x, y] * hl.f32(K - 1)
        low = hl.clamp(hl.i32(hl.floor(position)), 0, K - 2)
        weight = position - hl.f32(low)

        def laplacian(kk, j=j):
            # The full-size copies are not kept: level 0 remaps the two it needs here.
            fine = remap(kk) if j == 0 else gauss[j][x, y, kk]
            return fine if j == J - 1 else fine - upsample(gauss[j + 1], j, (kk,))

        detail = laplacian(low) * (1.0 - weight) + laplacian(low + 1) * weight
        out_gauss[j] = hl.Func(f"out_gauss_{j}")
        out_gauss[j][x, y] = detail if j == J - 1 else detail + upsample(out_gauss[j + 1], j)

    # The colour back: each channel scaled as its luminance was (the small offset keeps the
    # ratio finite on black; alpha = 0, beta = 1 gives back the photograph).
    eps = hl.f32(0.01)
    result = colour[x, y, c] * (out_gauss[0][x, y] + eps) / (grey[x, y] + eps)
    output[x, y, c] = hl.u8(hl.clamp(result, 0.0, 1.0) * 255.0 + 0.5)

    # Every coarser level is read only through its boundary condition, so it is needed over
    # exactly its own size: saying so keeps bounds inference from deriving each level's region
    # from all of its readers'.
    for j in range(1, J):
        for f in (gauss[j], in_gauss[j], out_gauss[j]):
            f.bound(x, 0, widths[j]).bound(y, 0, heights[j])
    output.bound(c, 0, 3)

    xo, yo, xi, yi, xv = (hl.Var(n) for n in ("xo", "yo", "xi", "yi", "xv"))
    if gpu:
        def tile(j):
            return 16 if j < 3 else 8 if j < 5 else 4

        guard = hl.TailStrategy.GuardWithIf
        grey.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 16, guard)
        remapped.compute_root().reorder(k, x, y).unroll(k) \
            .gpu_tile(x, y, xo, yo, xi, yi, 16, 16, guard)
        for j in range(1, J):
            t = tile(j)
            gauss[j].compute_root().reorder(k, x, y).unroll(k) \
                .gpu_tile(x, y, xo, yo, xi, yi, t, t, guard)
            in_gauss[j].compute_root().gpu_tile(x, y, xo, yo, xi, yi, t, t, guard)
        for j in range(1, J):
            t = tile(j)
            out_gauss[j].compute_root().gpu_tile(x, y, xo, yo, xi, yi, t, t, guard)
        out_gauss[0].compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 16, guard)
        output.split(x, x, xv, 4).reorder(xv, c, x, y).vectorize(xv).unroll(c) \
            .gpu_tile(x, y, xo, yo, xi, yi, 16, 16)
    else:
        # The levels are computed over their bounds exactly (tails guarded, not shifted: a
        # shifted tail would compute rows outside the bound from rows of the level below that
        # were never computed).
        strip, guard = 8, hl.TailStrategy.GuardWithIf

        def rows(f, *parallel):
            f.compute_root().split(y, yo, yi, strip, guard).parallel(yo)
            for v in parallel:
                f.parallel(v)
            return f.vectorize(x, vector, guard)

        rows(grey)
        remapped.compute_at(gauss[1], yo).vectorize(x, vector)
        for j in range(1, J):
            rows(gauss[j], k)
            gauss_across[j].compute_at(gauss[j], yo).vectorize(x, vector)
            rows(in_gauss[j])
            in_across[j].compute_at(in_gauss[j], yo).vectorize(x, vector)
            rows(out_gauss[j])
        output.reorder(x, c, y).split(y, yo, yi, strip).parallel(yo).vectorize(x, vector)
        out_gauss[0].compute_at(output, yo).vectorize(x, vector)
    return output


@hl.generator(name="local_laplacian")
class LocalLaplacian:
    """The local Laplacian filter as a generator (`webhal build
    demos/local_laplacian/local_laplacian.py -g local_laplacian`): planar RGB in and out, of the
    same size; targets with webgpu get the GPU schedule."""

    levels = hl.GeneratorParam(8)
    intensities = hl.GeneratorParam(8)
    vector = hl.GeneratorParam(4)
    input = hl.InputBuffer(hl.UInt(8), 3)
    alpha = hl.InputScalar(hl.Float(32))
    beta = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.UInt(8), 3)

    def generate(g):
        local_laplacian(g.input, g.alpha, g.beta, g.output, levels=g.levels,
                        intensities=g.intensities, gpu=g.target().has_gpu_feature(),
                        vector=g.vector)


DEMO = {
    "title": "Local Laplacian filter",
    "image": "astronaut.png",
    "color": "rgb",
    "scalars": {
        "alpha": {"default": 1.5, "min": 0.0, "max": 4.0, "step": 0.05},
        "beta": {"default": 1.0, "min": 0.0, "max": 2.0, "step": 0.05},
    },
    "tolerance": 1,
    "description": "Detail enhancement without halos: every level of a Laplacian pyramid "
                   "remapped by the local intensity, then collapsed back into a photograph.",
}
