"""Generated code of a few pipelines (lowered statements, wasm assembly, WGSL, SPIR-V through
spirv-dis) against files in tests/golden/files, so that a change in
what webhal emits shows in review. Regenerate with WEBHAL_UPDATE_GOLDEN=1."""

import os
import re

import pytest

import webhal as hl
from tests.aot.pipelines import blur_u16, brighten_f32, histogram_u8
from tests.gpu import pipelines as gpu_pipelines
from webhal.codegen import device_code
from webhal.ir.schedule import DeviceAPI
from webhal.lower import lower

FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")
UPDATE = os.environ.get("WEBHAL_UPDATE_GOLDEN", "") not in ("", "0")
SIMD = hl.Target("wasm-32-wasmrt-wasm_simd128")


def _check(name: str, text: str) -> None:
    path = os.path.join(FILES, name)
    if UPDATE or not os.path.exists(path):
        if not UPDATE:
            pytest.fail(f"no golden file {name}; run with WEBHAL_UPDATE_GOLDEN=1 to create it")
        with open(path, "w") as f:
            f.write(text)
        return
    with open(path) as f:
        expected = f.read()
    assert text == expected, f"{name} changed; if intended, WEBHAL_UPDATE_GOLDEN=1 updates it"


def _emit(kind: str, make, tmp_path) -> str:
    out, inputs = make()
    path = str(tmp_path / f"out.{kind}")
    getattr(out, {"stmt": "compile_to_lowered_stmt", "s": "compile_to_assembly"}[kind])(
        path, inputs, make.__name__, SIMD)
    with open(path) as f:
        return f.read()


@pytest.mark.parametrize("make", [blur_u16, brighten_f32, histogram_u8])
def test_lowered_stmt(make, tmp_path):
    _check(f"{make.__name__}.stmt", _emit("stmt", make, tmp_path))


@pytest.mark.parametrize("make", [blur_u16, brighten_f32])
def test_wasm_assembly(make, tmp_path):
    _check(f"{make.__name__}.wasm_simd128.s", _emit("s", make, tmp_path))


def test_blur_assembly_uses_simd128(tmp_path):
    asm = _emit("s", blur_u16, tmp_path)
    assert re.search(r"\bv128\.load\b", asm), "the blur should load whole vectors"
    assert re.search(r"\bi16x8\.add\b", asm), "the blur should add eight uint16 lanes at once"
    assert re.search(r"\bv128\.store\b", asm)


def _wgsl(make) -> str:
    """The WGSL of a GPU pipeline, straight from lowering: no adapter is needed."""
    f, _ = make()
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target("host-webgpu"), "p")
    return device_code(module)[DeviceAPI.WebGPU][0]


@pytest.mark.parametrize("name", ["blur_u8_packed", "blur_shared_memory", "brighten"])
def test_wgsl(name):
    _check(f"{name}.wgsl", _wgsl(getattr(gpu_pipelines, name)))


def _spirv(make, target: str) -> str:
    """The disassembled SPIR-V of a GPU pipeline (spirv-dis), straight from lowering."""
    from webhal.toolchain.spirv import disassemble
    f, _ = make()
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target(target), "p")
    return disassemble(device_code(module)[DeviceAPI.Vulkan][0])


# (pipeline, target): the default SPIR-V 1.0 with packed narrow words, native 8-bit storage,
# and SPIR-V 1.6 with workgroup memory and the full entry point interface
SPIRV_CASES = [("brighten", "host-vulkan-debug"), ("blur_u8_packed", "host-vulkan-vk_int8-debug"),
               ("blur_shared_memory", "host-vulkan-vk_v13-debug")]


@pytest.mark.parametrize("name, target", SPIRV_CASES)
def test_spirv(name, target):
    _check(f"{name}.{target.removeprefix('host-').removesuffix('-debug')}.spvasm",
           _spirv(getattr(gpu_pipelines, name), target))


def test_spirv_names_are_stripped_without_debug():
    from webhal.toolchain.spirv import disassemble
    f, _ = gpu_pipelines.brighten()
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target("host-vulkan"), "p")
    stripped = device_code(module)[DeviceAPI.Vulkan][0]
    assert "OpName" not in disassemble(stripped, raw_ids=True)
    named = _spirv(gpu_pipelines.brighten, "host-vulkan-debug")
    assert 'OpName %kernel_0_brighten "kernel_0_brighten"' in named
