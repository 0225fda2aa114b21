"""GPU schedules for the kinds of pipelines tests/correctness runs on the CPU: pointwise in every
type WebGPU supports, division by negative and zero divisors, casts, the math and select
functions, each boundary condition in a stencil, each tail strategy of gpu_tile, 1-D/2-D/3-D
grids and blocks without threads, Funcs in workgroup memory and in each invocation's own memory,
reductions and update stages on the GPU, mixed CPU/GPU chains, packed and atomic 8/16-bit stores
with unaligned tails, scalar Params of every type, outputs and inputs that do not start at 0,
and random pipelines under random GPU schedules.

Each pipeline runs on host-webgpu and wasm-32-wasmrt-webgpu (wgpu-py, lavapipe here) and is
compared with the reference evaluator: integers exactly, floats within 1e-5 relative and 1e-6
absolute, except where WGSL leaves precision to the driver (stated at each test: the
transcendental functions within WGSL's accuracy bounds, float16 within 1e-3). Each test also
checks how many GPU kernels the pipeline compiled to, so that a schedule that quietly stayed on
the CPU fails.
"""
from __future__ import annotations

import os

import hypothesis.strategies as hst
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import webhal as hl
from tests.random_expressions import expressions as random_expressions
from webhal.ir.schedule import DeviceAPI
from webhal.jit import compile_jit

# WebGPU through wgpu-py (host code JIT-compiled and in wasmtime), and Vulkan through webhal's
# runtime: SPIR-V 1.0 with narrow types packed in words, and SPIR-V 1.6 with them stored as
# they are (vk_int8, vk_int16).
TARGETS = ["host-webgpu", "wasm-32-wasmrt-webgpu", "host-vulkan-vk_float16",
           "host-vulkan-vk_int8-vk_int16-vk_float16-vk_v13"]
W, H = 37, 23  # odd: tiles and vectors have tails

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
xo, yo, co, xi, yi, ci = (hl.Var(n) for n in ("xo", "yo", "co", "xi", "yi", "ci"))
xv = hl.Var("xv")

INT_TYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16,
             "u32": np.uint32, "i32": np.int32}
ALL_TYPES = {**INT_TYPES, "f32": np.float32}


# `make fast` runs host-webgpu alone; the other targets are slow (make test and CI run them).
@pytest.fixture(params=[TARGETS[0], *(pytest.param(t, marks=pytest.mark.slow)
                                      for t in TARGETS[1:])])
def target(request, wgpu_adapter) -> str:
    if "vulkan" in request.param:
        request.getfixturevalue("vulkan_device")
    if request.param.startswith("wasm"):
        request.getfixturevalue("llvm_wasm")
        request.getfixturevalue("wasm_ld")
        request.getfixturevalue("wasmtime_engine")
    return request.param


def has_float16(target: str, wgpu_adapter) -> bool:
    """Whether target runs float16 here: Vulkan targets ask for it with vk_float16 (lavapipe
    has it), WebGPU ones need the adapter's shader-f16."""
    if "vulkan" in target:
        return "vk_float16" in target
    return "shader-f16" in wgpu_adapter.features


def hl_type(dtype) -> hl.Type:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return hl.Float(dt.itemsize * 8)
    return (hl.Int if dt.kind == "i" else hl.UInt)(dt.itemsize * 8)


def ramp_image(dtype, width: int = W, height: int = H, seed: int = 0) -> np.ndarray:
    """Pseudo-random data over dtype's whole range, extremes included (numpy order: rows)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        data = rng.integers(info.min, info.max, (height, width), dtype=dt, endpoint=True)
        data.reshape(-1)[:6] = [info.min, info.max, 0, 1, info.max - 1,
                                info.min + 1 if info.min else 2]
        return data
    return (rng.standard_normal((height, width)) * 100).astype(dt)


def _realize(pipeline: hl.Pipeline, sizes, target: str, mins) -> list[np.ndarray]:
    if mins is None:
        result = pipeline.realize(list(sizes), target)
    else:
        buffers = []
        for f in pipeline.outputs():
            b = hl.Buffer(f.type(), list(sizes))
            b.set_min(list(mins))
            buffers.append(b)
        result = pipeline.realize(buffers, target)
    result = result if isinstance(result, list) else [result]
    return [np.asarray(b).copy() for b in result]


def _assert_same(got, want, rtol, atol, what):
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{got.shape}, expected {want.dtype}{want.shape}"
    if want.dtype.kind == "f":
        g, w = got.astype(np.float64), want.astype(np.float64)
        bad = ~(np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True) |
                ((g == w) & ~np.isnan(w)))
    else:
        bad = got != want
    if bad.any():
        where = np.argwhere(bad)
        lines = [f"  at {tuple(int(i) for i in p)}: got {got[tuple(p)]!r}, "
                 f"expected {want[tuple(p)]!r}" for p in where[:8]]
        raise AssertionError(f"{what}: {len(where)} of {want.size} values differ "
                             f"(rtol={rtol}, atol={atol}):\n" + "\n".join(lines))


def check(f, sizes, target: str, *, kernels: int, rtol: float = 1e-5, atol: float = 1e-6,
          mins=None, tolerances=None) -> list[np.ndarray]:
    """Realize f (a Func or Pipeline) on the reference and on target, compare every output
    (floats within rtol/atol, or `tolerances[name]` = (rtol, atol) for that output), and check
    that target ran `kernels` GPU kernels."""
    pipeline = f if isinstance(f, hl.Pipeline) else hl.Pipeline(f)
    want = _realize(pipeline, sizes, "reference", mins)
    got = _realize(pipeline, sizes, target, mins)
    for out, g, w in zip(pipeline.outputs(), got, want):
        r, a = (tolerances or {}).get(out.name(), (rtol, atol))
        _assert_same(g, w, r, a, f"output {out.name()} on {target}")
    _, lowered = compile_jit(pipeline, hl.Target(target))
    api = DeviceAPI.Vulkan if "vulkan" in target else DeviceAPI.WebGPU
    # A kernel's variant with whole-vector accesses (passes/vector_buffers.py) is that kernel.
    found = [k for k in lowered.kernels.get(api, ()) if not k.name.endswith("_vec")]
    assert len(found) == kernels, f"{len(found)} {api.name} kernels, expected {kernels}"
    return got


def gpu_2d(f, tx=8, ty=8, tail=hl.TailStrategy.Auto):
    return f.gpu_tile(x, y, xo, yo, xi, yi, tx, ty, tail)


# -- pointwise in every type ---------------------------------------------------------------------

@pytest.mark.parametrize("name", list(INT_TYPES))
def test_integer_wrapping_arithmetic(target, name, wgpu_adapter):
    """+, -, *, negation, bit operations and shifts wrap at the type's width."""
    dt = INT_TYPES[name]
    t = hl_type(dt)
    a, b = hl.Buffer(ramp_image(dt, seed=1), "a"), hl.Buffer(ramp_image(dt, seed=2), "b")
    va, vb = a[x, y], b[x, y]
    k = hl.cast(t, x * 37 - y * 11)
    f = hl.Func(f"wrap_{name}")
    f[x, y] = va * vb + va * hl.cast(t, 3) - vb * k + (-va) + hl.cast(t, 200) * k
    g = hl.Func(f"bits_{name}")
    g[x, y] = ((va & vb) | (va ^ k)) + ~vb + (va << hl.cast(t, 3)) + (vb >> hl.cast(t, 2)) + \
        (k << hl.cast(t, y % 5)) - (va >> hl.cast(t, x % 7))
    m = hl.Func(f"minmax_{name}")
    m[x, y] = hl.max(va, vb) - hl.min(va, k) + hl.select(va < vb, va, k) + \
        hl.select(va == k, hl.cast(t, 1), hl.cast(t, 2))
    for func in (f, g, m):
        gpu_2d(func)
    check(hl.Pipeline([f, g, m]), [W, H], target, kernels=3)


def test_float_arithmetic(target, wgpu_adapter):
    a = hl.Buffer(ramp_image(np.float32, seed=3), "a")
    b = hl.Buffer(ramp_image(np.float32, seed=4), "b")
    va, vb = a[x, y], b[x, y]
    f = hl.Func("farith")
    f[x, y] = va * vb - va / (hl.abs(vb) + 1.0) + (-va) * 0.25 + hl.f32(x) * 1.5 - hl.f32(y) + \
        hl.max(va, vb) - hl.min(va, 3.0)
    g = hl.Func("fcompare")
    g[x, y] = hl.select((va > vb) & (va != 0.0), va, vb * 2.0) + \
        hl.select((va <= -50.0) | (vb >= 50.0), 1.0, -1.0)
    gpu_2d(f, 16, 4)
    gpu_2d(g, 4, 16)
    check(hl.Pipeline([f, g]), [W, H], target, kernels=2)


@pytest.mark.parametrize("name", list(ALL_TYPES))
def test_pointwise_each_type_vectorized_in_the_kernel(target, name, wgpu_adapter):
    """A vectorized loop inside each invocation, the lanes printed one by one."""
    dt = ALL_TYPES[name]
    t = hl_type(dt)
    a = hl.Buffer(ramp_image(dt, seed=5), "a")
    f = hl.Func(f"vec_{name}")
    f[x, y] = a[x, y] * hl.cast(t, 3) + hl.cast(t, x) - hl.cast(t, y * 2)
    f.split(x, x, xv, 4).vectorize(xv)
    gpu_2d(f, 4, 4)
    check(f, [W - 1, H], target, kernels=1)


@pytest.mark.parametrize("name", list(INT_TYPES))
def test_bit_counts_and_reinterpret(target, name, wgpu_adapter):
    """popcount, count_leading_zeros and count_trailing_zeros in the type's own width (zero
    counts all its bits), and reinterpret between the signed and unsigned type."""
    dt = INT_TYPES[name]
    A = hl.Buffer(ramp_image(dt, seed=63), "a")
    other = hl_type(np.dtype(("u" if name[0] == "i" else "") + np.dtype(dt).name.lstrip("u")))
    funcs = []
    for fn in ("popcount", "count_leading_zeros", "count_trailing_zeros"):
        f = hl.Func(f"{fn}_{name}")
        f[x, y] = getattr(hl, fn)(A[x, y] >> hl.cast(hl_type(dt), y % 3))
        funcs.append(f)
    r = hl.Func(f"reinterpret_{name}")
    r[x, y] = hl.reinterpret(other, A[x, y]) + hl.cast(other, x)
    funcs.append(r)
    for f in funcs:
        gpu_2d(f, 8, 4)
    check(hl.Pipeline(funcs), [W, H], target, kernels=len(funcs))


def test_constants_shifted_past_their_top_bit(target, wgpu_adapter):
    """Shifts of constants that wrap (WGSL rejects such constant expressions unless webhal
    masks them first), constant narrow values sign-extended, in every integer type."""
    funcs = []
    for name, dt in INT_TYPES.items():
        t = hl_type(dt)
        big = 255 if t.is_uint() else -100
        f = hl.Func(f"const_shifts_{name}")
        f[x, y] = hl.cast(t, x) + (hl.cast(t, big) << hl.cast(t, t.bits - 1)) + \
            (hl.cast(t, big) >> hl.cast(t, 3)) + (hl.cast(t, 16) << hl.cast(t, min(t.bits, 30) - 2))
        gpu_2d(f, 8, 4)
        v = hl.Func(f"vector_shifts_{name}")  # lanes of constant amounts, one by one
        v[x, y] = (hl.cast(t, x * 37) << hl.cast(t, 1)) - (hl.cast(t, y * 1001) >> hl.cast(t, 2))
        v.split(x, x, xv, 4).vectorize(xv)
        gpu_2d(v, 4, 4)
        funcs += [f, v]
    check(hl.Pipeline(funcs), [W, H], target, kernels=len(funcs))


# -- division and modulo ---------------------------------------------------------------------

@pytest.mark.parametrize("name", list(INT_TYPES))
def test_division_modulo_by_data(target, name, wgpu_adapter):
    """Euclidean division for signed types, zero for zero divisors, INT_MIN / -1 wrapping."""
    dt = INT_TYPES[name]
    a, b = ramp_image(dt, seed=6), ramp_image(dt, seed=7)
    flat = b.reshape(-1)
    flat[6:60:3] = 0
    if np.dtype(dt).kind == "i":
        flat[7:60:5] = -1
        flat[0] = -1
        flat[1:6] = [-3, 7, -7, 2, np.iinfo(dt).min]
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    q, r = hl.Func(f"quot_{name}"), hl.Func(f"rem_{name}")
    q[x, y] = A[x, y] / B[x, y]
    r[x, y] = A[x, y] % B[x, y]
    gpu_2d(q)
    gpu_2d(r, 16, 2)
    check(hl.Pipeline([q, r]), [W, H], target, kernels=2)


@pytest.mark.parametrize("name", ["i8", "u16", "i32"])
def test_division_modulo_by_constants(target, name, wgpu_adapter):
    dt = INT_TYPES[name]
    t = hl_type(dt)
    A = hl.Buffer(ramp_image(dt, seed=8), "a")
    divisors = (1, 2, 3, 7, 8, 100, 0) + ((-1, -2, -3, -8, -100) if t.is_int() else ())
    funcs = []
    for d in divisors:
        k = hl.cast(t, d)
        f = hl.Func(f"by_{d}".replace("-", "minus_"))
        f[x, y] = A[x, y] / k + A[x, y] % k
        gpu_2d(f)
        funcs.append(f)
    check(hl.Pipeline(funcs), [W, H], target, kernels=len(funcs))


def test_division_of_negative_coordinates(target, wgpu_adapter):
    f = hl.Func("coords")
    f[x, y] = (x / 4) * 1000 + x % 4 + (y / -3) * 100000 + (y % -3) * 10 + x / (y - 2) + \
        x % (y + 1)
    gpu_2d(f)
    check(f, [W, H], target, kernels=1, mins=[-20, -11])


def test_float_division_and_modulo(target, wgpu_adapter):
    a, b = ramp_image(np.float32, seed=9), ramp_image(np.float32, seed=10)
    b.reshape(-1)[:3] = [4.0, -0.5, 3.0]
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    q, r = hl.Func("fquot"), hl.Func("frem")
    q[x, y] = A[x, y] / B[x, y]
    r[x, y] = A[x, y] % B[x, y]
    gpu_2d(q)
    gpu_2d(r)
    check(hl.Pipeline([q, r]), [W, H], target, kernels=2, rtol=1e-5, atol=1e-4)


# -- casts -----------------------------------------------------------------------------------

@pytest.mark.parametrize("src", list(ALL_TYPES))
def test_casts_between_every_type(target, src, wgpu_adapter):
    dt = ALL_TYPES[src]
    data = ramp_image(dt, seed=11)
    if np.dtype(dt).kind == "f":
        # Out of range, webhal's float-to-int casts saturate (NaN gives 0) on every target.
        data.reshape(-1)[:8] = [np.nan, np.inf, -np.inf, 300.5, -200.5, 3e9, -3e9, 70000.0]
    image = hl.Buffer(data, "source")
    funcs = []
    for dst, ddt in ALL_TYPES.items():
        f = hl.Func(f"{src}_to_{dst}")
        f[x, y] = hl.cast(hl_type(ddt), image[x, y])
        gpu_2d(f, 8, 4)
        funcs.append(f)
    check(hl.Pipeline(funcs), [W, H], target, kernels=len(funcs))


@pytest.mark.parametrize("src", ["i8", "u16", "i32", "u32", "f32"])
def test_saturating_cast(target, src, wgpu_adapter):
    dt = ALL_TYPES[src]
    data = ramp_image(dt, seed=12)
    if np.dtype(dt).kind == "f":
        data = (data * np.float32(3e7)).astype(np.float32)
        data.reshape(-1)[:6] = [np.nan, np.inf, -np.inf, 255.9, -128.9, 4e9]
    image = hl.Buffer(data, "source")
    funcs = []
    for dst, ddt in ALL_TYPES.items():
        f = hl.Func(f"sat_{src}_to_{dst}")
        f[x, y] = hl.saturating_cast(hl_type(ddt), image[x, y])
        gpu_2d(f, 8, 4)
        funcs.append(f)
    check(hl.Pipeline(funcs), [W, H], target, kernels=len(funcs))


def test_casts_of_expressions_narrow_and_widen(target, wgpu_adapter):
    """u8 math widened to u16 and i32 and narrowed back (the demo's style)."""
    a = hl.Buffer(ramp_image(np.uint8, seed=13), "a")
    b = hl.Buffer(ramp_image(np.uint8, seed=14), "b")
    f = hl.Func("mix")
    wide = hl.u16(a[x, y]) * 3 + hl.u16(b[x, y]) * 5
    f[x, y] = hl.u8(wide >> 3) ^ hl.u8(hl.i32(a[x, y]) - hl.i32(b[x, y]) + 300)
    g = hl.Func("signed_mix")
    g[x, y] = hl.i16(hl.i8(a[x, y])) * hl.i16(hl.i8(b[x, y])) + hl.i16(hl.u8(x * 9))
    gpu_2d(f)
    gpu_2d(g)
    check(hl.Pipeline([f, g]), [W, H], target, kernels=2)


def test_lerp_32_bit_with_a_constant_end_weight(target, wgpu_adapter):
    """A constant weight of 0 or max folds to one end (as Halide's simplifier folds it)."""
    A = hl.Buffer(ramp_image(np.int32, seed=20) // 4, "a")
    B = hl.Buffer(ramp_image(np.int32, seed=21) // 4, "b")
    f, g = hl.Func("lerp_zero"), hl.Func("lerp_max")
    f[x, y] = hl.lerp(A[x, y], B[x, y], hl.u8(x) * hl.u8(0))
    g[x, y] = hl.lerp(A[x, y], B[x, y], hl.u16(65535))
    gpu_2d(f)
    gpu_2d(g)
    check(hl.Pipeline([f, g]), [W, H], target, kernels=2)


def lerp_edge_cases(dtype, wdtype, seed: int) -> tuple[np.ndarray, ...]:
    """Every pairing of edge values (0, 1, max, max - 1, min, min + 1, around 2^16 and 2^31)
    and a few random ones, each under edge weights (0, 1, max, max - 1, around half) and random
    ones: the three flat input arrays of a 1-D lerp."""
    rng = np.random.default_rng(seed)
    info, winfo = np.iinfo(dtype), np.iinfo(wdtype)
    edges = {0, 1, info.max, info.max - 1, info.min, info.min + 1, 0xFFFF, 0x10000,
             info.max // 2, info.max // 2 + 1, -1 if info.min else 2}
    values = sorted(edges | {int(v) for v in rng.integers(info.min, info.max, 6, endpoint=True)})
    weights = sorted({0, 1, 2, winfo.max, winfo.max - 1, winfo.max // 2, winfo.max // 2 + 1} |
                     {int(v) for v in rng.integers(0, winfo.max, 5, endpoint=True)})
    z, o, w = np.meshgrid(values, values, weights, indexing="ij")
    return (z.ravel().astype(dtype), o.ravel().astype(dtype), w.ravel().astype(wdtype))


@pytest.mark.parametrize("name", ["i32", "u32"])
@pytest.mark.parametrize("wname", ["u8", "u16", "u32"])
def test_lerp_32_bit_is_exact_in_32_bit_arithmetic(target, name, wname, wgpu_adapter):
    """32-bit lerp with an unsigned weight runs on the GPU without 64-bit integers (a 16-bit
    split multiply and an exact division by 2^32 - 1), equal to the reference bit for bit at
    the extremes, in scalar and in vector code."""
    z, o, w = lerp_edge_cases(INT_TYPES[name], INT_TYPES[wname], seed=22)
    Z, O, Wt = hl.Buffer(z, "z"), hl.Buffer(o, "o"), hl.Buffer(w, "w")
    f, g = hl.Func(f"lerp_{name}_{wname}"), hl.Func(f"lerp_vec_{name}_{wname}")
    f[x] = hl.lerp(Z[x], O[x], Wt[x])
    g[x] = hl.lerp(Z[x], O[x], Wt[x])
    f.gpu_tile(x, xo, xi, 64)
    g.gpu_tile(x, xo, xi, 64, hl.TailStrategy.GuardWithIf).vectorize(xi, 4)
    check(hl.Pipeline([f, g]), [z.size], target, kernels=2)


def test_unread_float64_producer_is_not_compiled(target, wgpu_adapter):
    """A float64 Func on the GPU (which WebGPU and Vulkan without vk_float64 lack) whose every
    read simplifies away is dropped, not refused, as Halide drops it (differential seed 2169)."""
    a = hl.Buffer(ramp_image(np.int16, seed=24), "a")
    wide, out = hl.Func("wide"), hl.Func("uses_none_of_wide")
    wide[x, y] = hl.f64(a[x, y]) * 0.5
    out[x, y] = hl.i16(wide[x, y]) % hl.i16(0) + a[x, y]
    wide.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    out.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    check(out, [W, H], target, kernels=1)


@pytest.mark.parametrize("read", ["modulo_itself", "inverted_clamp"])
def test_producer_read_only_where_its_value_cannot_matter(target, wgpu_adapter, read):
    """A uint64 Func on the GPU read only as v % v (0 whatever v is) or through a clamp whose
    lower bound is above its upper one (the lower bound whatever the value): Halide simplifies
    the read away and compiles no 64-bit kernel; so does webhal (differential seeds 2652 and
    3758, which lerped 32-bit values with a float weight, in float64 and uint64)."""
    a = hl.Buffer(ramp_image(np.int16, seed=25), "a")
    wide, out = hl.Func("wide"), hl.Func(f"reads_wide_by_{read}")
    wide[x, y] = hl.u64(a[x, y]) * 3
    v = hl.u16(wide[x, y])
    out[x, y] = (v % v if read == "modulo_itself" else hl.clamp(v, hl.u16(9), hl.u16(2))) + \
        hl.u16(a[x, y])
    wide.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    out.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    check(out, [W, H], target, kernels=1)


def test_lerp_of_a_lerp_of_32_bit_values(target, wgpu_adapter):
    """The 32-bit lerp reads each operand several times; written out without Lets, one lerp of
    mirrored reads legalized to a chain of 485 LetStmts, deeper than the WGSL printer's
    recursion could go (differential tester seed 2063), and a lerp of it took minutes to
    lower before failing the same way."""
    a = hl.Buffer((ramp_image(np.uint16, seed=23) % 5000).astype(np.uint16), "a")
    m = hl.BoundaryConditions.mirror_image(a)
    u = [hl.cast(hl.UInt(32), m[x + dx, y + dy]) for dx, dy in ((2, -2), (1, -2), (-2, 1))]
    first = hl.lerp(u[0], u[1] ^ u[2], hl.saturating_cast(hl.UInt(8), m[x + 2, y - 2]) / 62)
    f = hl.Func("long_chain")
    f[x, y] = hl.cast(hl.UInt(32), 3) % hl.lerp(first, u[2], hl.cast(hl.UInt(8), u[1]))
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    check(f, [W, H], target, kernels=1)


@pytest.mark.halide
@pytest.mark.parametrize("name", ["i32", "u32"])
@pytest.mark.parametrize("wname", ["u8", "u16", "u32"])
def test_lerp_32_bit_edge_cases_match_halide(name, wname):
    """The reference the GPU lerp is checked against gives PyPI halide's values there."""
    halide = pytest.importorskip("halide")
    z, o, w = lerp_edge_cases(INT_TYPES[name], INT_TYPES[wname], seed=22)
    results = []
    for m in (hl, halide):
        f, v = m.Func("lerp"), m.Var("x")
        f[v] = m.lerp(m.Buffer(z)[v], m.Buffer(o)[v], m.Buffer(w)[v])
        results.append(np.asarray(f.realize([z.size], *(["reference"] if m is hl else []))))
    np.testing.assert_array_equal(*results)


# -- select, clamp, absd, lerp, math -------------------------------------------------------

@pytest.mark.parametrize("name", ["u8", "i16", "u32", "i32", "f32"])
def test_select_clamp_absd(target, name, wgpu_adapter):
    dt = ALL_TYPES[name]
    t = hl_type(dt)
    A = hl.Buffer(ramp_image(dt, seed=15), "a")
    B = hl.Buffer(ramp_image(dt, seed=16), "b")
    va, vb = A[x, y], B[x, y]
    lo, hi = hl.cast(t, 10), hl.cast(t, 100)
    f = hl.Func(f"select_{name}")
    f[x, y] = hl.select(va < vb, hl.clamp(va, lo, hi), hl.select(x > y, vb, lo))
    g = hl.Func(f"absd_{name}")
    g[x, y] = hl.absd(va, vb)
    h = hl.Func(f"mux_{name}")
    h[x, y] = hl.mux(x % 4, [va, vb, lo, hl.min(va, hi)])
    for func in (f, g, h):
        gpu_2d(func)
    check(hl.Pipeline([f, g, h]), [W, H], target, kernels=3)


@pytest.mark.parametrize("name", ["u8", "i8", "u16", "i16"])
def test_lerp_integer(target, name, wgpu_adapter):
    """8- and 16-bit lerp runs in 32-bit intermediates (WGSL has no 64-bit integers)."""
    dt = INT_TYPES[name]
    bits = np.dtype(dt).itemsize * 8
    A = hl.Buffer(ramp_image(dt, seed=17), "a")
    B = hl.Buffer(ramp_image(dt, seed=18), "b")
    Wt = hl.Buffer(ramp_image(np.dtype(f"uint{bits}"), seed=19), "w")
    f = hl.Func(f"lerp_{name}")
    f[x, y] = hl.lerp(A[x, y], B[x, y], Wt[x, y])
    g = hl.Func(f"lerp_float_weight_{name}")
    g[x, y] = hl.lerp(A[x, y], B[x, y], hl.f32(x) / 36.0)
    gpu_2d(f)
    gpu_2d(g)
    check(hl.Pipeline([f, g]), [W, H], target, kernels=2)


def test_f32_math_functions(target, wgpu_adapter):
    rng = np.random.default_rng(20)
    data = rng.uniform(-3.0, 3.0, (H, W)).astype(np.float32)
    A = hl.Buffer(data, "a")
    v = A[x, y]
    pos = hl.abs(v) + 0.5
    unit = v / 3.5
    exprs = {
        "sqrt": hl.sqrt(pos), "exp": hl.exp(v), "log": hl.log(pos), "pow": hl.pow(pos, v),
        "sin": hl.sin(v), "cos": hl.cos(v), "tan": hl.tan(unit), "asin": hl.asin(unit),
        "acos": hl.acos(unit), "atan": hl.atan(v), "atan2": hl.atan2(v, hl.f32(x) - 18.0),
        "sinh": hl.sinh(v), "cosh": hl.cosh(v), "tanh": hl.tanh(v), "asinh": hl.asinh(v),
        "acosh": hl.acosh(pos + 1.0), "atanh": hl.atanh(unit),
        "floor": hl.floor(v * 2.0), "ceil": hl.ceil(v * 2.0), "round": hl.round(v * 2.0),
        "trunc": hl.trunc(v * 2.0), "fract": hl.fract(v), "lerp": hl.lerp(v, -v, hl.f32(x) / W),
        "pow_int": hl.pow(v, 3.0) + hl.pow(v, 2.0) - hl.pow(v, hl.f32(y % 5) - 2.0),
        "pow_frac": hl.pow(v, 0.5) + hl.pow(v, 0.0),  # NaN for negative bases
    }
    funcs = []
    for name, e in exprs.items():
        f = hl.Func(f"math_{name}")
        f[x, y] = e
        gpu_2d(f, 16, 4)
        funcs.append(f)
    # WGSL's accuracy bounds: sin and cos within 2^-11 absolute, atan and atan2 within 4096
    # ULP and the functions built on them (asin, acos, tan, the hyperbolic ones) alike; exp,
    # log and pow within a few ULP (relative to their size).
    loose = {f"math_{n}": (6e-4, 6e-4) for n in
             ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
              "asinh", "acosh", "atanh")}
    check(hl.Pipeline(funcs), [W, H], target, kernels=len(funcs), rtol=1e-5, atol=1e-5,
          tolerances=loose)


def test_float_special_values(target, wgpu_adapter):
    data = np.array([[0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, 3e38, -2.5]],
                    dtype=np.float32)
    A = hl.Buffer(data, "a")
    v = A[x, 0]
    f, g = hl.Func("classify"), hl.Func("saturate")
    f[x] = hl.select(hl.is_nan(v), 1, 0) + hl.select(hl.is_inf(v), 10, 0) + \
        hl.select(hl.is_finite(v), 100, 0)
    g[x] = hl.clamp(v, -1.0, 1.0) * 2.0
    f.gpu_tile(x, xo, xi, 4)
    g.gpu_tile(x, xo, xi, 4)
    check(hl.Pipeline([f, g]), [10], target, kernels=2)


# -- stencils with each boundary condition ----------------------------------------------------

BOUNDARIES = {
    "repeat_edge": hl.BoundaryConditions.repeat_edge,
    "constant_exterior": lambda s: hl.BoundaryConditions.constant_exterior(s, 7),
    "mirror_image": hl.BoundaryConditions.mirror_image,
    "mirror_interior": hl.BoundaryConditions.mirror_interior,
    "repeat_image": hl.BoundaryConditions.repeat_image,
}


@pytest.mark.parametrize("boundary", list(BOUNDARIES))
def test_3x3_stencil_u8(target, boundary, wgpu_adapter):
    """A 3x3 weighted sum of a u8 image (u16 inside), read beyond every edge. (A Buffer: the
    mirror conditions of an ImageParam, whose extent is symbolic, leave bounds inference
    without a lower bound, on every target.)"""
    image = hl.Buffer(ramp_image(np.uint8, seed=21), "image")
    b = BOUNDARIES[boundary](image)
    f = hl.Func(f"stencil_{boundary}")
    total = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            total = total + hl.u16(b[x + dx, y + dy]) * (2 if dx == 0 and dy == 0 else 1)
    f[x, y] = hl.u8(total / 10)
    gpu_2d(f, 8, 4)
    check(f, [W, H], target, kernels=1)


@pytest.mark.parametrize("boundary", list(BOUNDARIES))
def test_3x3_stencil_f32_on_a_gpu_producer(target, boundary, wgpu_adapter):
    """The bounded Func is itself computed on the GPU at root; the output is larger than the
    image and starts before it, so every output pixel near the border is outside."""
    inp = hl.ImageParam(hl.Float(32), 2, "samples")
    inp.set(hl.Buffer(ramp_image(np.float32, 20, 15, seed=22)))
    scaled = hl.Func("scaled")
    scaled[x, y] = inp[x, y] * 0.5 + 1.0
    b = _bounded(boundary, scaled, 20, 15)
    f = hl.Func(f"smooth_{boundary}")
    f[x, y] = sum(b[x + dx, y + dy] * (dx + 2) * (dy + 3) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    scaled.compute_root()
    gpu_2d(scaled, 8, 8)
    gpu_2d(f, 8, 8)
    check(f, [30, 25], target, kernels=2, mins=[-5, -4])


def _bounded(boundary: str, func: hl.Func, w: int, h: int) -> hl.Func:
    bounds = [(0, w), (0, h)]
    bc = hl.BoundaryConditions
    if boundary == "constant_exterior":
        return bc.constant_exterior(func, 7.0, bounds)
    return getattr(bc, boundary)(func, bounds)


# -- gpu_tile tails, grids of 1, 2 and 3 dimensions ----------------------------------------------

TAILS = [hl.TailStrategy.Auto, hl.TailStrategy.GuardWithIf, hl.TailStrategy.ShiftInwards]


@pytest.mark.parametrize("tail", TAILS, ids=lambda t: t.name)
def test_gpu_tile_sizes_that_do_not_divide(target, tail, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int32, seed=23) // 4, "a")
    funcs = []
    sizes = [(8, 8), (5, 3), (16, 1), (1, 7), (37, 23), (36, 22)]
    if tail is hl.TailStrategy.GuardWithIf:  # shifted inwards, tiles larger than the image
        sizes += [(64, 8), (16, 32)]          # would read and write outside it
    for tx, ty in sizes:
        f = hl.Func(f"tile_{tx}x{ty}")
        f[x, y] = A[x, y] * 3 - x * y + tx
        gpu_2d(f, tx, ty, tail)
        funcs.append(f)
    check(hl.Pipeline(funcs), [W, H], target, kernels=len(funcs))


def test_gpu_tile_round_up(target, wgpu_adapter):
    """RoundUp on an output only where the tile divides it; on an intermediate (computed at
    root, allocated rounded up) any tile size works."""
    A = hl.Buffer(ramp_image(np.int32, seed=24) // 4, "a")
    inner = hl.Func("inner")
    inner[x, y] = x * x - 7 * y
    out = hl.Func("out")
    out[x, y] = inner[x, y] + A[x, y]
    inner.compute_root()
    gpu_2d(inner, 8, 5, hl.TailStrategy.RoundUp)
    gpu_2d(out, W, H, hl.TailStrategy.RoundUp)
    check(out, [W, H], target, kernels=2)


def test_gpu_blocks_and_threads_1d(target, wgpu_adapter):
    data = ramp_image(np.float32, 101, 1, seed=25).reshape(-1)
    A = hl.Buffer(data, "a")
    f = hl.Func("line")
    f[x] = A[x] * 2.0 - hl.f32(x)
    f.split(x, xo, xi, 16).gpu_blocks(xo).gpu_threads(xi)
    g = hl.Func("line_tile")
    g[x] = A[100 - x] + 1.0
    g.gpu_tile(x, xo, xi, 7)
    check(hl.Pipeline([f, g]), [101], target, kernels=2)


def test_gpu_blocks_and_threads_2d(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int16, seed=26), "a")
    f = hl.Func("grid2")
    f[x, y] = A[x, y] / 3 + hl.i16(x - y)
    f.split(x, xo, xi, 8).split(y, yo, yi, 4).reorder(xi, yi, xo, yo)
    f.gpu_blocks(xo, yo).gpu_threads(xi, yi)
    g = hl.Func("rows_as_blocks")
    g[x, y] = A[W - 1 - x, y] * 2
    g.split(x, xo, xi, 8).reorder(xi, xo, y).gpu_blocks(xo, y).gpu_threads(xi)
    check(hl.Pipeline([f, g]), [W, H], target, kernels=2)


def test_gpu_3d_three_channel_image(target, wgpu_adapter):
    """A 3-channel u8 image (channels outermost): a 3-D grid and 3-D workgroups."""
    data = np.random.default_rng(27).integers(0, 256, (3, H, W), dtype=np.uint8)
    image = hl.ImageParam(hl.UInt(8), 3, "rgb")
    image.set(hl.Buffer(data))
    gray = hl.Func("tint")
    gray[x, y, c] = hl.u8(hl.min(hl.u16(image[x, y, c]) * (c + 1) / 2 + hl.u16(x), 255))
    gray.gpu_tile(x, y, c, xo, yo, co, xi, yi, ci, 8, 4, 2)
    swap = hl.Func("swap")
    swap[x, y, c] = image[x, y, 2 - c] + hl.u8(y)
    swap.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)  # c stays a serial loop around the kernel
    blocks = hl.Func("blocks3")
    blocks[x, y, c] = image[x, y, c] ^ hl.u8(c * 85)
    blocks.split(x, xo, xi, 4).reorder(xi, xo, y, c).gpu_blocks(xo, y, c).gpu_threads(xi)
    check(hl.Pipeline([gray, swap, blocks]), [W, H, 3], target, kernels=3)


def test_gpu_tile_inside_serial_loop_and_fused_blocks(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.float32, seed=28), "a")
    f = hl.Func("fused")
    f[x, y] = A[x, y] + hl.f32(x * 100 + y)
    t = hl.Var("t")
    f.fuse(x, y, t).split(t, xo, xi, 32).gpu_blocks(xo).gpu_threads(xi)
    check(f, [W, H], target, kernels=1)


def test_gpu_blocks_without_threads(target, wgpu_adapter):
    """gpu_blocks alone: one invocation per workgroup, running a serial loop over a row and a
    vectorized one; and serial loops inside the thread loops."""
    A = hl.Buffer(ramp_image(np.int16, seed=66), "a")
    f, g, h = hl.Func("blocks_only"), hl.Func("block_rows"), hl.Func("serial_in_threads")
    f[x, y] = A[x, y] * 3 + hl.i16(y)
    f.gpu_blocks(x, y)
    g[x, y] = A[x, y] - hl.i16(x)
    g.split(x, xo, xi, 8).vectorize(xi).gpu_blocks(y)
    h[x, y] = A[x, y] ^ hl.i16(x * y)
    h.split(x, xo, xi, 8).reorder(y, xi, xo).gpu_blocks(xo).gpu_threads(xi)
    check(hl.Pipeline([f, g, h]), [W, H], target, kernels=3)


# -- multi-stage pipelines ---------------------------------------------------------------------

def test_two_stage_root_producer_u8(target, wgpu_adapter):
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    image.set(hl.Buffer(ramp_image(np.uint8, W + 2, H + 2, seed=29)))
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (hl.u16(image[x, y]) + image[x + 1, y] + image[x + 2, y]) / 3
    by[x, y] = hl.u8((bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3)
    bx.compute_root()
    gpu_2d(bx, 8, 8)
    gpu_2d(by, 16, 4)
    check(by, [W, H], target, kernels=2)


def test_two_stage_root_producer_i32_in_different_tiles(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int32, W + 3, H + 3, seed=30) // 8, "a")
    prod, cons = hl.Func("prod"), hl.Func("cons")
    prod[x, y] = A[x, y] * 2 - A[x + 1, y + 1]
    cons[x, y] = prod[x, y] + prod[x + 2, y + 2] * 3 - prod[x, y + 1]
    prod.compute_root()
    gpu_2d(prod, 5, 7)
    gpu_2d(cons, 8, 4)
    check(cons, [W, H], target, kernels=2)


def test_shared_memory_u8(target, wgpu_adapter):
    """A u8 producer in workgroup memory (one element per word there, packed in buffers)."""
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    image.set(hl.Buffer(ramp_image(np.uint8, W + 2, H + 2, seed=31)))
    bx, by = hl.Func("sx"), hl.Func("sy")
    bx[x, y] = hl.u8((hl.u16(image[x, y]) + image[x + 1, y] + image[x + 2, y]) / 3)
    by[x, y] = hl.u8((hl.u16(bx[x, y]) + bx[x, y + 1] * 2 + bx[x, y + 2]) / 4)
    gpu_2d(by, 8, 8)
    bx.compute_at(by, xo).gpu_threads(x, y)
    check(by, [W, H], target, kernels=1)


def test_shared_memory_f32_with_boundary(target, wgpu_adapter):
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    inp.set(hl.Buffer(ramp_image(np.float32, seed=32)))
    clamped = hl.BoundaryConditions.constant_exterior(inp, -1.5)
    bx, by = hl.Func("fx"), hl.Func("fy")
    bx[x, y] = clamped[x - 2, y] + clamped[x, y] * 2.0 + clamped[x + 2, y]
    by[x, y] = (bx[x, y - 1] - bx[x, y + 1]) * 0.25 + bx[x, y]
    gpu_2d(by, 16, 4)
    bx.compute_at(by, xo).gpu_threads(x, y)
    check(by, [W, H], target, kernels=1)


def test_shared_memory_two_producers(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int32, W + 2, H + 2, seed=33) // 16, "a")
    p, q, out = hl.Func("p"), hl.Func("q"), hl.Func("pq")
    p[x, y] = A[x, y] + A[x + 1, y]
    q[x, y] = p[x, y] * 2 - A[x, y + 1]
    out[x, y] = q[x, y] + q[x + 1, y + 1] + p[x, y]
    gpu_2d(out, 8, 4)
    q.compute_at(out, xo).gpu_threads(x, y)
    p.compute_at(out, xo).gpu_threads(x, y)
    check(out, [W, H], target, kernels=1)


def test_producer_computed_inside_thread_loops(target, wgpu_adapter):
    """compute_at a GPU thread loop: each invocation computes the producer's 2x2 footprint in
    its own array (registers), u16 and f32, and an 8x1 row per invocation."""
    A = hl.Buffer(ramp_image(np.uint8, W + 8, H + 1, seed=64), "a")
    p, out = hl.Func("p_local"), hl.Func("local_out")
    p[x, y] = hl.u16(A[x, y]) * 3 + hl.u16(x)
    out[x, y] = p[x, y] + p[x + 1, y + 1] - p[x, y + 1]
    gpu_2d(out, 8, 4)
    p.compute_at(out, xi)
    q, row = hl.Func("q_local"), hl.Func("row_out")
    q[x, y] = hl.f32(A[x, y]) * 0.5
    row[x, y] = sum(q[x + k, y] for k in range(8)) / 8.0
    gpu_2d(row, 4, 4)
    q.compute_at(row, xi)
    check(hl.Pipeline([out, row]), [W, H], target, kernels=2)


def test_strided_and_repeated_vector_loads(target, wgpu_adapter):
    """Vector loads of packed u8 at stride 2 (downsampling) and of repeated indices
    (upsampling), inside each invocation."""
    A = hl.Buffer(ramp_image(np.uint8, 2 * W + 2, H, seed=65), "a")
    down, up = hl.Func("down"), hl.Func("up")
    down[x, y] = hl.u8((hl.u16(A[2 * x, y]) + A[2 * x + 1, y] + 1) / 2)
    up[x, y] = A[x / 2, y] - A[x / 2 + 1, y] / 2
    for f in (down, up):
        f.split(x, x, xv, 4).vectorize(xv)
        gpu_2d(f, 4, 4)
    check(hl.Pipeline([down, up]), [W, H], target, kernels=2)


# -- reductions and update stages on the GPU ---------------------------------------------------

def test_five_tap_sum_in_each_invocation(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.uint16, W + 4, H, seed=34), "a")
    r = hl.RDom([(0, 5)], "r")
    f = hl.Func("taps")
    f[x, y] = hl.u32(0)
    f[x, y] += hl.u32(A[x + r.x, y]) * hl.u32(r.x + 1)
    gpu_2d(f, 8, 4)
    f.update(0).gpu_tile(x, y, xo, yo, xi, yi, 8, 4, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, kernels=2)


def test_maximum_over_a_2d_window(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int16, W + 2, H + 2, seed=35), "a")
    r = hl.RDom([(0, 3), (0, 3)], "r")
    f = hl.Func("window_max")
    f[x, y] = hl.i16(-32768)
    f[x, y] = hl.max(f[x, y], A[x + r.x, y + r.y])
    gpu_2d(f, 8, 8)
    f.update(0).gpu_tile(x, y, xo, yo, xi, yi, 4, 8, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, kernels=2)


@pytest.mark.parametrize("kind", ["sum", "maximum", "minimum", "product"])
def test_inline_reduction(target, kind, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int32, W + 4, H + 4, seed=36) // 4096, "a")
    r = hl.RDom([(0, 5), (0, 3)], "r")
    f = hl.Func(f"inline_{kind}")
    f[x, y] = getattr(hl, kind)(A[x + r.x, y + r.y] + 1) + x
    gpu_2d(f, 8, 4)
    check(f, [W, H], target, kernels=1)


def test_inline_float_mean(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.float32, W + 4, H, seed=37), "a")
    r = hl.RDom([(0, 5)], "r")
    f = hl.Func("mean")
    f[x, y] = hl.sum(A[x + r.x, y]) / 5.0
    gpu_2d(f, 16, 4)
    check(f, [W, H], target, kernels=1, rtol=1e-5, atol=1e-4)


def test_update_stages_on_the_gpu(target, wgpu_adapter):
    """Pure stage and two updates each a kernel, one with a different tiling; a pure update
    that reads the previous value at other points is not allowed, so each reads its own."""
    A = hl.Buffer(ramp_image(np.float32, seed=38), "a")
    f = hl.Func("updated")
    f[x, y] = A[x, y]
    f[x, y] = f[x, y] * 2.0 + hl.f32(x)
    f[x, y] = hl.select(f[x, y] > 0.0, f[x, y], -f[x, y] * 0.5)
    gpu_2d(f, 8, 8)
    f.update(0).gpu_tile(x, y, xo, yo, xi, yi, 16, 2, hl.TailStrategy.GuardWithIf)
    f.update(1).gpu_tile(x, y, xo, yo, xi, yi, 4, 4, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, kernels=3)


def test_update_on_the_gpu_with_the_pure_stage_on_the_cpu(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int32, seed=39) // 4, "a")
    f = hl.Func("half_gpu")
    f[x, y] = A[x, y] + x
    f[x, y] += y * 3
    f.update(0).gpu_tile(x, y, xo, yo, xi, yi, 8, 8, hl.TailStrategy.GuardWithIf)
    g = hl.Func("other_half_gpu")
    g[x, y] = A[x, y] - y
    g[x, y] = g[x, y] * 5
    gpu_2d(g, 8, 8)
    check(hl.Pipeline([f, g]), [W, H], target, kernels=2)


def test_rdom_update_with_serial_rows_on_the_gpu(target, wgpu_adapter):
    """A scan along x inside each invocation (the RVar serial, y on the GPU)."""
    A = hl.Buffer(ramp_image(np.int32, seed=40) // 1024, "a")
    r = hl.RDom([(1, W - 1)], "r")
    f = hl.Func("prefix")
    f[x, y] = A[x, y]
    f[r.x, y] = f[r.x, y] + f[r.x - 1, y]
    gpu_2d(f, 8, 8)
    f.update(0).split(y, yo, yi, 4, hl.TailStrategy.GuardWithIf).gpu_blocks(yo).gpu_threads(yi)
    check(f, [W, H], target, kernels=2)


def test_histogram_like_update_with_a_gpu_consumer(target, wgpu_adapter):
    """A reduction with data-dependent stores stays on the CPU; its consumer runs on the GPU."""
    data = np.random.default_rng(41).integers(0, 16, (H, W), dtype=np.uint8)
    A = hl.Buffer(data, "a")
    r = hl.RDom([(0, W), (0, H)], "r")
    hist = hl.Func("hist")
    hist[x] = 0
    hist[hl.i32(A[r.x, r.y])] += 1
    hist.compute_root()
    out = hl.Func("cdf_like")
    out[x, y] = hist[x % 16] * 100 + y
    gpu_2d(out, 8, 8)
    check(out, [W, H], target, kernels=1)


def test_random_numbers_in_a_kernel(target, wgpu_adapter):
    """Halide's random hash (uint32 wrapping arithmetic, reinterpret to float) in a kernel gives
    the reference's numbers."""
    f = hl.Func("noise")
    f[x, y] = (hl.random_float(), hl.random_uint(x - y), hl.random_int())
    gpu_2d(f, 8, 8)
    check(f, [W, H], target, kernels=1)


def test_rfactor_of_split_rvars_with_tiles_on_the_gpu(target, wgpu_adapter):
    """rfactor over the outer RVars of tiles (lesson 18): each tile's histogram in its own GPU
    block (no two blocks write the same point), partial tiles at the edges, merged on the CPU."""
    data = np.random.default_rng(42).integers(0, 256, (H, W), dtype=np.uint8)
    A = hl.Buffer(data, "a")
    u, v = hl.Var("u"), hl.Var("v")
    r = hl.RDom([(0, W), (0, H)], "r")
    h = hl.Func("tile_hist")
    h[x] = 0
    h[hl.i32(A[r.x, r.y]) // 32] += 1
    rxo, rxi, ryo, ryi = (hl.RVar(n) for n in ("rxo", "rxi", "ryo", "ryi"))
    h.update().split(r.x, rxo, rxi, 8).split(r.y, ryo, ryi, 8)
    intermediate = h.update().rfactor([(rxo, u), (ryo, v)])
    intermediate.compute_root().gpu_blocks(u, v)
    intermediate.update().reorder(rxi, ryi, u, v).gpu_blocks(u, v)
    got = check(h, [8], target, kernels=2)
    assert list(got[0]) == list(np.bincount(data.reshape(-1) // 32, minlength=8))


def test_tuple_with_an_update_and_an_argmax_on_the_gpu(target, wgpu_adapter):
    """A Tuple-valued Func (one buffer per element, a narrow one packed) whose update reads
    both elements' old values, its consumer, and a per-column argmax over an RDom, each stage
    on the GPU."""
    image = hl.Buffer(ramp_image(np.int16, seed=42), "image")
    f, g = hl.Func("pair"), hl.Func("pair_use")
    f[x, y] = (hl.u8(x + y), hl.f32(image[x, y]) * 0.5)
    f[x, y] = (f[x, y][0] + hl.u8(f[x, y][1] > 0), f[x, y][1] - hl.f32(f[x, y][0]))
    g[x, y] = hl.f32(f[x, y][0]) + f[x, y][1]
    f.compute_root()
    gpu_2d(f, 8, 4)
    gpu_2d(f.update(), 8, 4)
    gpu_2d(g, 8, 8)
    r = hl.RDom([(0, H)], "r")
    best = hl.Func("column_best")
    best[x] = hl.argmax(image[x, r])
    best.gpu_tile(x, xo, xi, 16)  # the argmax's own Func runs inside each invocation
    check(g, [W, H], target, kernels=3)
    check(best, [W], target, kernels=1)


# -- mixed CPU/GPU chains -------------------------------------------------------------------------

def test_cpu_producer_gpu_consumer(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.uint16, W + 1, H + 1, seed=42), "a")
    prod, out = hl.Func("cpu_prod"), hl.Func("gpu_cons")
    prod[x, y] = A[x, y] / 2 + A[x + 1, y + 1] / 2
    out[x, y] = prod[x, y] + prod[x, y] / 7
    prod.compute_root().vectorize(x, 8).parallel(y)
    gpu_2d(out, 8, 8)
    check(out, [W, H], target, kernels=1)


def test_gpu_producer_cpu_consumer(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.int8, W + 1, H, seed=43), "a")
    prod, out = hl.Func("gpu_prod"), hl.Func("cpu_cons")
    prod[x, y] = A[x, y] * 3 - A[x + 1, y]
    out[x, y] = hl.i16(prod[x, y]) * 100 + prod[x, y]
    prod.compute_root()
    gpu_2d(prod, 8, 8)
    out.vectorize(x, 8)
    check(out, [W, H], target, kernels=1)


def test_gpu_cpu_gpu_cpu_chain(target, wgpu_adapter):
    """Buffers cross back and forth: a CPU stage reads what a kernel wrote, the next kernel
    reads what the CPU wrote, and the output comes from the CPU again."""
    A = hl.Buffer(ramp_image(np.float32, seed=44), "a")
    s1, s2, s3, s4 = hl.Func("g1"), hl.Func("c2"), hl.Func("g3"), hl.Func("c4")
    s1[x, y] = A[x, y] * 0.5
    s2[x, y] = s1[x, y] + hl.f32(y)
    s3[x, y] = s2[x, y] * s1[x, y]
    s4[x, y] = s3[x, y] - s2[x, y]
    for s in (s1, s2, s3):
        s.compute_root()
    gpu_2d(s1, 8, 8)
    s2.parallel(y)
    gpu_2d(s3, 16, 2)
    check(s4, [W, H], target, kernels=2)


def test_gpu_stage_read_by_cpu_and_gpu_consumers(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.uint8, seed=45), "a")
    src, cpu, out = hl.Func("shared_src"), hl.Func("cpu_side"), hl.Func("gpu_out")
    src[x, y] = A[x, y] + hl.u8(x)
    cpu[x, y] = src[x, y] / 2
    out[x, y] = src[x, y] - cpu[x, y] + hl.u8(y)
    src.compute_root()
    cpu.compute_root()
    gpu_2d(src, 8, 8)
    gpu_2d(out, 8, 8)
    check(out, [W, H], target, kernels=2)


def test_realized_twice_with_new_input(target, wgpu_adapter):
    """The device copies of inputs follow new host data between realizations."""
    inp = hl.ImageParam(hl.Int(32), 2, "input")
    f = hl.Func("again")
    f[x, y] = inp[x, y] * 2 + 1
    gpu_2d(f)
    for seed in (46, 47):
        inp.set(hl.Buffer(ramp_image(np.int32, seed=seed) // 4))
        check(f, [W, H], target, kernels=1)


# -- 8/16-bit stores: whole words and atomic bytes ---------------------------------------------

@pytest.mark.parametrize("width", [37, 38, 41])
@pytest.mark.parametrize("vector", [4, 8])
def test_u8_vectorized_output_with_tails(target, width, vector, wgpu_adapter):
    """Vector stores of 4 or 8 lanes are whole words when aligned; tails shift vectors off
    alignment (ShiftInwards) and then fall back to atomic byte updates."""
    A = hl.Buffer(ramp_image(np.uint8, width, H, seed=48), "a")
    f = hl.Func("packed")
    f[x, y] = A[x, y] * hl.u8(3) + hl.u8(x + y)
    f.split(x, x, xv, vector).vectorize(xv)
    gpu_2d(f, 4, 4)
    check(f, [width, H], target, kernels=1)


@pytest.mark.parametrize("name", ["u8", "i8", "u16", "i16"])
def test_scalar_narrow_output_with_odd_width(target, name, wgpu_adapter):
    """Each invocation owns one element; neighbours share words, updated atomically."""
    dt = INT_TYPES[name]
    A = hl.Buffer(ramp_image(dt, W, H, seed=49), "a")
    f = hl.Func(f"atomic_{name}")
    f[x, y] = A[x, y] - hl.cast(hl_type(dt), x * 3 + y)
    gpu_2d(f, 5, 3)
    check(f, [W, H], target, kernels=1)


def test_u16_vectorized_by_2_and_4(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.uint16, W, H, seed=50), "a")
    f, g = hl.Func("pairs"), hl.Func("quads")
    f[x, y] = A[x, y] + hl.u16(x * 1000)
    g[x, y] = A[x, y] ^ hl.u16(y * 77)
    f.split(x, x, xv, 2).vectorize(xv)
    g.split(x, x, xv, 4, hl.TailStrategy.GuardWithIf).vectorize(xv)
    gpu_2d(f, 8, 4)
    gpu_2d(g, 4, 4)
    check(hl.Pipeline([f, g]), [W, H], target, kernels=2)


def test_u8_vector_store_with_odd_coordinates(target, wgpu_adapter):
    """Output starting at an odd x: every vector store starts mid-word."""
    A = hl.Buffer(ramp_image(np.uint8, 64, H + 3, seed=51), "a")
    f = hl.Func("odd_start")
    f[x, y] = A[x + 20, y] + hl.u8(x)
    f.split(x, x, xv, 4).vectorize(xv)
    gpu_2d(f, 4, 4)
    check(f, [W - 2, H], target, kernels=1, mins=[-13, 3])


# -- outputs that do not start at 0 -----------------------------------------------------------

@pytest.mark.parametrize("name", ["u8", "i16", "f32"])
def test_output_with_nonzero_min(target, name, wgpu_adapter):
    dt = ALL_TYPES[name]
    t = hl_type(dt)
    f = hl.Func(f"offset_{name}")
    f[x, y] = hl.cast(t, x * 3 - y * 5 + 7)
    gpu_2d(f, 8, 4)
    g = hl.Func(f"offset_stencil_{name}")
    inp = hl.ImageParam(t, 2, "image")
    inp.set(hl.Buffer(ramp_image(dt, W, H, seed=52)))
    b = hl.BoundaryConditions.repeat_edge(inp)
    g[x, y] = b[x - 1, y] + b[x + 1, y + 1]
    gpu_2d(g, 8, 4)
    check(hl.Pipeline([f, g]), [W - 7, H - 3], target, kernels=2, mins=[-9, 5])


# -- scalars, input mins, sizes, float16 --------------------------------------------------------

PARAMS = [(hl.UInt(8), 200), (hl.Int(8), -100), (hl.UInt(16), 60000), (hl.Int(16), -30000),
          (hl.UInt(32), 4000000000), (hl.Int(32), -2000000000), (hl.Float(32), -1.75),
          (hl.Bool(), True), (hl.Float(16), -2.5)]


def test_scalar_params_of_every_type(target, wgpu_adapter):
    """Each Param type as a kernel argument (4 bytes each in the uniform block), in its own
    type's arithmetic."""
    funcs = []
    for t, value in PARAMS:
        if t.is_float() and t.bits == 16 and not has_float16(target, wgpu_adapter):
            continue
        p = hl.Param(t, f"p_{t}", value)
        f = hl.Func(f"param_{t}")
        if t.is_bool():
            f[x] = hl.select(p, x, -x)
        else:
            f[x] = p + hl.cast(t, x) * hl.cast(t, 3)
        f.gpu_tile(x, xo, xi, 8)
        funcs.append(f)
    check(hl.Pipeline(funcs), [W], target, kernels=len(funcs))


def test_params_changed_between_runs(target, wgpu_adapter):
    image = hl.Buffer(ramp_image(np.int16, seed=53), "image")
    gain = hl.Param(hl.Float(32), "gain", 1.5)
    offset = hl.Param(hl.Int(8), "offset", -7)
    f = hl.Func("gain_offset")
    f[x, y] = hl.f32(image[x, y] + hl.i16(offset)) * gain  # offset widened: sign-extended
    gpu_2d(f)
    for g, o in ((1.5, -7), (-0.25, 100), (3.0, -128)):
        gain.set(g)
        offset.set(o)
        check(f, [W, H], target, kernels=1)


@pytest.mark.parametrize("name", ["u8", "i16", "f32"])
def test_input_with_nonzero_mins(target, name, wgpu_adapter):
    dt = ALL_TYPES[name]
    data = ramp_image(dt, W + 2, H + 2, seed=54)
    buf = hl.Buffer(data, "shifted")
    buf.set_min([-6, 4])
    f = hl.Func(f"read_shifted_{name}")
    f[x, y] = buf[x - 6, y + 4] + buf[x - 4, y + 6]
    gpu_2d(f, 8, 4)
    check(f, [W, H], target, kernels=1)


def test_same_pipeline_at_other_sizes(target, wgpu_adapter):
    """One compiled pipeline, outputs of several sizes: device buffers are made anew."""
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    f = hl.Func("resized")
    f[x, y] = inp[x, y] / 2 + hl.u8(x)
    f.split(x, x, xv, 4).vectorize(xv)
    gpu_2d(f, 4, 4)
    for w, h in ((37, 23), (16, 4), (64, 40), (21, 5)):  # at least one tile each way
        inp.set(hl.Buffer(ramp_image(np.uint8, w, h, seed=w)))
        check(f, [w, h], target, kernels=1)


def test_float16(target, wgpu_adapter):
    if not has_float16(target, wgpu_adapter):
        pytest.skip("the adapter has no shader-f16")
    data = np.random.default_rng(55).uniform(-300, 300, (H, W)).astype(np.float16)
    data.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, 0.0]
    A = hl.Buffer(data, "a")
    v = A[x, y]
    f, g, h = hl.Func("half_math"), hl.Func("half_to_int"), hl.Func("half_select")
    bits, back = hl.Func("half_bits"), hl.Func("half_from_bits")
    bits[x, y] = hl.reinterpret(hl.Int(16), v) + hl.i16(y)
    back[x, y] = hl.reinterpret(hl.Float(16), hl.reinterpret(hl.UInt(16), v) ^ hl.u16(x % 2))
    f[x, y] = v * hl.f16(0.5) - hl.f16(x) + hl.min(v, hl.f16(100.0))
    g[x, y] = hl.i8(v) + hl.i8(hl.u8(v))
    h[x, y] = hl.select(v > hl.f16(0.0), hl.max(v, hl.f16(10.0)), hl.f16(y)) + \
        hl.f16(hl.f32(v) * 0.25)
    for func in (f, g, h, bits, back):
        gpu_2d(func, 8, 4)
    check(hl.Pipeline([f, g, h, bits, back]), [W, H], target, kernels=5, rtol=1e-3, atol=1e-3)


# -- more schedules inside kernels -------------------------------------------------------------

def test_unrolled_and_vectorized_loops_in_a_kernel(target, wgpu_adapter):
    A = hl.Buffer(ramp_image(np.float32, seed=56), "a")
    f = hl.Func("unrolled")
    f[x, y] = A[x, y] * hl.f32(y) + 1.0
    yy = hl.Var("yy")
    f.split(x, xo, xi, 8).split(y, yo, yi, 6).split(xi, xi, xv, 2).split(yi, yi, yy, 3)
    f.reorder(xv, yy, xi, yi, xo, yo).gpu_blocks(xo, yo).gpu_threads(xi, yi)
    f.vectorize(xv).unroll(yy)
    check(f, [W, H], target, kernels=1)


def test_rdom_where_on_the_gpu(target, wgpu_adapter):
    data = ramp_image(np.int32, W + 6, H, seed=57) % 1000
    A = hl.Buffer(data, "a")
    r = hl.RDom([(0, 7)], "r")
    r.where(A[x + r.x, y] > 0)
    r.where(r.x % 3 != 1)
    f = hl.Func("sum_where")
    f[x, y] = 0
    f[x, y] += A[x + r.x, y]
    gpu_2d(f, 8, 4)
    f.update(0).gpu_tile(x, y, xo, yo, xi, yi, 8, 4, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, kernels=2)


def test_vectorized_update_of_packed_u8(target, wgpu_adapter):
    """Each lane of a vectorized update reads the element it replaces (whole words when
    aligned, atomic byte updates in the shifted tail)."""
    A = hl.Buffer(ramp_image(np.uint8, W, H, seed=58), "a")
    f = hl.Func("packed_update")
    f[x, y] = A[x, y]
    f[x, y] = f[x, y] * hl.u8(3) + hl.u8(y)
    f.split(x, x, xv, 4).vectorize(xv)
    gpu_2d(f, 4, 4)
    f.update(0).split(x, x, xv, 4, hl.TailStrategy.GuardWithIf).vectorize(xv)
    f.update(0).gpu_tile(x, y, xo, yo, xi, yi, 4, 4, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, kernels=2)


@pytest.mark.parametrize("name", ["i8", "i16"])
def test_signed_narrow_vectorized_output(target, name, wgpu_adapter):
    dt = INT_TYPES[name]
    t = hl_type(dt)
    A = hl.Buffer(ramp_image(dt, W, H, seed=59), "a")
    f = hl.Func(f"signed_packed_{name}")
    f[x, y] = -A[x, y] + hl.cast(t, x - 20)
    f.split(x, x, xv, 4).vectorize(xv)
    gpu_2d(f, 4, 4)
    check(f, [W, H], target, kernels=1)


@pytest.mark.parametrize("tail", [hl.TailStrategy.Auto, hl.TailStrategy.RoundUp],
                         ids=lambda t: t.name)
def test_shared_memory_read_by_vector_loads(target, tail, wgpu_adapter):
    """A u8 producer in workgroup memory read by a consumer vectorized by 4 inside each
    invocation, which stores whole packed words. With tiles shifted inwards (Auto) the
    producer's footprint per block is not a constant expression: its largest value sizes the
    workgroup memory and the thread loops, the extra threads idle."""
    w, h = (W, H) if tail is hl.TailStrategy.Auto else (32, 20)
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    image.set(hl.Buffer(ramp_image(np.uint8, w + 5, h + 1, seed=60)))
    p, out = hl.Func("vec_shared"), hl.Func("vec_shared_out")
    p[x, y] = image[x, y] / 2 + image[x + 1, y + 1] / 2
    out[x, y] = p[x, y] + p[x + 4, y]
    out.split(x, x, xv, 4, tail).vectorize(xv)
    gpu_2d(out, 4, 4, tail)
    p.compute_at(out, xo).gpu_threads(x, y)
    check(out, [w, h], target, kernels=1)
    _, lowered = compile_jit(hl.Pipeline(out), hl.Target(target))
    assert next(iter(lowered.kernels.values()))[0].workgroup == (20, 4, 1)  # 16 + 4 columns, 4 rows


def test_shared_memory_producer_vectorized_in_shifted_tiles(target, wgpu_adapter):
    """The producer's own vector loop inside its thread loop, in tiles of a consumer that are
    shifted inwards: a bound on the producer's footprint sizes both."""
    A = hl.Buffer(ramp_image(np.float32, W + 9, H + 1, seed=62), "a")
    p, out = hl.Func("pv"), hl.Func("pv_out")
    p[x, y] = A[x, y] * 2.0 + A[x + 1, y + 1]
    out[x, y] = p[x, y] - p[x + 8, y]
    gpu_2d(out, 8, 4)
    p.compute_at(out, xo).split(x, x, xv, 4).vectorize(xv).gpu_threads(x, y)
    check(out, [W, H], target, kernels=1)


def test_shared_memory_func_with_an_update(target, wgpu_adapter):
    """A Func in workgroup memory with a pure and an update nest of threads: a barrier between
    them and before the consumer."""
    A = hl.Buffer(ramp_image(np.int32, W + 1, H + 1, seed=61) // 16, "a")
    p, out = hl.Func("shared_upd"), hl.Func("shared_upd_out")
    p[x, y] = A[x, y]
    p[x, y] = p[x, y] * 3 + x
    out[x, y] = p[x, y] - p[x + 1, y + 1]
    gpu_2d(out, 8, 4)
    p.compute_at(out, xo).gpu_threads(x, y)
    p.update(0).gpu_threads(x, y)
    check(out, [W, H], target, kernels=1)


def test_func_at_the_block_without_threads_runs_on_one_invocation(target, wgpu_adapter):
    """A Func computed at a GPU block loop with no gpu_threads of its own (Halide accepts it):
    one invocation of the workgroup computes it into workgroup memory, the others wait at a
    barrier; its update (+=) must not run once per invocation."""
    A = hl.Buffer(ramp_image(np.int32, W + 2, H + 2, seed=62) // 16, "a")
    p, out = hl.Func("serial_p"), hl.Func("serial_out")
    p[x, y] = A[x, y]
    p[x, y] += x * y
    out[x, y] = p[x, y] + p[x + 1, y + 1] * 2
    gpu_2d(out, 8, 4)
    p.compute_at(out, xo)
    check(out, [W, H], target, kernels=1)


def test_parallel_loops_inside_a_kernel_run_in_each_invocation(target, wgpu_adapter):
    """A producer computed inside the kernel with a parallel schedule of its own (a CPU
    schedule left on it): each invocation runs its loops in order, as in Halide."""
    A = hl.Buffer(ramp_image(np.int16, W + 2, H + 2, seed=63), "a")
    p, out = hl.Func("par_p"), hl.Func("par_out")
    p[x, y] = hl.i32(A[x, y]) * 3
    out[x, y] = p[x, y] + p[x + 1, y] + p[x, y + 1]
    gpu_2d(out, 8, 4)
    p.compute_at(out, xi).parallel(y)
    check(out, [W, H], target, kernels=1)


def test_func_at_an_outer_thread_loop_of_a_tile(target, wgpu_adapter):
    """compute_at the outer of two thread loops (gpu_tile's yi, with xi inside): each
    invocation computes the producer's row segment itself, in its own memory (Halide accepts
    it); the inner thread loop moves around that work."""
    A = hl.Buffer(ramp_image(np.int16, W + 4, H + 2, seed=64), "a")
    p, out = hl.Func("row_p"), hl.Func("row_out")
    p[x, y] = hl.i32(A[x, y]) * 5 - x
    out[x, y] = p[x, y] + p[x + 3, y + 1]
    gpu_2d(out, 8, 4)
    p.compute_at(out, yi)
    check(out, [W, H], target, kernels=1)


def test_thread_storage_of_a_footprint_bounded_by_modulo(target, wgpu_adapter):
    """A producer computed inside GPU thread loops whose extent is not a constant but has one
    as upper bound (max(k % 8, 7) - min(k % 8, 0) + 1 for a histogram read at (x + y) % 8, the
    differential tester's seed 733): the bound is allocated, as Halide does."""
    data = ramp_image(np.uint8, W + 4, H + 4, seed=64)
    A = hl.Buffer(data, "a")
    r = hl.RDom([(0, 9), (0, 4)], "r")
    hist, out = hl.Func("hist"), hl.Func("hist_reader")
    hist[x] = hl.u16(0)
    hist[hl.clamp(hl.i32(A[r.x, r.y]) % 24, 0, 7)] += hl.u16(1)
    out[x, y] = hist[(x + y) % 8] * hl.u16(3) + hl.u16(A[x + 1, y + 2])
    gpu_2d(out, 4, 2)
    hist.compute_at(out, xi)
    check(out, [W, H], target, kernels=1)


def test_thread_storage_without_a_constant_bound_is_reported(target, wgpu_adapter):
    """A footprint that grows with a Param has no constant bound: the error names the Func
    and Var and says what to do; the clamp it suggests makes the schedule run."""
    p = hl.Param(hl.Int(32), "stretch", 3)
    prod, out = hl.Func("stretched"), hl.Func("stretched_reader")
    prod[x] = x * 2
    out[x, y] = prod[x * p] + prod[x] + y
    gpu_2d(out, 4, 2)
    prod.compute_at(out, xi)
    with pytest.raises(hl.ScheduleError, match=r"Func stretched is stored inside GPU thread "
                       r"loops.*extent stretched\.extent\.0 \(Var x\) has no constant upper "
                       r"bound.*hl\.clamp"):
        out.realize([W, H], target)
    prod2, clamped = hl.Func("stretched_clamped"), hl.Func("clamped_reader")
    prod2[x] = x * 2
    clamped[x, y] = prod2[hl.clamp(x * p, 0, 3 * W)] + prod2[hl.clamp(x, 0, W - 1)] + y
    gpu_2d(clamped, 4, 2)
    prod2.compute_at(clamped, xi)
    check(clamped, [W, H], target, kernels=1)


# -- what the GPU does not take is reported --------------------------------------------------

def test_bool_buffer_on_the_gpu_is_reported(target, wgpu_adapter):
    mask, out = hl.Func("mask"), hl.Func("masked")
    mask[x, y] = (x + y) % 3 == 0
    out[x, y] = hl.select(mask[x, y], 1, 0)
    mask.compute_root()
    gpu_2d(mask)
    gpu_2d(out)
    with pytest.raises(hl.ScheduleError, match="bool"):
        out.realize([W, H], target)


def test_rvar_as_gpu_loop_is_reported(target, wgpu_adapter):
    r = hl.RDom([(0, W)], "r")
    f = hl.Func("rvar_blocks")
    f[x] = 0
    f[r.x] += r.x
    with pytest.raises(hl.ScheduleError):
        f.update(0).gpu_blocks(r.x)
        f.realize([W], target)


# -- random pipelines under random GPU schedules -------------------------------------------------

RANDOM_SIZE = (19, 13)
RANDOM_TYPES = {"uint8": hl.UInt(8), "int8": hl.Int(8), "uint16": hl.UInt(16),
                "int16": hl.Int(16), "uint32": hl.UInt(32), "int32": hl.Int(32),
                "float32": hl.Float(32)}
RANDOM_EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "6"))
RANDOM_EXPLORE = os.environ.get("HYPOTHESIS_EXPLORE", "") not in ("", "0")


def _photos():
    rng = np.random.default_rng(67)
    return [hl.BoundaryConditions.repeat_edge(
        hl.Buffer(rng.integers(0, 256, (16, 24), dtype=np.uint8), f"photo{i}")) for i in range(2)]


def _expressions(t: hl.Type, sources: list, depth: int = 3):
    """An Expr of type t over `sources`, x, y and constants, with bit operations, shifts and
    saturating casts. Float divisors stay away from 0: WGSL lets drivers assume no infinities
    or NaNs arise (lavapipe folds 0 * x to 0)."""
    return random_expressions(t, sources, depth, types=list(RANDOM_TYPES.values()),
                              bit_ops=True, nonzero_float_divisors=True)


@hst.composite
def _gpu_schedule(draw, f, is_update: bool = False) -> str:
    """gpu_tile (perhaps over vectors of 2 or 4), 1-D thread loops in 2-D blocks, or blocks
    alone, with any tail strategy that the stage allows."""
    tails = [hl.TailStrategy.Auto, hl.TailStrategy.GuardWithIf]
    if not is_update:
        tails.append(hl.TailStrategy.ShiftInwards)
    tail = draw(hst.sampled_from(tails))
    kind = draw(hst.sampled_from(["tile", "tile", "tile_vec", "threads_1d", "blocks_only"]))
    tx, ty = draw(hst.integers(1, 8)), draw(hst.integers(1, 8))
    if kind == "tile":
        f.gpu_tile(x, y, xo, yo, xi, yi, tx, ty, tail)
    elif kind == "tile_vec":  # at most 16 columns a tile: shifted tiles stay inside
        f.split(x, x, xv, draw(hst.sampled_from([2, 4])), tail).vectorize(xv)
        f.gpu_tile(x, y, xo, yo, xi, yi, min(tx, 4), ty, tail)
    elif kind == "threads_1d":
        f.split(x, xo, xi, tx, tail).reorder(xi, xo, y).gpu_blocks(xo, y).gpu_threads(xi)
    else:
        f.gpu_blocks(x, y)
    return kind


@hst.composite
def _random_pipelines(draw, type_names: list[str]):
    t = RANDOM_TYPES[draw(hst.sampled_from(type_names))]
    photos = _photos()
    funcs: list[hl.Func] = []
    updated = set()
    for i in range(draw(hst.integers(2, 3))):
        f = hl.Func(f"stage{i}")
        sources = [*photos, *funcs[-1:]]
        f[x, y] = draw(_expressions(t, sources))
        kind = draw(hst.sampled_from(["none", "none", "pure", "rdom"]))
        if kind == "pure":
            f[x, y] = f[x, y] * hl.cast(t, 3) - draw(_expressions(t, sources, 2))
        elif kind == "rdom":
            r = hl.RDom([(-1, 3)], "r")
            f[x, y] = f[x, y] + hl.cast(t, draw(hst.sampled_from(sources))[x + r.x, y - r.x])
        if kind != "none":
            updated.add(f.name())
        funcs.append(f)
    out = funcs[-1]
    kinds = {out.name(): draw(_gpu_schedule(out))}
    if out.name() in updated and draw(hst.booleans()):
        draw(_gpu_schedule(out.update(0), is_update=True))
    for producer, consumer in zip(reversed(funcs[:-1]), reversed(funcs[1:])):
        where = ["root_gpu", "root_cpu"]
        if producer.name() not in updated:
            where.append("inline")
        if consumer.name() not in updated and kinds.get(consumer.name()) in ("tile", "tile_vec"):
            where += ["shared", "local"]
        kind = draw(hst.sampled_from(where))
        if kind == "root_gpu":
            producer.compute_root()
            kind = draw(_gpu_schedule(producer))
            if producer.name() in updated and draw(hst.booleans()):
                draw(_gpu_schedule(producer.update(0), is_update=True))
        elif kind == "root_cpu":
            producer.compute_root().vectorize(x, 4)
        elif kind == "shared":
            producer.compute_at(consumer, xo).gpu_threads(x, y)
            if producer.name() in updated:
                producer.update(0).gpu_threads(x, y)
        elif kind == "local":
            producer.compute_at(consumer, xi)
        kinds[producer.name()] = kind
    return hl.Pipeline(out), t, kinds


@pytest.mark.parametrize("type_names", [["uint8", "int8", "uint16", "int16", "uint32", "int32"],
                                        ["float32"]], ids=["integers", "float32"])
def test_random_pipelines(target, type_names, wgpu_adapter):
    """Chains of two or three random Funcs (updates too), each on the GPU at root, on the CPU
    at root, inline, in workgroup memory or in each invocation's memory, under random GPU
    schedules. Derandomized and few (HYPOTHESIS_EXAMPLES=n for more, HYPOTHESIS_EXPLORE=1 for
    new ones)."""
    @settings(max_examples=RANDOM_EXAMPLES, deadline=None, derandomize=not RANDOM_EXPLORE,
              database=None, suppress_health_check=list(HealthCheck))
    @given(hst.data())
    def run(data):
        pipeline, t, kinds = data.draw(_random_pipelines(type_names))
        want = _realize(pipeline, RANDOM_SIZE, "reference", None)[0]
        got = _realize(pipeline, RANDOM_SIZE, target, None)[0]
        _assert_same(got, want, 1e-5, 1e-6, f"{t} pipeline {kinds} on {target}")

    run()


def test_min_max_nan_rule(target, wgpu_adapter):
    """The CPU targets' rule for NaN operands of float min and max (b < a ? b : a and
    a < b ? b : a) holds in the kernels too; WGSL's own min and max leave it open."""
    nan = np.float32(np.nan)
    a = np.tile(np.array([nan, 1, nan, 2, -1, 5, nan, 0.5], np.float32), 8)
    b = np.tile(np.array([1, nan, nan, 3, -2, 4, 0, nan], np.float32), 8)
    A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
    f = hl.Func("nan_rule")
    f[x] = hl.select(hl.is_nan(hl.min(A[x], B[x])), 100.0, hl.min(A[x], B[x])) + \
        hl.select(hl.is_nan(hl.max(A[x], B[x])), 1000.0, hl.max(A[x], B[x])) * 2.0 + \
        hl.select(hl.is_nan(hl.clamp(A[x], 0.0, 1.0)), 10000.0, 0.0)
    f.gpu_tile(x, xo, xi, 16)
    got = check(f, [64], target, kernels=1)[0]
    assert got[0] == 100.0 + 2000.0 + 10000.0 and got[1] == 1.0 + 2.0
