"""Tutorial-style pipelines built twice, once with webhal and once with PyPI halide, by the same
code taking the module as `hl`; webhal's reference evaluator must give Halide's numbers (bit-exact
for integers, within a tight tolerance for floats). Ends with random expressions (hypothesis).

Halide is only a comparison peer here: webhal never imports it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import webhal
from tests.halide_peer import require

halide, Image = require("halide", "PIL.Image")

pytestmark = pytest.mark.halide

BOTH = [pytest.param(webhal, id="webhal"), pytest.param(halide, id="halide")]
IMAGES = Path(__file__).resolve().parents[2] / "demos" / "images"


def load(name: str) -> np.ndarray:
    with Image.open(IMAGES / name) as im:
        return np.array(im)


CAMERA = load("camera.png")  # 512 x 512, uint8, grey
# Planar (c, h, w), so that the Buffer has x = width, y = height, c = channel.
ASTRONAUT = np.ascontiguousarray(load("astronaut.png").transpose(2, 0, 1))


def run(hl, pipeline, sizes) -> np.ndarray:
    """Realize with webhal's reference evaluator or with Halide's JIT, as a numpy copy."""
    if hl is webhal:
        out = pipeline.realize(list(sizes), webhal.Target("reference"))
    else:
        out = pipeline.realize(list(sizes))
    if isinstance(out, (list, tuple)):  # several outputs: webhal gives a list, Halide a tuple
        return [np.array(np.asarray(o)) for o in out]
    return np.array(np.asarray(out))


def both(build, *args, **kwargs):
    """build(hl, ...) -> (pipeline, sizes, keepalive) run by each library."""
    results = []
    for hl in (webhal, halide):
        pipeline, sizes, _keep = build(hl, *args, **kwargs)
        results.append(run(hl, pipeline, sizes))
    return results


def assert_same(ours, theirs, rtol=1e-6, atol=0.0):
    """Integers bit-exact; floats within rtol (Halide divides by a float constant by
    multiplying with its reciprocal, so last bits may differ)."""
    if isinstance(ours, list):
        for a, b in zip(ours, theirs):
            assert_same(a, b, rtol, atol)
        return
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if ours.dtype.kind == "f":
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(ours, theirs)


# -- the buffers agree on axis order -------------------------------------------------------------

@pytest.mark.parametrize("hl", BOTH)
def test_buffers_reverse_numpy_axes_in_both(hl):
    a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    b = hl.Buffer(a)
    assert (b.width(), b.height(), b.channels()) == (4, 3, 2)
    assert np.asarray(b).shape == (2, 3, 4)
    np.testing.assert_array_equal(np.asarray(b), a)


# -- lesson 1: gradients -------------------------------------------------------------------------

def gradient(hl, kind):
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("gradient")
    if kind == "int":
        f[x, y] = x + y
    elif kind == "float":
        f[x, y] = hl.f32(x) / 7 + hl.f32(y) * 0.25
    else:  # an 8-bit gradient that wraps
        f[x, y] = hl.u8(x * 3 + y * 5)
    return f, [320, 240], None


@pytest.mark.parametrize("kind", ["int", "float", "u8"])
def test_gradient(kind):
    ours, theirs = both(gradient, kind)
    assert_same(ours, theirs)
    if kind == "int":
        assert ours[239, 319] == 239 + 319


# -- lesson 2: brighten a colour photograph ------------------------------------------------------

def brighten(hl, gain):
    image = hl.Buffer(ASTRONAUT)
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    value = image[x, y, c]
    value = hl.cast(hl.Float(32), value)
    value = value * gain
    value = hl.min(value, 255.0)
    value = hl.cast(hl.UInt(8), value)
    f = hl.Func("brighter")
    f[x, y, c] = value
    return f, [image.width(), image.height(), image.channels()], image


@pytest.mark.parametrize("gain", [1.5, 0.75, 3.0])
def test_brighten(gain):
    ours, theirs = both(brighten, gain)
    assert_same(ours, theirs)
    expect = np.minimum(ASTRONAUT.astype(np.float32) * np.float32(gain), 255).astype(np.uint8)
    np.testing.assert_array_equal(ours, expect)


def brighten_integer(hl):
    # The same in 16-bit integers with a clamp, as tutorials often do.
    image = hl.Buffer(ASTRONAUT)
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    f = hl.Func("brighter")
    f[x, y, c] = hl.u8(hl.clamp(hl.u16(image[x, y, c]) * 3 / 2, 0, 255))
    return f, [512, 512, 3], image


def test_brighten_integer():
    assert_same(*both(brighten_integer))


# -- a two-stage 3x3 blur with a boundary condition on a photograph -------------------------------

def blur3x3(hl, condition):
    image = hl.Buffer(CAMERA)
    x, y = hl.Var("x"), hl.Var("y")
    clamped = getattr(hl.BoundaryConditions, condition)(image)
    wide = hl.Func("wide")
    wide[x, y] = hl.cast(hl.UInt(16), clamped[x, y])
    blur_x = hl.Func("blur_x")
    blur_x[x, y] = (wide[x - 1, y] + wide[x, y] + wide[x + 1, y]) / 3
    blur_y = hl.Func("blur_y")
    blur_y[x, y] = (blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) / 3
    out = hl.Func("out")
    out[x, y] = hl.cast(hl.UInt(8), blur_y[x, y])
    blur_x.compute_root()
    return out, [image.width(), image.height()], image


@pytest.mark.parametrize("condition", ["repeat_edge", "mirror_interior"])
def test_blur_3x3_on_a_photograph(condition):
    ours, theirs = both(blur3x3, condition)
    assert_same(ours, theirs)
    mode = {"repeat_edge": "edge", "mirror_interior": "reflect"}[condition]
    p = np.pad(CAMERA, 1, mode=mode).astype(np.uint16)
    bx = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) // 3
    np.testing.assert_array_equal(ours, ((bx[:-2] + bx[1:-1] + bx[2:]) // 3).astype(np.uint8))


def blur_of_an_image_param(hl):
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    x, y = hl.Var("x"), hl.Var("y")
    c = hl.BoundaryConditions.constant_exterior(inp, 0)
    blur = hl.Func("blur")
    blur[x, y] = hl.u8((hl.u16(c[x - 2, y]) + c[x, y] * 2 + c[x + 2, y] + 2) / 4)
    buf = hl.Buffer(CAMERA)
    inp.set(buf)
    return blur, [512, 512], buf


def test_blur_of_an_image_param_with_constant_exterior():
    assert_same(*both(blur_of_an_image_param))


# -- histograms and scans ------------------------------------------------------------------------

def histogram(hl):
    image = hl.Buffer(CAMERA)
    r = hl.RDom([(0, image.width()), (0, image.height())])
    i = hl.Var("i")
    hist = hl.Func("hist")
    hist[i] = 0
    hist[hl.cast(hl.Int(32), image[r.x, r.y])] += 1
    return hist, [256], image


def test_histogram():
    ours, theirs = both(histogram)
    assert_same(ours, theirs)
    np.testing.assert_array_equal(ours, np.bincount(CAMERA.ravel(), minlength=256))


def histogram_equalize(hl):
    image = hl.Buffer(CAMERA)
    x, y, i = hl.Var("x"), hl.Var("y"), hl.Var("i")
    r = hl.RDom([(0, image.width()), (0, image.height())])
    hist = hl.Func("hist")
    hist[i] = 0
    hist[hl.cast(hl.Int(32), image[r.x, r.y])] += 1
    cdf = hl.Func("cdf")
    cdf[i] = hist[i]
    s = hl.RDom([(1, 255)])
    cdf[s.x] = cdf[s.x - 1] + cdf[s.x]  # Halide's bindings want the RVar, not the RDom
    equalized = hl.Func("equalized")
    total = image.width() * image.height()
    equalized[x, y] = hl.u8(cdf[hl.cast(hl.Int(32), image[x, y])] * 255 / total)
    hist.compute_root()
    cdf.compute_root()
    return equalized, [image.width(), image.height()], image


def test_histogram_equalization():
    ours, theirs = both(histogram_equalize)
    assert_same(ours, theirs)
    cdf = np.cumsum(np.bincount(CAMERA.ravel(), minlength=256))
    np.testing.assert_array_equal(ours, (cdf[CAMERA] * 255 // CAMERA.size).astype(np.uint8))


def cumulative_scan(hl):
    image = hl.Buffer(CAMERA)
    x, y = hl.Var("x"), hl.Var("y")
    rows = hl.Func("rows")
    rows[x, y] = hl.u32(image[x, y])
    r = hl.RDom([(1, image.width() - 1)])
    rows[r, y] = rows[r, y] + rows[r - 1, y]
    table = hl.Func("table")  # a summed-area table: scan the row sums down the columns
    table[x, y] = rows[x, y]
    ry = hl.RDom([(1, image.height() - 1)])
    table[x, ry] += table[x, ry - 1]
    rows.compute_root()
    return table, [image.width(), image.height()], image


def test_cumulative_scan_summed_area_table():
    ours, theirs = both(cumulative_scan)
    assert_same(ours, theirs)
    np.testing.assert_array_equal(ours, CAMERA.astype(np.uint32).cumsum(1).cumsum(0))


def reductions(hl):
    image = hl.Buffer(CAMERA)
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom([(0, 4), (0, 4)])
    total = hl.Func("total")
    total[x, y] = hl.sum(hl.u32(image[4 * x + r.x, 4 * y + r.y]))
    brightest = hl.Func("brightest")
    brightest[x, y] = hl.maximum(image[4 * x + r.x, 4 * y + r.y])
    darkest = hl.Func("darkest")
    darkest[x, y] = hl.minimum(image[4 * x + r.x, 4 * y + r.y])
    prod = hl.Func("prod")
    prod[x, y] = hl.product(hl.u16(image[4 * x + r.x, 4 * y + r.y]) / 64 + 1)
    return hl.Pipeline([total, brightest, darkest, prod]), [128, 128], image


def test_inline_reductions_downsample():
    ours, theirs = both(reductions)
    assert_same(ours, theirs)
    blocks = CAMERA.reshape(128, 4, 128, 4).swapaxes(1, 2).reshape(128, 128, 16)
    np.testing.assert_array_equal(ours[0], blocks.astype(np.uint32).sum(-1))
    np.testing.assert_array_equal(ours[1], blocks.max(-1))


def rdom_where(hl):
    image = hl.Buffer(CAMERA)
    r = hl.RDom([(0, 512), (0, 512)])
    r.where(image[r.x, r.y] > 128)
    r.where((r.x + r.y) % 3 == 0)
    count = hl.Func("count")
    count[()] = 0
    count[()] += hl.i32(image[r.x, r.y])
    return count, [], image


def test_rdom_where():
    assert_same(*both(rdom_where))


# -- a lesson-style mix of lerp, absd and saturating casts ---------------------------------------

def lerp_absd_mix(hl):
    a = hl.Buffer(CAMERA)
    b = hl.Buffer(np.ascontiguousarray(CAMERA[::-1, ::-1]))
    x, y = hl.Var("x"), hl.Var("y")
    weight = hl.cast(hl.UInt(8), (x + y) % 256)
    blend = hl.Func("blend")
    blend[x, y] = hl.lerp(a[x, y], b[x, y], weight)
    fade = hl.Func("fade")
    fade[x, y] = hl.lerp(a[x, y], b[x, y], hl.f32(x) / 511)
    diff = hl.Func("diff")
    diff[x, y] = hl.absd(a[x, y], b[x, y])
    contrast = hl.Func("contrast")
    centred = hl.cast(hl.Int(16), a[x, y]) - 128
    contrast[x, y] = hl.saturating_cast(hl.UInt(8), centred * 3 + 128)
    signed = hl.Func("signed")
    # * 1.5 is exact, so Halide's fused multiply-add rounds the same as two operations.
    signed[x, y] = hl.saturating_cast(hl.Int(8), hl.f32(a[x, y]) * 1.5 - 200)
    mixed = hl.Func("mixed")
    wide = hl.lerp(hl.u16(a[x, y]) * 200, hl.u16(b[x, y]) * 250, hl.u16(x * 128))
    mixed[x, y] = hl.saturating_cast(hl.UInt(8), wide / 100 + hl.absd(hl.i16(a[x, y]), 77))
    keep = (a, b)
    return hl.Pipeline([blend, fade, diff, contrast, signed, mixed]), [512, 512], keep


def test_lerp_absd_saturating_cast_mix():
    assert_same(*both(lerp_absd_mix))


def float_pipeline(hl):
    image = hl.Buffer(CAMERA)
    x, y = hl.Var("x"), hl.Var("y")
    v = hl.f32(image[x, y]) / 255
    f = hl.Func("tone")
    f[x, y] = hl.pow(v, 2.25) * 0.5 + hl.sqrt(v) * 0.25 + hl.sin(v * 3) * 0.125
    g = hl.Func("rounded")
    g[x, y] = hl.u8(hl.round(hl.clamp(f[x, y], 0.0, 1.0) * 255) / 2)
    return hl.Pipeline([f, g]), [512, 512], image


def test_float_pipeline_within_tolerance():
    ours, theirs = both(float_pipeline)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    # Rounded to 8 bits, a last-bit difference may move a value across a half at most by one.
    assert np.abs(ours[1].astype(int) - theirs[1].astype(int)).max() <= 1
    assert (ours[1] == theirs[1]).mean() > 0.999


# -- types agree (no compiling needed) -----------------------------------------------------------

TYPE_NAMES = ["UInt(8)", "Int(8)", "UInt(16)", "Int(16)", "UInt(32)", "Int(32)", "Float(32)",
              "Float(64)"]
TYPE_OPS = {
    "add": lambda hl, a, b: a + b, "div": lambda hl, a, b: a / b,
    "lt": lambda hl, a, b: a < b, "min": lambda hl, a, b: hl.min(a, b),
    "select": lambda hl, a, b: hl.select(a == a, a, b), "absd": lambda hl, a, b: hl.absd(a, b),
    "abs": lambda hl, a, b: hl.abs(a), "int_const": lambda hl, a, b: a + 7,
    "float_const": lambda hl, a, b: a * 0.5, "max_int": lambda hl, a, b: hl.max(a, 3),
    "lerp_u8": lambda hl, a, b: hl.lerp(a, a, hl.u8(b)) if not str(a.type()).startswith(
        "float") else hl.lerp(a, a, hl.f32(0.5)),
    "pow2": lambda hl, a, b: hl.pow(a, 2), "sqrt": lambda hl, a, b: hl.sqrt(a),
    "big_const": lambda hl, a, b: a + 2**33, "rsub": lambda hl, a, b: 5 - a,
}


def _type_of(hl, op, ta, tb):
    x = hl.Var("x")
    a = hl.cast(eval("hl." + ta), x)
    b = hl.cast(eval("hl." + tb), x)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return str(TYPE_OPS[op](hl, a, b).type())
    except Exception:  # noqa: BLE001 - both must fail; the message differs
        return "error"


@pytest.mark.parametrize("op", list(TYPE_OPS))
def test_result_types_match_halide(op):
    mismatches = []
    for ta in TYPE_NAMES:
        for tb in TYPE_NAMES:
            ours, theirs = _type_of(webhal, op, ta, tb), _type_of(halide, op, ta, tb)
            # webhal accepts some mixes Halide rejects (it promotes); never the other way.
            if ours != theirs and theirs != "error":
                mismatches.append((ta, tb, ours, theirs))
    assert not mismatches


# -- operator tables: every operator over many operand pairs, bit-exact ----------------------------

def _operands_for(dtype) -> tuple[np.ndarray, np.ndarray]:
    """Every 8-bit pair; for wider types, random values against divisors near zero and limits."""
    info = np.iinfo(dtype)
    if info.bits == 8:
        every = np.arange(info.min, info.max + 1).astype(dtype)
        return every, every
    rng = np.random.default_rng(info.bits)
    a = rng.integers(info.min, info.max, 512, endpoint=True).astype(dtype)
    near = [0, 1, 2, 3, 7, info.max, info.max - 1]
    if info.min:
        near += [-1, -2, -3, -7, info.min]
    b = np.concatenate([np.array(near), rng.integers(info.min, info.max, 40)]).astype(dtype)
    return a, b


TABLE_OPS = {
    "div": lambda hl, a, b: a / b, "mod": lambda hl, a, b: a % b,
    "floordiv": lambda hl, a, b: a // b,
    "add": lambda hl, a, b: a + b, "sub": lambda hl, a, b: a - b, "mul": lambda hl, a, b: a * b,
    "min_max": lambda hl, a, b: hl.max(hl.min(a, b), a - b),
    "bits": lambda hl, a, b: (a & b) ^ (~a | b),
    "shifts": lambda hl, a, b: (a >> (b & (a.type().bits() - 1))) + (a << (b & 3)),
    "compare": lambda hl, a, b: hl.select(a < b, 1, a == b, 2, a >= b + 0, 3, 4),
    "absd": lambda hl, a, b: hl.absd(a, b), "abs": lambda hl, a, b: hl.abs(a) + hl.abs(b),
    "neg": lambda hl, a, b: -a,
    "avg_u8": lambda hl, a, b: hl.u8((hl.u16(hl.u8(a)) + hl.u8(b) + 1) / 2),
    "sat_u8": lambda hl, a, b: hl.saturating_cast(hl.UInt(8), a),
    "sat_i8": lambda hl, a, b: hl.saturating_cast(hl.Int(8), b),
    "sat_i16": lambda hl, a, b: hl.saturating_cast(hl.Int(16), a),
    "sat_u32": lambda hl, a, b: hl.saturating_cast(hl.UInt(32), b),
    "cast_u8": lambda hl, a, b: hl.u8(a) + hl.i8(b), "cast_f32": lambda hl, a, b: hl.f32(a),
    "lerp_u8w": lambda hl, a, b: hl.lerp(a, b, hl.u8(a ^ b)),
    "lerp_u16w": lambda hl, a, b: hl.lerp(a, b, hl.u16(a * 3 + b)),
    "lerp_f32w": lambda hl, a, b: hl.lerp(a, b, hl.f32(hl.u8(a + b)) / 256),
    "mux": lambda hl, a, b: hl.mux(a, [b, a, a + b]),
    "pow2": lambda hl, a, b: hl.pow(a, 2) + (b ** 3),
    "bitcount": lambda hl, a, b: hl.popcount(a) + hl.count_leading_zeros(b) +
    hl.count_trailing_zeros(a),
}
# Signed overflow of 32 bits or more is undefined in Halide: those ops are not compared there.
OVERFLOWS_INT32 = {"add", "sub", "mul", "min_max", "shifts", "neg", "pow2", "lerp_u16w"}
TABLE_CASES = [pytest.param(op, dtype, id=f"{op}-{np.dtype(dtype).name}") for op in TABLE_OPS
               for dtype in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32)
               if not (dtype == np.int32 and op in OVERFLOWS_INT32)]


@pytest.mark.parametrize("op, dtype", TABLE_CASES)
def test_operator_tables_match_halide(op, dtype):
    a, b = _operands_for(dtype)

    def build(hl):
        ba, bb = hl.Buffer(a), hl.Buffer(b)
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("table")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Halide warns about abs of unsigned values
            f[x, y] = TABLE_OPS[op](hl, ba[x], bb[y])
        return f, [a.size, b.size], (ba, bb)
    ours, theirs = both(build)
    assert_same(ours, theirs)


FLOAT_TABLE = {
    "sqrt": (lambda hl, a: hl.sqrt(hl.abs(a)), 1e-6), "exp": (lambda hl, a: hl.exp(a / 8), 2e-6),
    "log": (lambda hl, a: hl.log(hl.abs(a) + 2.0**-10), 2e-6),
    "sin_cos": (lambda hl, a: hl.sin(a) + hl.cos(a) * 2, 1e-5),
    "tan": (lambda hl, a: hl.tan(hl.clamp(a, -1.375, 1.375)), 1e-5),
    "atan_atan2": (lambda hl, a: hl.atan(a) + hl.atan2(a, hl.abs(a) + 1), 2e-6),
    "hyperbolic": (lambda hl, a: hl.tanh(a / 4) + hl.sinh(a / 16), 1e-5),
    "pow": (lambda hl, a: hl.pow(hl.abs(a) + 0.125, hl.clamp(a, -3, 3)), 2e-5),
    "rounding": (lambda hl, a: hl.floor(a) + hl.ceil(a) * 3 + hl.round(a) * 5 + hl.trunc(a) * 7,
                 0),
    # A power-of-two divisor: Halide multiplies by the reciprocal, exact only for those.
    "fract_mod": (lambda hl, a: hl.fract(a) + a % 2 + a % -0.5, 1e-5),
    "to_int": (lambda hl, a: hl.i32(a * 1000) + hl.i16(a) + hl.u8(hl.abs(a)), 0),
    "saturate": (lambda hl, a: hl.saturating_cast(hl.UInt(8), a * 10) +
                 hl.saturating_cast(hl.Int(16), a * 5000), 0),
    "min_max_select": (lambda hl, a: hl.select(a > 0, hl.min(a, 3.5), hl.max(a, -2.25)), 0),
    "float_lerp": (lambda hl, a: hl.lerp(a, a * a, hl.clamp(a / 32 + 0.5, 0.0, 1.0)), 1e-6),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", list(FLOAT_TABLE))
def test_float_operator_tables_match_halide(op, dtype):
    fn, rtol = FLOAT_TABLE[op]
    a = np.concatenate([np.arange(-40, 40, 0.25), np.random.default_rng(2).normal(0, 12, 2000)])
    a = a.astype(dtype)

    def build(hl):
        ba = hl.Buffer(a)
        x = hl.Var("x")
        f = hl.Func("table")
        f[x] = fn(hl, ba[x])
        return f, [a.size], ba
    ours, theirs = both(build)
    assert ours.dtype == theirs.dtype
    if rtol == 0:
        np.testing.assert_array_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)


# -- random expressions --------------------------------------------------------------------------

INT_TYPES = ["UInt(8)", "Int(8)", "UInt(16)", "Int(16)", "UInt(32)", "Int(32)"]
LANES = 24


def _leaf():
    return st.one_of(st.sampled_from([("in", 0), ("in", 1), ("in", 2)]),
                     st.integers(-9, 9).map(lambda c: ("const", c)))


def _int_program():
    binary = st.sampled_from(["add", "sub", "mul", "div", "mod", "min", "max", "and", "or",
                              "xor", "shr", "shl", "absd", "lerp", "satmul", "avg"])
    unary = st.sampled_from(["neg", "abs", "not", "clamp", "to_u8", "to_i16", "to_u32",
                             "to_i8", "to_f32"])

    def extend(children):
        return st.one_of(
            st.tuples(binary, children, children),
            st.tuples(unary, children),
            st.tuples(st.just("select"), st.sampled_from(["<", "<=", "==", "!=", ">"]),
                      children, children, children, children),
            st.tuples(st.just("mux"), children, children, children, children))
    return st.recursive(_leaf(), extend, max_leaves=8)


def _build_int(hl, t, prog, inputs, x, small):
    """The Expr for `prog` in type t. `small`: int32, where Halide's overflow is undefined, so
    products and left shifts are left out (the inputs are kept small too)."""
    kind = prog[0]
    bits = t.bits()  # a method in Halide's bindings; webhal's Type allows both spellings
    if kind == "in":
        return inputs[prog[1]][x]
    if kind == "const":
        return hl.cast(t, prog[1])

    def sub(p):
        e = _build_int(hl, t, p, inputs, x, small)
        return e if e.type() == t else hl.cast(t, e)

    def right_const(p, q, op):
        # A constant on the right stays a Python int when it fits t: the coercion is tested too.
        a = sub(p)
        if q[0] == "const" and (q[1] >= 0 or t.is_int()):
            return op(a, q[1])
        return op(a, sub(q))

    if kind in ("add", "sub", "min", "max", "div", "mod", "and", "or", "xor"):
        ops = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "div": lambda a, b: a / b,
               "mod": lambda a, b: a % b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
               "xor": lambda a, b: a ^ b, "min": hl.min, "max": hl.max}
        return right_const(prog[1], prog[2], ops[kind])
    if kind == "mul":
        if small:  # a small constant factor keeps int32 far from overflow
            return sub(prog[1]) * (prog[2][1] if prog[2][0] == "const" else -3)
        return sub(prog[1]) * sub(prog[2])
    if kind in ("shr", "shl"):
        amount = sub(prog[2]) & (bits - 1)
        if kind == "shl":
            return sub(prog[1]) >> amount if small else sub(prog[1]) << amount
        return sub(prog[1]) >> amount
    if kind == "absd":
        return hl.absd(sub(prog[1]), sub(prog[2]))
    if kind == "lerp":
        w = hl.cast(hl.UInt(bits), sub(prog[2]))
        return hl.lerp(sub(prog[1]), sub(prog[1]) ^ sub(prog[2]), w)
    if kind == "satmul":  # int64 products of unsigned 32-bit values could overflow (undefined)
        wide = hl.Int(64) if t.is_int() else hl.UInt(64)
        return hl.saturating_cast(t, hl.cast(wide, sub(prog[1])) * hl.cast(wide, sub(prog[2])))
    if kind == "avg":
        wide = hl.Int(64)
        return hl.cast(t, (hl.cast(wide, sub(prog[1])) + sub(prog[2]) + 1) / 2)
    if kind == "neg":
        return -sub(prog[1])
    if kind == "abs":
        return hl.abs(sub(prog[1]))
    if kind == "not":
        return ~sub(prog[1])
    if kind == "clamp":
        return hl.clamp(sub(prog[1]), 1, 100)
    if kind.startswith("to_"):
        target = {"to_u8": hl.UInt(8), "to_i16": hl.Int(16), "to_u32": hl.UInt(32),
                  "to_i8": hl.Int(8), "to_f32": hl.Float(32)}[kind]
        inner = hl.cast(target, sub(prog[1]))
        return hl.saturating_cast(t, inner) if target.is_float() else inner
    if kind == "select":
        cmp = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
               "!=": lambda a, b: a != b, ">": lambda a, b: a > b}[prog[1]]
        return hl.select(cmp(sub(prog[2]), sub(prog[3])), sub(prog[4]), sub(prog[5]))
    if kind == "mux":
        return hl.mux(sub(prog[1]) % 5, [sub(prog[2]), sub(prog[3]), sub(prog[4])])
    raise AssertionError(kind)


def _int_inputs(t_name: str, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    dtype = eval("webhal." + t_name).dtype
    if t_name == "Int(32)":  # Halide leaves int32 overflow undefined: stay far from it
        arrays = [rng.integers(-1000, 1000, LANES) for _ in range(3)]
    else:
        info = np.iinfo(dtype)
        arrays = [rng.integers(info.min, info.max, LANES, endpoint=True) for _ in range(3)]
    specials = [0, 1, -1, 2, -2, 3, -7, 7] if dtype.kind == "i" else [0, 1, 2, 3, 7, 255]
    for a in arrays:  # zeros, negatives and small divisors in every input
        picks = rng.choice(specials, 6)
        a[rng.choice(LANES, 6, replace=False)] = picks
    return [np.array(a).astype(dtype) for a in arrays]


def _run_program(hl, build, t_name, prog, arrays):
    t = eval("hl." + t_name)
    inputs = [hl.Buffer(a) for a in arrays]
    x = hl.Var("x")
    f = hl.Func("f")
    e = build(hl, t, prog, inputs, x, t_name == "Int(32)")
    f[x] = e if e.type() == t else hl.cast(t, e)
    return run(hl, f, [LANES]), inputs


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(t_name=st.sampled_from(INT_TYPES), prog=_int_program(), seed=st.integers(0, 2**16))
def test_random_integer_expressions_match_halide(t_name, prog, seed):
    arrays = _int_inputs(t_name, seed)
    ours, _ = _run_program(webhal, _build_int, t_name, prog, arrays)
    theirs, _ = _run_program(halide, _build_int, t_name, prog, arrays)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs, err_msg=f"{t_name} {prog}")


def _float_program():
    exact = st.sampled_from(["add", "sub", "mul", "div", "min", "max", "mod", "lerp", "select"])
    unary = st.sampled_from(["neg", "abs", "floor", "ceil", "round", "trunc", "fract", "clamp",
                             "half"])

    def extend(children):
        return st.one_of(st.tuples(exact, children, children), st.tuples(unary, children))
    return st.tuples(st.sampled_from(["none", "sqrt", "exp", "log", "sin", "cos", "atan",
                                      "tanh", "pow", "atan2"]),
                     st.recursive(_leaf(), extend, max_leaves=6))


def _build_float_exact(hl, t, prog, inputs, x):
    """Operations that IEEE arithmetic rounds the same way everywhere."""
    kind = prog[0]
    if kind == "in":
        return inputs[prog[1]][x]
    if kind == "const":
        return hl.cast(t, prog[1] * 0.75)

    def sub(p):
        return _build_float_exact(hl, t, p, inputs, x)
    if kind in ("add", "sub", "mul", "min", "max"):
        ops = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
               "mul": lambda a, b: a * b, "min": hl.min, "max": hl.max}
        return ops[kind](sub(prog[1]), sub(prog[2]))
    if kind == "div":
        return sub(prog[1]) / (hl.abs(sub(prog[2])) + 1)
    if kind == "mod":  # away from the discontinuity's neighbourhood of a zero divisor
        return sub(prog[1]) % (hl.abs(sub(prog[2])) + 1)
    if kind == "lerp":
        return hl.lerp(sub(prog[1]), sub(prog[2]), hl.clamp(inputs[2][x], 0, 1))
    if kind == "select":
        return hl.select(inputs[0][x] < inputs[1][x], sub(prog[1]), sub(prog[2]))
    if kind == "neg":
        return -sub(prog[1])
    if kind == "abs":
        return hl.abs(sub(prog[1]))
    if kind == "clamp":
        return hl.clamp(sub(prog[1]), -3.5, 20)
    if kind == "half":
        return sub(prog[1]) * 0.5
    # Rounding jumps at integers, so it rounds only leaves, which are exact in both libraries;
    # a computed operand is kept and an input rounded beside it.
    rounding = {"floor": hl.floor, "ceil": hl.ceil, "round": hl.round, "trunc": hl.trunc,
                "fract": hl.fract}[kind]
    if prog[1][0] in ("in", "const"):
        return rounding(sub(prog[1]))
    return sub(prog[1]) + rounding(inputs[0][x])


def _build_float(hl, t, prog, inputs, x, small):
    outer, inner = prog
    e = _build_float_exact(hl, t, inner, inputs, x)
    e = hl.clamp(e, -1e6, 1e6)
    match outer:
        case "none":
            return e
        case "sqrt":
            return hl.sqrt(hl.abs(e))
        case "exp":
            return hl.exp(hl.clamp(e, -20, 20))
        case "log":
            return hl.log(hl.abs(e) + 1)
        case "sin" | "cos":
            return getattr(hl, outer)(hl.clamp(e, -50, 50))
        case "atan" | "tanh":
            return getattr(hl, outer)(e)
        case "pow":
            return hl.pow(hl.abs(e) + 0.5, hl.clamp(inputs[1][x], -3, 3))
        case "atan2":  # x > 0: away from the branch cut, where zero's sign picks +-pi
            return hl.atan2(e, hl.abs(inputs[1][x]) + 0.5)


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(t_name=st.sampled_from(["Float(32)", "Float(64)"]), prog=_float_program(),
       seed=st.integers(0, 2**16))
def test_random_float_expressions_match_halide(t_name, prog, seed):
    rng = np.random.default_rng(seed)
    dtype = np.float32 if t_name == "Float(32)" else np.float64
    arrays = [rng.normal(0, 8, LANES).astype(dtype) for _ in range(3)]
    arrays[0][:6] = [0.5, 1.5, 2.5, -0.5, -2.5, 0.0]  # halves: round goes to even
    ours, _ = _run_program(webhal, _build_float, t_name, prog, arrays)
    theirs, _ = _run_program(halide, _build_float, t_name, prog, arrays)
    assert ours.dtype == theirs.dtype
    tol = 2e-5 if dtype == np.float32 else 1e-9
    scale = np.maximum(np.abs(theirs), 1.0)
    assert np.all(np.abs(ours - theirs) <= tol * scale), f"{t_name} {prog}"
