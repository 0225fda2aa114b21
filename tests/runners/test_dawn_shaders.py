"""The dawn.node shader checker: Dawn's compiler (Tint) accepts what webhal emits and rejects,
with the line, what naga lets through; kernels beyond the adapter's limits are named."""

import numpy as np
import pytest

import webhal as hl
from webhal.codegen import device_code
from webhal.errors import ToolchainError
from webhal.ir.schedule import DeviceAPI
from webhal.lower import lower
from webhal.runners.dawn_shaders import DawnShaderChecker

x, y, xi, yi = hl.Var("x"), hl.Var("y"), hl.Var("xi"), hl.Var("yi")


def _wgsl(f: hl.Func) -> tuple[str, dict]:
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target("host-webgpu"), "p")
    return device_code(module)[DeviceAPI.WebGPU]


def test_a_nan_constant_expression_is_rejected_with_its_line(dawn_shader_checker):
    # naga accepts this; Tint does not (WGSL has no NaN in constant expressions).
    code = "fn f() -> f32 {\n  return bitcast<f32>(0x7fc00000u);\n}\n"
    verdict = dawn_shader_checker.check(code, {})
    assert len(verdict.errors) == 1
    assert verdict.errors[0].startswith("2:10: ") and "nan" in verdict.errors[0]


def test_infinities_and_nan_in_a_kernel_are_valid(dawn_shader_checker):
    inp = hl.Buffer(np.zeros((4, 8), np.float32), "inp")
    f = hl.Func("specials")
    f[x, y] = hl.select(inp[x, y] > 0, hl.f32(np.inf), hl.f32(-np.inf)) + \
        hl.select(inp[x, y] < 0, hl.f32(np.nan), 0.0) + hl.pow(inp[x, y], 0.5)
    f.gpu_tile(x, y, xi, yi, 8, 4)
    source, manifest = _wgsl(f)
    assert "0x7f800000" in source and "0xff800000" in source and "0x7fc00000" in source
    assert dawn_shader_checker.check(source, manifest).errors == ()


def test_a_workgroup_beyond_the_adapters_limit_is_named_not_rejected(dawn_shader_checker):
    inp = hl.Buffer(np.zeros((64, 64), np.int32), "inp")
    f = hl.Func("wide")
    f[x, y] = inp[x, y] + 1
    f.gpu_tile(x, y, xi, yi, 32, 32)  # 1024 invocations: SwiftShader allows 256
    verdict = dawn_shader_checker.check(*_wgsl(f))
    assert verdict.errors == ()
    assert any("1024 invocations" in u and "maxComputeInvocationsPerWorkgroup" in u
               for u in verdict.unsupported)


def test_the_checker_survives_a_bad_module(dawn_shader_checker):
    assert dawn_shader_checker.check("fn f( {", {}).errors
    assert dawn_shader_checker.check("fn f() {}\n", {}).errors == ()


def test_a_checker_out_of_time_names_the_wait_and_recovers(dawn_node):
    inp = hl.Buffer(np.zeros((64, 64), np.int32), "inp")
    f = hl.Func("slow")
    f[x, y] = inp[x, y] * 3
    f.gpu_tile(x, y, xi, yi, 8, 8)
    source, manifest = _wgsl(f)
    kernels = len(manifest["kernels"])
    with DawnShaderChecker(timeout_s=0, kernel_s=0) as checker:  # no time to answer at all
        with pytest.raises(ToolchainError, match="too busy") as e:
            checker.check(source, manifest)
        assert f"answered nothing in 0 s (a module of {kernels} kernels)" in str(e.value)
        checker.timeout_s, checker.kernel_s = 60, 5
        assert checker.check(source, manifest).errors == ()  # a new process answers
