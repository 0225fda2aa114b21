"""The Vulkan backend end to end: SPIR-V written by webhal, run by webhal's Vulkan runtime on
lavapipe (the GPU schedule suite in test_gpu_schedules.py runs on host-vulkan too) and, for the
same kernels, on SwiftShader's Vulkan driver; the vk_* features, what each allows and the
errors without them; the module's shape; the environment variables of docs/targets.md; the
files compile_to_static_library writes."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import webhal as hl
from tests.gpu import pipelines
from webhal.codegen import device_code
from webhal.codegen.spirv.spec import MAGIC
from webhal.ir.schedule import DeviceAPI
from webhal.jit import compile_jit
from webhal.lower import gather_inputs, lower
from webhal.toolchain.spirv import disassemble, validate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))


def _spirv(f, target: str) -> tuple[bytes, dict]:
    """The SPIR-V and manifest of Func f for target, straight from lowering."""
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target(target), "p")
    return device_code(module)[DeviceAPI.Vulkan]


def _same(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", ["host-vulkan", "wasm-32-wasmrt-vulkan"])
@pytest.mark.parametrize("make", pipelines.ALL, ids=lambda m: m.__name__)
def test_matches_reference(make, target, vulkan_device, request):
    if target.startswith("wasm"):
        request.getfixturevalue("wasmtime_engine")
    f, size = make()
    _same(f.realize(list(size), hl.Target(target)), f.realize(list(size), "reference"))


def test_one_module_with_an_entry_per_kernel(vulkan_device):
    f, _ = pipelines.mixed_cpu_gpu()
    binary, manifest = _spirv(f, "host-vulkan-debug")  # debug: with OpNames
    assert int.from_bytes(binary[:4], "little") == MAGIC
    text = disassemble(binary)
    assert text.count("OpEntryPoint GLCompute") == 2
    assert [k["name"] for k in manifest["kernels"]] == ["kernel_0_a", "kernel_1_out"]
    assert manifest["kernels"][1]["workgroup_size"] == [4, 4, 1]
    assert "OpExecutionMode %kernel_1_out LocalSize 4 4 1" in text
    by_name = {b["name"]: b for b in manifest["buffers"]}
    assert by_name["input"]["read_only"] and not by_name["out"]["read_only"]
    assert (manifest["vulkan_version"], manifest["spirv_version"]) == ([1, 0], [1, 0])
    json.dumps(manifest)  # plain data


@pytest.mark.parametrize("feature, versions", [("vk_v10", ([1, 0], [1, 0])),
                                               ("vk_v12", ([1, 2], [1, 5])),
                                               ("vk_v13", ([1, 3], [1, 6]))])
def test_vulkan_version_features(feature, versions, vulkan_device):
    f, size = pipelines.blur_shared_memory()
    binary, manifest = _spirv(f, f"host-vulkan-{feature}")
    assert (manifest["vulkan_version"], manifest["spirv_version"]) == versions
    validate(binary, tuple(versions[0]))
    _same(f.realize(list(size), f"host-vulkan-{feature}"), f.realize(list(size), "reference"))


def test_narrow_types_packed_without_vk_int8_and_stored_as_they_are_with_it(vulkan_device):
    f, size = pipelines.blur_u8_packed()
    packed, m1 = _spirv(f, "host-vulkan")
    native, m2 = _spirv(f, "host-vulkan-vk_int8")
    assert {b["name"]: b["packed"] for b in m1["buffers"]}["image"]
    assert not {b["name"]: b["packed"] for b in m2["buffers"]}["image"]
    assert "Int8" not in disassemble(packed) and m1["features"] == []
    text = disassemble(native)
    assert "OpCapability Int8" in text and "OpCapability StorageBuffer8BitAccess" in text
    assert m2["features"] == ["int8", "storage8"]
    want = f.realize(list(size), "reference")
    for target in ("host-vulkan", "host-vulkan-vk_int8", "host-vulkan-vk_int8-vk_int16"):
        _same(f.realize(list(size), target), want)


def test_64_bit_types_with_vk_int64_and_vk_float64(vulkan_device):
    a = hl.Buffer(np.linspace(-5, 5, 37 * 23).reshape(23, 37), "a")  # float64
    b = hl.Buffer((np.arange(37 * 23, dtype=np.int64).reshape(23, 37) - 400) * 12345678901, "b")
    f, g = hl.Func("wide_f"), hl.Func("wide_i")
    f[x, y] = hl.f64(b[x, y] // 7 + b[x, y] % 1000 - hl.i64(x) * (1 << 40)) * a[x, y] + \
        hl.sqrt(hl.abs(a[x, y]))
    g[x, y] = b[x, y] * 3 // hl.i64(y + 1) + hl.i64(a[x, y] * hl.f64(1e12)) + (b[x, y] >> 3)
    for fn in (f, g):
        fn.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
        want = np.asarray(fn.realize([37, 23], "reference"))
        got = np.asarray(fn.realize([37, 23], "host-vulkan-vk_int64-vk_float64"))
        np.testing.assert_allclose(got, want, rtol=1e-13) if want.dtype.kind == "f" else \
            np.testing.assert_array_equal(got, want)
    binary, manifest = _spirv(f, "host-vulkan-vk_int64-vk_float64")
    assert manifest["features"] == ["float64", "int64"]
    text = disassemble(binary)
    assert "OpCapability Float64" in text and "OpCapability Int64" in text


@pytest.mark.parametrize("make_type, feature", [(hl.Int(64), "vk_int64"),
                                                (hl.Float(64), "vk_float64")])
def test_a_type_the_features_do_not_allow_names_the_func_and_feature(make_type, feature):
    f = hl.Func("needs_wide")
    f[x] = hl.cast(make_type, x) * 3
    f.gpu_tile(x, xo, xi, 8)
    with pytest.raises(hl.ScheduleError, match=f"buffer needs_wide has type {make_type}.*"
                       f"needs the target feature {feature}: add -{feature}"):
        f.realize([16], "host-vulkan")


def test_float16_needs_vk_float16(vulkan_device):
    inp = hl.Buffer(np.linspace(-4, 4, 70).astype(np.float16), "half_in")
    f = hl.Func("half")
    f[x] = inp[x] * hl.f16(0.5) + hl.f16(1.25) - hl.f16(x)
    f.gpu_tile(x, xo, xi, 16)
    with pytest.raises(hl.CompileError, match="buffer half.* float16 on the GPU, which needs "
                       "the target feature vk_float16"):
        f.realize([70], "host-vulkan")
    binary, manifest = _spirv(f, "host-vulkan-vk_float16")
    assert manifest["features"] == ["float16", "storage16"]
    assert "OpCapability Float16" in disassemble(binary)
    _same(f.realize([70], "host-vulkan-vk_float16"), f.realize([70], "reference"))


def test_float64_transcendentals_are_refused_with_a_reason():
    a = hl.Buffer(np.linspace(0.1, 2, 64), "a64")
    f = hl.Func("exp64")
    f[x] = hl.exp(a[x])
    f.gpu_tile(x, xo, xi, 16)
    with pytest.raises(hl.CompileError, match="float64 math function.*float16 and float32 "
                       "only"):
        _spirv(f, "host-vulkan-vk_float64")


def test_pipelines_and_descriptor_sets_are_made_once(vulkan_device):
    f, size = pipelines.brighten()
    target = hl.Target("host-vulkan")
    compiled, _ = compile_jit(hl.Pipeline(f), target)
    f.realize(list(size), target)
    before = (list(compiled.gpu.pipelines), dict(compiled.gpu.descriptor_sets))
    f.realize(list(size), target)
    again, _ = compile_jit(hl.Pipeline(f), target)
    assert again is compiled
    assert (list(compiled.gpu.pipelines), dict(compiled.gpu.descriptor_sets)) == before


def test_spirv_dump_file_and_debug_codegen(tmp_path, vulkan_device):
    """HL_SPIRV_DUMP_FILE writes the binary module; HL_DEBUG_CODEGEN=3 prints it
    disassembled (in a child process: both are read when the module is built)."""
    dump = tmp_path / "dumped.spv"
    script = ("import webhal as hl\nfrom tests.gpu import pipelines\n"
              "f, size = pipelines.brighten()\nf.realize(list(size), 'host-vulkan')\n")
    env = dict(os.environ, HL_SPIRV_DUMP_FILE=str(dump), HL_DEBUG_CODEGEN="3")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "OpEntryPoint GLCompute" in run.stderr and "OpCapability Shader" in run.stderr
    f, _ = pipelines.brighten()
    binary, _ = _spirv(f, "host-vulkan")
    assert dump.read_bytes()[:4] == binary[:4]
    validate(dump.read_bytes())


def test_static_library_writes_spirv_and_its_manifest(tmp_path):
    f, _ = pipelines.blur_f32()
    prefix = str(tmp_path / "blur")
    images, _ = gather_inputs(hl.Pipeline(f).functions())
    f.compile_to_static_library(prefix, list(images.values()), "blur",
                                hl.Target("host-vulkan"))
    assert {p.name for p in tmp_path.iterdir()} == {"blur.a", "blur.h", "blur.spv",
                                                    "blur.spv.json"}
    binary = (tmp_path / "blur.spv").read_bytes()
    manifest = json.loads((tmp_path / "blur.spv.json").read_text())
    validate(binary, tuple(manifest["vulkan_version"]))
    assert [k["name"] for k in manifest["kernels"]] == [k["name"] for k in
                                                      _spirv(f, "host-vulkan")[1]["kernels"]]


SWIFTSHADER_SCRIPT = """
import json
import numpy as np
import webhal as hl
from tests.gpu import pipelines
from webhal.runtime.vulkan import device_name, validation_messages
out = {}
for make in pipelines.ALL:
    f, size = make()
    out[make.__name__] = np.asarray(f.realize(list(size), hl.Target("host-vulkan"))).tolist()
print(json.dumps({"device": device_name(), "results": out, "messages": validation_messages()}))
"""


@pytest.mark.slow
def test_same_kernels_on_swiftshader(vulkan_device):
    """A second Vulkan driver (Chromium's SwiftShader) runs the same SPIR-V to the same
    numbers, with the validation layer on (the loader picks its driver when the process
    starts, hence the child process)."""
    from webhal.testing import runtimes
    from webhal.toolchain import find_swiftshader_icd
    icd = runtimes.require("SwiftShader's Vulkan driver", find_swiftshader_icd).path
    env = dict(os.environ, VK_ICD_FILENAMES=icd, VK_DRIVER_FILES=icd,
               HL_VK_LAYERS="VK_LAYER_KHRONOS_validation")
    run = subprocess.run([sys.executable, "-c", SWIFTSHADER_SCRIPT], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    data = json.loads(run.stdout.strip().splitlines()[-1])
    assert "SwiftShader" in data["device"], data["device"]
    assert data["messages"] == []
    for make in pipelines.ALL:
        f, size = make()
        expected = np.asarray(f.realize(list(size), hl.Target("reference")))
        _same(np.asarray(data["results"][make.__name__], dtype=expected.dtype), expected)


@pytest.mark.parametrize("target", ["host-vulkan", "host-vulkan-vk_int8-vk_int16"])
def test_dense_vector_accesses_are_whole_vectors(target, vulkan_device):
    """As on WebGPU (passes/vector_buffers.py): a gpu_tile'd Func vectorized by 4 gets a _vec
    entry point that reads and writes its buffers through vec4 views (whole 32-bit words for
    8/16-bit elements, also where they are stored as they are) at the same bindings, which the
    host launches when the mins, strides and extent are multiples of 4, the scalar one
    otherwise: both give the reference's numbers (a wrong vector index or lane order fails)."""
    from tests.gpu.test_webgpu import _vectorized_brighten, check_vectorized_brighten
    for t, dtype, w, view in ((hl.Float(32), np.float32, 4, "OpTypeVector %float 4"),
                              (hl.Int(32), np.int32, 4, "OpTypeVector %int 4"),
                              (hl.UInt(8), np.uint8, 4, None), (hl.Int(16), np.int16, 2, None)):
        inp, f = _vectorized_brighten(t)
        binary, manifest = _spirv(f, target + "-debug")
        validate(binary, (1, 0))
        text = disassemble(binary)
        assert [k["name"] for k in manifest["kernels"]] == ["kernel_0_bright",
                                                             "kernel_0_bright_vec"]
        assert "OpDecorate %bright Binding 0" in text and "OpDecorate %input Binding 1" in text
        assert f"OpDecorate %bright_v{w} Binding 0" in text, t  # views alias those bindings
        assert f"OpDecorate %input_v{w} Binding 1" in text, t
        if view is not None:
            assert view in text and "ArrayStride 16" in text, t
        check_vectorized_brighten(inp, f, t, dtype, target)
