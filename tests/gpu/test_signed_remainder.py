"""Signed division and modulo in GPU kernels never use a signed remainder instruction.

Vulkan leaves OpSRem and OpSMod undefined when an operand is negative (without
VK_KHR_maintenance8), and NVIDIA's driver computes them as unsigned remainders: `-1 % 3` gave 0,
`97 % -24` gave 97 (gfx-rs/wgpu#8191). naga prints WGSL's `%` of i32 as OpSRem, so both of
webhal's GPU paths compute the remainder as `a - (a / b) * b` (OpSDiv is defined for every sign).
Found by `python -m tests.differential --gpu` on an NVIDIA H200: about a quarter of the random
GPU seeds gave other values than Halide on host-webgpu and host-vulkan; lavapipe computes OpSRem
as signed, so the values below agree there with the old code too, and the code checks are what
fail before the fix."""

import re

import numpy as np
import pytest

import webhal as hl
from webhal.codegen import device_code
from webhal.ir.schedule import DeviceAPI
from webhal.lower import lower

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
INT_MIN = np.iinfo(np.int32).min
A = np.array([-41, -24, -5, -2, -1, 0, 1, 2, 5, 24, 41, 97, INT_MIN, INT_MIN + 1,
              2**31 - 1, -1000003 * 24], dtype=np.int32)
B = np.array([7, -7, 24, -24, -3, 3, 0, -1, 1, -1, 0, -24, -1, 7, -7, -24], dtype=np.int32)


def _pipeline(divisor):
    """[a / d, a % d] over the inputs, d a constant or the input B; on the GPU."""
    a, b = hl.Buffer(A, "a"), hl.Buffer(B, "b")
    d = b[x] if divisor is None else hl.cast(hl.Int(32), divisor)
    f = hl.Func("f")
    c = hl.Var("c")
    f[x, c] = hl.select(c == 0, a[x] / d, a[x] % d)
    f.split(x, xo, xi, 8, hl.TailStrategy.GuardWithIf).gpu_blocks(xo).gpu_threads(xi)
    return f


def _want(divisor) -> np.ndarray:
    """Halide's Euclidean division: the remainder never negative, 0 for a zero divisor,
    INT_MIN / -1 wraps."""
    out = np.zeros((2, len(A)), np.int64)
    for i, (a, b) in enumerate(zip(A.astype(np.int64), B.astype(np.int64))):
        d = b if divisor is None else divisor
        if d == 0:
            continue
        r = a % abs(d)
        q = (a - r) // d
        out[:, i] = [q, r]
    return ((out + 2**31) % 2**32 - 2**31).astype(np.int32)


DIVISORS = [None, 24, -24, 7, -3, -1]


@pytest.mark.parametrize("divisor", DIVISORS)
def test_wgsl_has_no_signed_remainder(divisor):
    f = _pipeline(divisor)
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target("host-webgpu"), "p")
    wgsl = device_code(module)[DeviceAPI.WebGPU][0]
    # `%` is left only for unsigned operands (hl_mod_u32); every i32 remainder is a - q * b
    lines = [line for line in wgsl.splitlines() if re.search(r"[^%]%[^%]", line)]
    assert all(line.startswith("fn hl_mod_u32") for line in lines), lines


@pytest.mark.parametrize("divisor", DIVISORS)
def test_spirv_has_no_signed_remainder(divisor):
    from webhal.toolchain.spirv import disassemble
    f = _pipeline(divisor)
    module = lower([f.function()], hl.Pipeline(f).functions(), hl.Target("host-vulkan-debug"),
                   "p")
    text = disassemble(device_code(module)[DeviceAPI.Vulkan][0])
    assert "OpSDiv" in text
    assert "OpSRem" not in text and "OpSMod" not in text


@pytest.mark.parametrize("divisor", DIVISORS)
def test_reference_gives_euclidean_values(divisor):
    got = np.asarray(_pipeline(divisor).realize([len(A), 2], hl.Target("reference")))
    np.testing.assert_array_equal(got, _want(divisor))


@pytest.mark.parametrize("divisor", DIVISORS)
def test_webgpu_values(divisor, wgpu_adapter):
    got = np.asarray(_pipeline(divisor).realize([len(A), 2], hl.Target("host-webgpu")))
    np.testing.assert_array_equal(got, _want(divisor))


@pytest.mark.parametrize("divisor", DIVISORS)
def test_vulkan_values(divisor, vulkan_device):
    got = np.asarray(_pipeline(divisor).realize([len(A), 2], hl.Target("host-vulkan")))
    np.testing.assert_array_equal(got, _want(divisor))
