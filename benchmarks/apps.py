"""Halide's apps as benchmarks: local Laplacian, interpolate, bilateral grid, a camera pipeline
and unsharp mask, each written once as a function over a module `hl` (webhal or PyPI halide)
with the schedule of the app's CPU version, so the two compilers see the same program.

These are implementations of the same algorithms, written for this suite (not copies of
Halide's code): the structure, the pyramid depths and the schedules follow the apps.
`apps(full)` gives the suite's `Spec`s: `full=True` (the default of `run_apps`) the apps' own
sizes, 1536x1024 images, interpolate with 10 levels and local Laplacian with 8; `full=False`
(`run_apps --small`) images of 768x512 and shallower pyramids (5 and 4 levels).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from benchmarks.suite import Built, Spec, _photo, _tile

SMALL, FULL = (512, 768), (1024, 1536)  # (height, width) of the outputs
LEVELS = {"interpolate": (5, 10), "local_laplacian": (4, 8)}  # (default, --full)


# -- unsharp mask --------------------------------------------------------------------------------

SIGMA = 1.5
TAPS = [math.exp(-(i * i) / (2 * SIGMA * SIGMA)) for i in range(-3, 4)]
TAPS = [t / sum(TAPS) for t in TAPS]


def build_unsharp(hl) -> Built:
    """Sharpen the luma of a planar float32 RGB image by 2 x (luma - its 7x7 gaussian blur)
    and scale each channel by the ratio; strips of 32 rows in parallel, the luma computed per
    strip, the vertical blur and the ratio per row."""
    x, y, c, yi = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("yi")
    inp = hl.ImageParam(hl.Float(32), 3, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    gray, blur_y, blur_x = hl.Func("gray"), hl.Func("blur_y"), hl.Func("blur_x")
    ratio, out = hl.Func("ratio"), hl.Func("unsharp")
    gray[x, y] = (hl.f32(0.299) * clamped[x, y, 0] + hl.f32(0.587) * clamped[x, y, 1]
                  + hl.f32(0.114) * clamped[x, y, 2])
    blur_y[x, y] = _taps(hl, [gray[x, y + k - 3] for k in range(7)])
    blur_x[x, y] = _taps(hl, [blur_y[x + k - 3, y] for k in range(7)])
    sharpened = 2 * gray[x, y] - blur_x[x, y]
    ratio[x, y] = sharpened / hl.max(gray[x, y], hl.f32(1e-3))
    out[x, y, c] = ratio[x, y] * inp[x, y, c]
    out.reorder(x, c, y).split(y, y, yi, 32).parallel(y).vectorize(x, 8)
    gray.compute_at(out, y).vectorize(x, 8)
    blur_y.compute_at(out, yi).vectorize(x, 8)
    ratio.compute_at(out, yi).vectorize(x, 8)
    return Built(out, [inp])


def _taps(hl, terms):
    total = None
    for weight, term in zip(TAPS, terms, strict=True):
        term = term * hl.f32(weight)
        total = term if total is None else total + term
    return total


# -- bilateral grid ------------------------------------------------------------------------------

S_SIGMA = 8


def build_bilateral_grid(hl) -> Built:
    """Edge-preserving smoothing of a float32 gray image: a grid of 8x8-pixel cells by
    intensity (r_sigma, a Param), each cell's sum and count blurred (1 4 6 4 1) along z, x and
    y, then read back with trilinear interpolation; the app's CPU schedule."""
    x, y, z, c = hl.Var("x"), hl.Var("y"), hl.Var("z"), hl.Var("c")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    r_sigma = hl.Param(hl.Float(32), "r_sigma")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    r = hl.RDom([(0, S_SIGMA), (0, S_SIGMA)], "r")
    sample = hl.clamp(clamped[x * S_SIGMA + r.x - S_SIGMA // 2,
                              y * S_SIGMA + r.y - S_SIGMA // 2], hl.f32(0), hl.f32(1))
    cell = hl.i32(sample / r_sigma + hl.f32(0.5))
    histogram = hl.Func("histogram")
    histogram[x, y, z, c] = hl.f32(0)
    histogram[x, y, cell, c] += hl.select(c == 0, sample, hl.f32(1))

    def blur(f, name, at):
        g = hl.Func(name)
        g[x, y, z, c] = (f[at(-2)] + 4 * f[at(-1)] + 6 * f[at(0)] + 4 * f[at(1)] + f[at(2)])
        return g
    blurz = blur(histogram, "blurz", lambda d: (x, y, z + d, c))
    blurx = blur(blurz, "blurx", lambda d: (x + d, y, z, c))
    blury = blur(blurx, "blury", lambda d: (x, y + d, z, c))

    value = hl.clamp(inp[x, y], hl.f32(0), hl.f32(1))
    zv = value / r_sigma
    zi = hl.i32(zv)
    zf = zv - hl.f32(zi)
    xf = hl.f32(x % S_SIGMA) / S_SIGMA
    yf = hl.f32(y % S_SIGMA) / S_SIGMA
    xi, yi = x / S_SIGMA, y / S_SIGMA

    def plane(dz):
        near = hl.lerp(blury[xi, yi, zi + dz, c], blury[xi + 1, yi, zi + dz, c], xf)
        far = hl.lerp(blury[xi, yi + 1, zi + dz, c], blury[xi + 1, yi + 1, zi + dz, c], xf)
        return hl.lerp(near, far, yf)
    interpolated, out = hl.Func("interpolated"), hl.Func("bilateral_grid")
    interpolated[x, y, c] = hl.lerp(plane(0), plane(1), zf)
    out[x, y] = interpolated[x, y, 0] / interpolated[x, y, 1]

    blurz.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 8).unroll(c)
    histogram.compute_at(blurz, y)
    histogram.update().reorder(c, r.x, r.y, x, y).unroll(c)
    blurx.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c)
    blury.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c)
    out.compute_root().parallel(y).vectorize(x, 8)
    return Built(out, [inp, r_sigma], {"r_sigma": 0.1})


# -- interpolate ---------------------------------------------------------------------------------


def build_interpolate(hl, levels: int) -> Built:
    """Fill the transparent parts of a planar float32 RGBA image from its opaque parts: an
    alpha-premultiplied pyramid, downsampled (1 2 1) `levels` - 1 times, then upsampled back,
    each level blending in the coarser one where it is transparent; normalized by alpha. The
    app's CPU schedule: every level but the finest computed whole, in parallel strips."""
    x, y, c, xi, yi = (hl.Var(n) for n in ("x", "y", "c", "xi", "yi"))
    inp = hl.ImageParam(hl.Float(32), 3, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    down = [hl.Func(f"downsampled_{i}") for i in range(levels)]
    interp = [hl.Func(f"interpolated_{i}") for i in range(levels)]
    down[0][x, y, c] = hl.select(c < 3, clamped[x, y, c] * clamped[x, y, 3], clamped[x, y, 3])
    for i in range(1, levels):
        prev, dx = down[i - 1], hl.Func(f"downx_{i}")
        dx[x, y, c] = (prev[2 * x - 1, y, c] + 2 * prev[2 * x, y, c] + prev[2 * x + 1, y, c]) / 4
        down[i][x, y, c] = (dx[x, 2 * y - 1, c] + 2 * dx[x, 2 * y, c] + dx[x, 2 * y + 1, c]) / 4
    interp[-1][x, y, c] = down[-1][x, y, c]
    for i in reversed(range(levels - 1)):
        ux, up = hl.Func(f"upsampledx_{i}"), hl.Func(f"upsampled_{i}")
        coarse = interp[i + 1]
        ux[x, y, c] = (coarse[x / 2, y, c] + coarse[(x + 1) / 2, y, c]) / 2
        up[x, y, c] = (ux[x, y / 2, c] + ux[x, (y + 1) / 2, c]) / 2
        interp[i][x, y, c] = down[i][x, y, c] + (1 - down[i][x, y, 3]) * up[x, y, c]
    out = hl.Func("interpolate")
    out[x, y, c] = interp[0][x, y, c] / interp[0][x, y, 3]

    for i in range(1, levels):
        down[i].compute_root().parallel(y, 8).vectorize(x, 4)
        interp[i].compute_root().parallel(y, 8).unroll(x, 2).unroll(y, 2).vectorize(x, 8)
    out.reorder(c, x, y).bound(c, 0, 3).unroll(c).tile(x, y, xi, yi, 2, 2).unroll(xi) \
        .unroll(yi).parallel(y, 8).vectorize(x, 8)
    return Built(out, [inp])


# -- local Laplacian -----------------------------------------------------------------------------

INTENSITY_LEVELS = 8


def build_local_laplacian(hl, levels: int) -> Built:
    """Local Laplacian filter (detail enhancement, alpha and beta Params) of a planar uint16
    RGB image: 8 intensity levels, a Gaussian pyramid of the remapped luma per level and of the
    luma itself, the output's Laplacian pyramid taken level by level from the intensity level
    each pixel's luma falls in, collapsed and applied to the colour. The app's CPU schedule."""
    x, y, c, k, yi = (hl.Var(n) for n in ("x", "y", "c", "k", "yi"))
    inp = hl.ImageParam(hl.UInt(16), 3, "input")
    alpha, beta = hl.Param(hl.Float(32), "alpha"), hl.Param(hl.Float(32), "beta")
    steps = INTENSITY_LEVELS - 1
    remap = hl.Func("remap")
    fx = hl.f32(x) / 256
    remap[x] = alpha * fx * hl.exp(-fx * fx / 2)
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    floating, gray = hl.Func("floating"), hl.Func("gray")
    floating[x, y, c] = hl.f32(clamped[x, y, c]) / 65535
    gray[x, y] = (hl.f32(0.299) * floating[x, y, 0] + hl.f32(0.587) * floating[x, y, 1]
                  + hl.f32(0.114) * floating[x, y, 2])
    g_pyr = [hl.Func(f"gPyramid_{j}") for j in range(levels)]
    l_pyr = [hl.Func(f"lPyramid_{j}") for j in range(levels)]
    in_g = [hl.Func(f"inGPyramid_{j}") for j in range(levels)]
    out_l = [hl.Func(f"outLPyramid_{j}") for j in range(levels)]
    out_g = [hl.Func(f"outGPyramid_{j}") for j in range(levels)]
    level = hl.f32(k) / steps
    index = hl.clamp(hl.i32(gray[x, y] * (steps * 256)), 0, steps * 256)
    g_pyr[0][x, y, k] = beta * (gray[x, y] - level) + level + remap[index - 256 * k]
    for j in range(1, levels):
        g_pyr[j][x, y, k] = _downsample(hl, g_pyr[j - 1], x, y, (k,), f"gdown_{j}")
    l_pyr[-1][x, y, k] = g_pyr[-1][x, y, k]
    for j in range(levels - 1):
        l_pyr[j][x, y, k] = g_pyr[j][x, y, k] - _upsample(hl, g_pyr[j + 1], x, y, (k,),
                                                          f"gup_{j}")
    in_g[0][x, y] = gray[x, y]
    for j in range(1, levels):
        in_g[j][x, y] = _downsample(hl, in_g[j - 1], x, y, (), f"indown_{j}")
    for j in range(levels):
        at = in_g[j][x, y] * steps
        li = hl.clamp(hl.i32(at), 0, steps - 1)
        lf = at - hl.f32(li)
        out_l[j][x, y] = (1 - lf) * l_pyr[j][x, y, li] + lf * l_pyr[j][x, y, li + 1]
    out_g[-1][x, y] = out_l[-1][x, y]
    for j in reversed(range(levels - 1)):
        out_g[j][x, y] = _upsample(hl, out_g[j + 1], x, y, (), f"outup_{j}") + out_l[j][x, y]
    color, out = hl.Func("color"), hl.Func("local_laplacian")
    eps = hl.f32(0.01)
    color[x, y, c] = out_g[0][x, y] * (floating[x, y, c] + eps) / (gray[x, y] + eps)
    out[x, y, c] = hl.u16(hl.clamp(color[x, y, c], hl.f32(0), hl.f32(1)) * 65535)

    remap.compute_root()
    out.reorder(c, x, y).split(y, y, yi, 4).parallel(y).vectorize(x, 8)
    gray.compute_root().parallel(y, 4).vectorize(x, 8)
    for j in range(levels):
        if j > 0:
            in_g[j].compute_root().parallel(y, 4).vectorize(x, 8)
            g_pyr[j].compute_root().reorder_storage(x, k, y).reorder(k, y).parallel(y, 4) \
                .vectorize(x, 8)
        out_g[j].compute_root().parallel(y, 4).vectorize(x, 8)
    return Built(out, [inp, alpha, beta], {"alpha": 1.0 / steps, "beta": 1.0})


def _downsample(hl, f, x, y, rest, name):
    """f filtered (1 3 3 1) / 8 in x and y and taken at every other pixel."""
    dx = hl.Func(name + "_x")
    dx[(x, y, *rest)] = (f[(2 * x - 1, y, *rest)] + 3 * (f[(2 * x, y, *rest)]
                         + f[(2 * x + 1, y, *rest)]) + f[(2 * x + 2, y, *rest)]) / 8
    d = hl.Func(name)
    d[(x, y, *rest)] = (dx[(x, 2 * y - 1, *rest)] + 3 * (dx[(x, 2 * y, *rest)]
                        + dx[(x, 2 * y + 1, *rest)]) + dx[(x, 2 * y + 2, *rest)]) / 8
    return d[(x, y, *rest)]


def _upsample(hl, f, x, y, rest, name):
    """f at twice the resolution: each pixel 3/4 of its coarse pixel, 1/4 of the next one
    out (in x, then y)."""
    ux = hl.Func(name + "_x")
    ux[(x, y, *rest)] = (hl.f32(0.75) * f[(x / 2, y, *rest)]
                         + hl.f32(0.25) * f[(x / 2 - 1 + 2 * (x % 2), y, *rest)])
    u = hl.Func(name)
    u[(x, y, *rest)] = (hl.f32(0.75) * ux[(x, y / 2, *rest)]
                        + hl.f32(0.25) * ux[(x, y / 2 - 1 + 2 * (y % 2), *rest)])
    return u[(x, y, *rest)]


# -- camera pipeline -----------------------------------------------------------------------------

# Colour correction to sRGB-ish primaries in 8.8 fixed point (rows: r, g, b; columns: the
# camera's r, g, b and an offset).
COLOR_MATRIX = ((426, -124, -46, -6), (-56, 362, -50, 2), (8, -158, 406, -4))


def build_camera_pipe(hl) -> Built:
    """A raw camera pipeline on a 10-bit GRBG Bayer mosaic (uint16, edges repeated): hot
    pixels clamped to their four same-colour neighbours, the mosaic split into its four colour
    planes, demosaicked (each missing green from the pair of neighbours that agree best, red and
    blue from green-corrected neighbours), colour corrected in fixed point, mapped through a
    gamma/contrast curve (a 1024-entry lookup table) to uint8 and sharpened. Strips of 32 rows
    in parallel, the full-resolution stages per strip."""
    x, y, c, yi, i = (hl.Var(n) for n in ("x", "y", "c", "yi", "i"))
    raw = hl.ImageParam(hl.UInt(16), 2, "input")

    def i16(e):
        return hl.cast(hl.Int(16), e)
    # Hot pixels: no brighter than the brightest same-colour neighbour.
    denoised = hl.Func("denoised")
    clamped = hl.BoundaryConditions.repeat_edge(raw)
    neighbours = hl.max(hl.max(clamped[x - 2, y], clamped[x + 2, y]),
                        hl.max(clamped[x, y - 2], clamped[x, y + 2]))
    denoised[x, y] = i16(hl.min(clamped[x, y], neighbours))
    # The four colour planes at half resolution: g_gr (green on red rows), r, b, g_gb.
    g_gr, r_r, b_b, g_gb = (hl.Func(n) for n in ("g_gr", "r_r", "b_b", "g_gb"))
    g_gr[x, y] = denoised[2 * x, 2 * y]
    r_r[x, y] = denoised[2 * x + 1, 2 * y]
    b_b[x, y] = denoised[2 * x, 2 * y + 1]
    g_gb[x, y] = denoised[2 * x + 1, 2 * y + 1]

    def avg(a, b):
        return i16((hl.cast(hl.Int(32), a) + b + 1) / 2)

    def pick(a1, a2, b1, b2):
        """The average of the pair that differs less."""
        da, db = hl.absd(a1, a2), hl.absd(b1, b2)
        return hl.select(da < db, avg(a1, a2), avg(b1, b2))
    # Green at red sites (r_r) and blue sites (b_b).
    g_r, g_b = hl.Func("g_r"), hl.Func("g_b")
    g_r[x, y] = pick(g_gr[x, y], g_gr[x + 1, y], g_gb[x, y - 1], g_gb[x, y])
    g_b[x, y] = pick(g_gr[x, y], g_gr[x, y + 1], g_gb[x - 1, y], g_gb[x, y])
    # Red and blue at green sites, corrected by the local green.
    r_gr, b_gr, r_gb, b_gb = (hl.Func(n) for n in ("r_gr", "b_gr", "r_gb", "b_gb"))
    r_gr[x, y] = g_gr[x, y] + avg(r_r[x - 1, y] - g_r[x - 1, y], r_r[x, y] - g_r[x, y])
    b_gr[x, y] = g_gr[x, y] + avg(b_b[x, y - 1] - g_b[x, y - 1], b_b[x, y] - g_b[x, y])
    r_gb[x, y] = g_gb[x, y] + avg(r_r[x, y] - g_r[x, y], r_r[x, y + 1] - g_r[x, y + 1])
    b_gb[x, y] = g_gb[x, y] + avg(b_b[x, y] - g_b[x, y], b_b[x + 1, y] - g_b[x + 1, y])
    # Red at blue sites and blue at red sites, from the diagonals.
    r_b, b_r = hl.Func("r_b"), hl.Func("b_r")
    r_b[x, y] = g_b[x, y] + avg(r_r[x, y] - g_r[x, y], r_r[x - 1, y + 1] - g_r[x - 1, y + 1])
    b_r[x, y] = g_r[x, y] + avg(b_b[x, y] - g_b[x, y], b_b[x + 1, y - 1] - g_b[x + 1, y - 1])

    def interleave(gr, r, b, gb):
        """Full resolution from the four sites of each 2x2 cell (GRBG)."""
        return hl.select(y % 2 == 0, hl.select(x % 2 == 0, gr[x / 2, y / 2], r[x / 2, y / 2]),
                         hl.select(x % 2 == 0, b[x / 2, y / 2], gb[x / 2, y / 2]))
    demosaicked = hl.Func("demosaicked")
    red = interleave(r_gr, r_r, r_b, r_gb)
    green = interleave(g_gr, g_r, g_b, g_gb)
    blue = interleave(b_gr, b_r, b_b, b_gb)
    demosaicked[x, y, c] = hl.select(c == 0, red, hl.select(c == 1, green, blue))
    corrected = hl.Func("corrected")
    rgb = [hl.cast(hl.Int(32), demosaicked[x, y, ch]) for ch in range(3)]

    def row(m):
        return i16((m[0] * rgb[0] + m[1] * rgb[1] + m[2] * rgb[2] + m[3] * 256 + 128) >> 8)
    corrected[x, y, c] = hl.select(c == 0, row(COLOR_MATRIX[0]),
                                   hl.select(c == 1, row(COLOR_MATRIX[1]),
                                             row(COLOR_MATRIX[2])))
    # The tone curve: gamma 1/2.2 and a mild S-curve, 10-bit in, 8-bit out.
    curve = hl.Func("curve")
    v = hl.clamp(hl.f32(i) / 1023, hl.f32(0), hl.f32(1))
    g = hl.pow(v, hl.f32(1 / 2.2))
    s = g * g * (3 - 2 * g)
    curve[i] = hl.u8(hl.clamp((g * hl.f32(0.6) + s * hl.f32(0.4)) * 255 + hl.f32(0.5),
                              hl.f32(0), hl.f32(255)))
    curved = hl.Func("curved")
    curved[x, y, c] = curve[hl.clamp(hl.cast(hl.Int(32), corrected[x, y, c]), 0, 1023)]
    # Sharpen: 2 x centre - the average of the 3x3 cross, in int16.
    out = hl.Func("camera_pipe")
    centre = hl.cast(hl.Int(16), curved[x, y, c])
    blurred = (hl.cast(hl.Int(16), curved[x - 1, y, c]) + curved[x + 1, y, c]
               + curved[x, y - 1, c] + curved[x, y + 1, c] + 2) / 4
    out[x, y, c] = hl.u8(hl.clamp(centre * 2 - blurred, 0, 255))

    curve.compute_root().vectorize(i, 8)
    out.reorder(c, x, y).bound(c, 0, 3).unroll(c).split(y, y, yi, 32).parallel(y) \
        .vectorize(x, 16)
    curved.compute_at(out, y).reorder(c, x, y).unroll(c).vectorize(x, 16)
    corrected.compute_at(out, y).reorder(c, x, y).unroll(c).vectorize(x, 8)
    demosaicked.compute_at(out, y).reorder(c, x, y).unroll(c).vectorize(x, 8)
    # The half-resolution planes whole, in parallel rows (computed per strip, as Halide's
    # camera pipe does, webhal's bounds inference takes minutes: issue 31's compile time).
    denoised.compute_root().parallel(y, 16).vectorize(x, 16)
    for f in (g_gr, r_r, b_b, g_gb, g_r, g_b, r_gr, b_gr, r_gb, b_gb, r_b, b_r):
        f.compute_root().parallel(y, 16).vectorize(x, 8)
    return Built(out, [raw])


# -- inputs --------------------------------------------------------------------------------------


def rgb_f32(height: int, width: int) -> np.ndarray:
    """(3, h, w) planar float32 RGB in [0, 1]."""
    rgb = _tile(_photo("astronaut.png")[..., :3], height, width).transpose(2, 0, 1)
    return np.ascontiguousarray(rgb.astype(np.float32) / np.float32(255))


def rgba_holes(height: int, width: int) -> np.ndarray:
    """(4, h, w) planar float32 RGBA: the photo with its alpha 0 in a grid of holes."""
    rgb = rgb_f32(height, width)
    yy, xx = np.mgrid[0:height, 0:width]
    alpha = ((xx // 8 + yy // 8) % 3 != 0).astype(np.float32)  # a third transparent
    return np.ascontiguousarray(np.concatenate([rgb, alpha[None]]))


def gray_f32(height: int, width: int) -> np.ndarray:
    return np.ascontiguousarray(_tile(_photo("camera.png"), height, width)
                                .astype(np.float32) / np.float32(255))


def rgb_u16(height: int, width: int) -> np.ndarray:
    rgb = _tile(_photo("astronaut.png")[..., :3], height, width).transpose(2, 0, 1)
    return np.ascontiguousarray(rgb.astype(np.uint16) * np.uint16(257))


def bayer_u10(height: int, width: int) -> np.ndarray:
    """(h, w) uint16: a GRBG mosaic of the photo, 10-bit, with a few hot pixels."""
    rgb = _tile(_photo("astronaut.png")[..., :3], height, width).astype(np.uint16) * 4
    mosaic = np.empty((height, width), np.uint16)
    mosaic[0::2, 0::2] = rgb[0::2, 0::2, 1]
    mosaic[0::2, 1::2] = rgb[0::2, 1::2, 0]
    mosaic[1::2, 0::2] = rgb[1::2, 0::2, 2]
    mosaic[1::2, 1::2] = rgb[1::2, 1::2, 1]
    mosaic[7::97, 5::89] = 1023
    return mosaic


def apps(full: bool = False, size: tuple[int, int] | None = None) -> dict[str, Spec]:
    """The apps as suite Specs: outputs of `size` (height, width), by default 768x512 (1536x1024
    with `full`), and the pyramids shallower unless `full`."""
    h, w = size or (FULL if full else SMALL)
    depth = {name: levels[1 if full else 0] for name, levels in LEVELS.items()}
    interp = partial(build_interpolate, levels=depth["interpolate"])
    local = partial(build_local_laplacian, levels=depth["local_laplacian"])
    specs = [
        Spec("local_laplacian", f"local Laplacian, {depth['local_laplacian']} levels, uint16 RGB",
             local, lambda: [rgb_u16(h, w)], (3, h, w), "uint16",
             params={"alpha": 1.0 / (INTENSITY_LEVELS - 1), "beta": 1.0}),
        Spec("interpolate", f"interpolate, {depth['interpolate']} levels, float32 RGBA",
             interp, lambda: [rgba_holes(h, w)], (3, h, w), "float32"),
        Spec("bilateral_grid", "bilateral grid, float32 gray", build_bilateral_grid,
             lambda: [gray_f32(h, w)], (h, w), "float32", params={"r_sigma": 0.1}),
        Spec("camera_pipe", "camera pipeline, 10-bit Bayer to uint8 RGB", build_camera_pipe,
             lambda: [bayer_u10(h, w)], (3, h, w), "uint8"),
        Spec("unsharp", "unsharp mask, float32 RGB", build_unsharp, lambda: [rgb_f32(h, w)],
             (3, h, w), "float32"),
    ]
    return {s.name: s for s in specs}
