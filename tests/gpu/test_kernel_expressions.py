"""How GPU kernels compute their expressions, on WebGPU (WGSL, wgpu-py on lavapipe; each module
also created on dawn.node by tests/conftest.py) and on Vulkan (SPIR-V, webhal's runtime on
lavapipe): a subexpression repeated in one statement (an inlined Func read several times) is
computed once (codegen/wgsl/legalize/cse.py), and a division or modulo by a power of two is a
shift or a mask, with Halide's rounding for negative numbers."""

import numpy as np
import pytest

import webhal as hl
from webhal.codegen import device_code
from webhal.codegen.wgsl.legalize.cse import common_subexpressions
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.schedule import DeviceAPI
from webhal.ir.types import Float, Int
from webhal.jit import compile_jit
from webhal.toolchain.spirv import disassemble

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
TARGETS = ["host-webgpu", "host-vulkan"]


def _code(f, target: str) -> str:
    """The kernels' text: WGSL, or the disassembled SPIR-V."""
    _, lowered = compile_jit(hl.Pipeline(f), hl.Target(target))
    if "vulkan" in target:
        return disassemble(device_code(lowered)[DeviceAPI.Vulkan][0])
    return device_code(lowered)[DeviceAPI.WebGPU][0]


@pytest.mark.parametrize("target", TARGETS)
def test_repeated_subexpressions_computed_once(target, request):
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    inp = hl.ImageParam(hl.Float(32), 1, "input")
    g = hl.Func("g")
    g[x] = hl.exp(inp[x] * 0.5)
    f = hl.Func("f")
    f[x] = g[x] * g[x] + g[x] / (g[x] + 1.0) + hl.sqrt(g[x])
    f.gpu_tile(x, xo, xi, 16)
    code = _code(f, target)
    if "vulkan" in target:
        assert code.count("OpLoad %float") == 1 and code.count(" Exp ") == 1, code
    else:
        body = code[code.index("fn kernel_0_f("):]
        assert body.count("b_1[") == 1 and body.count("exp(") == 1, body
    data = np.linspace(-3, 3, 70).astype(np.float32)
    inp.set(hl.Buffer(data))
    np.testing.assert_allclose(np.asarray(f.realize([70], target)),
                               np.asarray(f.realize([70], "reference")), rtol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_division_by_powers_of_two(target, request):
    """x / 2^k rounds down and x % 2^k is never negative, as Halide's, for signed and unsigned
    values (int16 ones widened to 32 bits first), with no general division left."""
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    for t, dtype in ((hl.Int(32), np.int32), (hl.UInt(32), np.uint32), (hl.Int(16), np.int16)):
        inp = hl.ImageParam(t, 1, "input")
        f = hl.Func("f")
        f[x] = (inp[x] / hl.cast(t, 1) + inp[x] / hl.cast(t, 2) + inp[x] / hl.cast(t, 8)
                + inp[x] % hl.cast(t, 4) + inp[x] % hl.cast(t, 1) + inp[x] % hl.cast(t, 16))
        f.gpu_tile(x, xo, xi, 16)
        code = _code(f, target)
        if "vulkan" in target:
            assert "SDiv" not in code and "UDiv" not in code and "UMod" not in code, t
            assert "ShiftRight" in code and "OpBitwiseAnd" in code, t
        else:
            body = code[code.index("fn kernel_0_f("):]
            assert "hl_div" not in body and "hl_mod" not in body and " >> 3u)" in body, t
        info = np.iinfo(dtype)
        data = np.concatenate([np.arange(-40, 40), [info.min, info.min + 1, info.max,
                                                    info.max - 1]]).astype(dtype)
        inp.set(hl.Buffer(data))
        np.testing.assert_array_equal(np.asarray(f.realize([len(data)], target)),
                                      np.asarray(f.realize([len(data)], "reference")),
                                      err_msg=str(t))


def test_cse_tells_signed_zeros_apart():
    """x + 0.0 and x + -0.0 differ (for x = -0.0): the pass shares only what is equal."""
    v = ir.Variable(Float(32), "v")
    plus, minus = ir.Add(v, ir.FloatImm(Float(32), 0.0)), ir.Add(v, ir.FloatImm(Float(32), -0.0))
    index = ir.IntImm(Int(32), 0)
    body = common_subexpressions(st.Store("out", ir.Div(ir.Mul(plus, plus), minus), index))
    assert isinstance(body, st.LetStmt) and body.value == plus, body
    assert isinstance(body.body, st.Store) and body.body.value.b == minus, body
