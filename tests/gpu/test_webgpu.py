"""GPU schedules on WebGPU: each pipeline on host-webgpu (LLVM JIT host code) and
wasm-32-wasmrt-webgpu (host code in wasmtime), through wgpu-py on lavapipe, against the
reference evaluator. Floats within 1e-5 relative, integers exact. Every kernel's WGSL is
validated by creating its pipeline on the device."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import webhal as hl
from tests.gpu import pipelines
from webhal.codegen import device_code
from webhal.ir.schedule import DeviceAPI
from webhal.jit import compile_jit

TARGETS = ["host-webgpu", "wasm-32-wasmrt-webgpu"]


def _compare(make, target):
    f, size = make()
    expected = np.asarray(f.realize(list(size), hl.Target("reference")))
    got = np.asarray(f.realize(list(size), hl.Target(target)))
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("make", pipelines.ALL, ids=lambda m: m.__name__)
def test_matches_reference(make, target, wgpu_adapter):
    _compare(make, target)


def test_pipeline_has_one_module_with_an_entry_per_kernel(wgpu_adapter):
    f, _ = pipelines.mixed_cpu_gpu()
    _, lowered = compile_jit(hl.Pipeline(f), hl.Target("host-webgpu"))
    wgsl, manifest = device_code(lowered)[DeviceAPI.WebGPU]
    assert [k["name"] for k in manifest["kernels"]] == ["kernel_0_a", "kernel_1_out"]
    assert wgsl.count("@compute") == 2
    assert "override kernel_1_out_wg_x: u32" in wgsl
    by_name = {b["name"]: b for b in manifest["buffers"]}
    assert by_name["input"]["read_only"] and not by_name["out"]["read_only"]
    assert manifest["kernels"][1]["workgroup_size"] == [4, 4, 1]
    json.dumps(manifest)  # plain data, for the JS runtime too


def test_float_constants_are_bit_exact(wgpu_adapter):
    inp = hl.ImageParam(hl.Float(32), 1, "input")
    f = hl.Func("scale")
    x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
    f[x] = inp[x] * hl.f32(0.1) + hl.f32(1e-7)
    f.gpu_tile(x, xo, xi, 8)
    inp.set(hl.Buffer(np.linspace(-3, 3, 64, dtype=np.float32)))
    _, lowered = compile_jit(hl.Pipeline(f), hl.Target("host-webgpu"))
    wgsl, _ = device_code(lowered)[DeviceAPI.WebGPU]
    assert "0x1.99999ap-4f" in wgsl  # float32(0.1), every bit
    expected = np.asarray(f.realize([64], "reference"))
    np.testing.assert_array_equal(np.asarray(f.realize([64], "host-webgpu")), expected)


def test_pipelines_are_created_once(wgpu_adapter):
    f, size = pipelines.brighten()
    target = hl.Target("host-webgpu")
    compiled, _ = compile_jit(hl.Pipeline(f), target)
    f.realize(list(size), target)
    pipes, groups = list(compiled.gpu.pipelines), dict(compiled.gpu.bind_groups)
    f.realize(list(size), target)
    again, _ = compile_jit(hl.Pipeline(f), target)
    assert again is compiled
    assert compiled.gpu.pipelines == pipes and compiled.gpu.bind_groups == groups


def test_packed_stores_write_whole_words(wgpu_adapter):
    def kernel_text(make):
        f, _ = make()
        _, lowered = compile_jit(hl.Pipeline(f), hl.Target("host-webgpu"))
        wgsl, manifest = device_code(lowered)[DeviceAPI.WebGPU]
        return wgsl, manifest
    packed, manifest = kernel_text(pipelines.blur_u8_packed)
    assert "atomicStore(&" in packed, "aligned vector stores should store whole words"
    assert {b["name"]: b["packed"] for b in manifest["buffers"]}["image"]
    atomic, _ = kernel_text(pipelines.blur_u8_atomic)
    assert "atomicStore(&" not in atomic and "atomicOr(&" in atomic


@pytest.mark.parametrize("target", TARGETS)
def test_straddling_packed_stores(target, wgpu_adapter):
    """Vector stores of 8- and 16-bit elements from any bit of a word (rows of 125 uint8 and
    of 127 uint16, so each row starts elsewhere in its word): the scalar kernels write each
    store's words shifted across one more word, two atomic operations on each end word and
    the words between whole, not two for every element (16 atomicAnd before, 4 now)."""
    x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(8), 2, "image")
    mid, out = hl.Func("mid"), hl.Func("out")
    mid[x, y] = hl.u16(inp[x, y]) * 257 + hl.u16(x * 3 + y)
    out[x, y] = hl.u8((mid[x, y] + mid[x + 1, y] + mid[x + 2, y]) >> 3)
    mid.compute_root().split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 8, 4)
    out.split(x, x, xv, 12).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 4, 4)
    _, lowered = compile_jit(hl.Pipeline(out), hl.Target(target))
    wgsl, _ = device_code(lowered)[DeviceAPI.WebGPU]
    assert wgsl.count("atomicAnd(") == 4, "two atomic words a straddling store, not 16"
    data = np.random.default_rng(8).integers(0, 256, (23, 127), dtype=np.uint8)
    inp.set(hl.Buffer(data))
    expected = np.asarray(out.realize([125, 23], "reference"))
    np.testing.assert_array_equal(np.asarray(out.realize([125, 23], target)), expected)


def test_shared_memory_and_barrier(wgpu_adapter):
    f, _ = pipelines.blur_shared_memory()
    _, lowered = compile_jit(hl.Pipeline(f), hl.Target("host-webgpu"))
    wgsl, manifest = device_code(lowered)[DeviceAPI.WebGPU]
    assert "var<workgroup> kernel_0_blur_y_shared_0: array<f32, 160>;" in wgsl  # 16 x (8 + 2)
    assert "workgroupBarrier();" in wgsl
    assert manifest["kernels"][0]["workgroup_size"] == [16, 10, 1]
    assert [b["name"] for b in manifest["buffers"]] == ["blur_y", "input"]


def test_serial_loop_around_thread_loops_is_reported(wgpu_adapter):
    x, y, xo, xi = (hl.Var(n) for n in ("x", "y", "xo", "xi"))
    b = hl.Func("b")
    b[x, y] = hl.f32(x + y)
    b.split(x, xo, xi, 8).gpu_blocks(y).gpu_threads(xi)  # xo: serial, between the two
    with pytest.raises(hl.ScheduleError, match="loop b.s0.x.xo runs inside GPU block loops.*"
                       "around GPU thread loops"):
        b.realize([16, 16], "host-webgpu")


def test_64_bit_types_on_gpu_are_reported(wgpu_adapter):
    x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
    f = hl.Func("wide")
    f[x] = hl.i64(x)
    f.gpu_tile(x, xo, xi, 8)
    with pytest.raises(hl.ScheduleError, match="64-bit"):
        f.realize([16], "host-webgpu")


SWIFTSHADER_SCRIPT = """
import json, sys
import numpy as np
import webhal as hl
from tests.gpu import pipelines
from webhal.runtime.webgpu import adapter_name
out = {}
for make in pipelines.ALL:
    f, size = make()
    out[make.__name__] = np.asarray(f.realize(list(size), hl.Target("host-webgpu"))).tolist()
print(json.dumps({"adapter": adapter_name(), "results": out}))
"""


@pytest.mark.slow
def test_same_wgsl_on_swiftshader(wgpu_adapter):
    """A second Vulkan driver (Chromium's SwiftShader) runs the same kernels to the same
    numbers (wgpu picks its driver when the process starts, hence the subprocess)."""
    from webhal.toolchain import find_swiftshader_icd
    icd = find_swiftshader_icd().path
    env = dict(os.environ, VK_ICD_FILENAMES=icd, VK_DRIVER_FILES=icd)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run = subprocess.run([sys.executable, "-c", SWIFTSHADER_SCRIPT], capture_output=True,
                         text=True, env=env, cwd=root, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    data = json.loads(run.stdout.strip().splitlines()[-1])
    assert "swiftshader" in data["adapter"].lower() or "SwiftShader" in data["adapter"]
    for make in pipelines.ALL:
        f, size = make()
        expected = np.asarray(f.realize(list(size), hl.Target("reference")))
        got = np.asarray(data["results"][make.__name__], dtype=expected.dtype)
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_float16_with_shader_f16(target, wgpu_adapter):
    if "shader-f16" not in wgpu_adapter.features:
        pytest.skip("the adapter has no shader-f16")
    x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
    inp = hl.ImageParam(hl.Float(16), 1, "input")
    f = hl.Func("half")
    f[x] = inp[x] * hl.f16(0.5) + hl.f16(1.25) - hl.f16(x)
    f.gpu_tile(x, xo, xi, 16)
    inp.set(hl.Buffer(np.linspace(-4, 4, 70).astype(np.float16)))
    _, lowered = compile_jit(hl.Pipeline(f), hl.Target(target))
    wgsl, manifest = device_code(lowered)[DeviceAPI.WebGPU]
    assert wgsl.startswith("enable f16;") and manifest["features"] == ["shader-f16"]
    expected = np.asarray(f.realize([70], "reference"))
    np.testing.assert_array_equal(np.asarray(f.realize([70], target)), expected)


def _vectorized_brighten(t):
    x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    inp = hl.ImageParam(t, 2, "input")
    f = hl.Func("bright")
    f[x, y] = inp[x, y] * hl.cast(t, 3) + hl.cast(t, 1)
    f.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 8, 4)
    return inp, f


def check_vectorized_brighten(inp, f, t, dtype, target) -> None:
    """_vectorized_brighten's f against numpy over aligned regions (the vector kernel runs)
    and unaligned ones (mins, widths and input crops off by one: the scalar kernel runs)."""
    rng = np.random.default_rng(1)
    data = (rng.random((40, 80)) * 100 - 50 * t.is_int()).astype(dtype)
    # (width, height, output min x, y, input crop x)
    for w, h, ox, oy, cx in [(64, 16, 0, 0, 0), (64, 16, 4, 3, 0), (64, 12, 8, 0, 4),
                             (66, 9, 0, 0, 0), (64, 16, 1, 0, 0), (64, 16, 4, 0, 1),
                             (36, 5, 0, 0, 0)]:
        image = hl.Buffer(data[:, cx:])
        image.set_min([cx, 0])
        inp.set(image)
        out = hl.Buffer(t, [w, h])
        out.set_min([ox, oy])
        f.realize(out, hl.Target(target))
        region = data[oy:oy + h, ox:ox + w]
        expected = region * 3 + 1 if t.is_float() else \
            (region.astype(np.int64) * 3 + 1).astype(dtype)  # wrapping, as the types do
        np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6,
                                   err_msg=f"{t} {(w, h, ox, oy, cx)}")


@pytest.mark.parametrize("target", TARGETS)
def test_dense_vector_accesses_are_whole_vectors(target, wgpu_adapter):
    """A gpu_tile'd Func vectorized by 4 reads and writes array<vec4<...>> views of its
    buffers when the host finds the mins, strides and extent multiples of 4, and the scalar
    kernel otherwise: both give the reference's numbers (a wrong vector index or lane order
    fails here). 8- and 16-bit elements go as whole words, 4 or 2 to a plain (not atomic) u32."""
    for t, dtype, view in ((hl.Float(32), np.float32, "v4: array<vec4<f32>>"),
                           (hl.Int(32), np.int32, "v4: array<vec4<i32>>"),
                           (hl.UInt(8), np.uint8, "w4: array<u32>"),
                           (hl.Int(16), np.int16, "w2: array<u32>")):
        inp, f = _vectorized_brighten(t)
        _, lowered = compile_jit(hl.Pipeline(f), hl.Target(target))
        wgsl, manifest = device_code(lowered)[DeviceAPI.WebGPU]
        assert f"b_0_{view};" in wgsl and f"b_1_{view};" in wgsl, t
        assert [k["name"] for k in manifest["kernels"]] == ["kernel_0_bright",
                                                             "kernel_0_bright_vec"]
        check_vectorized_brighten(inp, f, t, dtype, target)


def test_unaligned_accesses_stay_scalar(wgpu_adapter):
    """A stencil's loads at x and x + 1 cannot both be whole vectors: the input keeps scalar
    accesses, the output alone is a vector view."""
    x, y, xv = hl.Var("x"), hl.Var("y"), hl.Var("xv")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    f = hl.Func("shifted")
    f[x, y] = inp[x, y] + inp[x + 1, y]
    f.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 8, 4)
    _, lowered = compile_jit(hl.Pipeline(f), hl.Target("host-webgpu"))
    wgsl, manifest = device_code(lowered)[DeviceAPI.WebGPU]
    assert "b_0_v4" not in wgsl and "b_1_v4: array<vec4<f32>>" in wgsl
    inp.set(hl.Buffer(np.arange(33 * 5, dtype=np.float32).reshape(5, 33)))
    expected = np.asarray(f.realize([32, 5], "reference"))
    np.testing.assert_array_equal(np.asarray(f.realize([32, 5], "host-webgpu")), expected)
