"""Float multiply-adds are fused where Halide fuses them: on x86 with FMA (the host here) unless
the target has strict_float; never on wasm (SIMD128 has no fused instruction). The values are
Halide's bit for bit on the host (its JIT fuses) and the once-rounded a * b + c, worked out
with numpy in float64 (exact for these operands); strict_float and wasm give the twice-rounded
value."""

from __future__ import annotations

import numpy as np
import pytest

import webhal as hl
from tests.correctness.conftest import _require_target, fused_multiply_add
from tests.halide_peer import require

halide, = require("halide")

N = 1003  # a vector body and a scalar tail


def _operands():
    rng = np.random.default_rng(31)
    a = rng.uniform(1, 2, N).astype(np.float32)
    b = rng.uniform(1, 2, N).astype(np.float32)
    c = -rng.uniform(1, 4, N).astype(np.float32)
    return a, b, c


def _fused(a, b, c):
    # a * b is exact in float64 (48 bits) and so is its sum with c of a near magnitude (the
    # exponents differ by 3 at most): one rounding, to float32.
    return (a.astype(np.float64) * b + c).astype(np.float32)


def _unfused(a, b, c):
    return (a * b).astype(np.float32) + c


def _pipeline(lib, a, b, c, vectorize: bool):
    x = lib.Var("x")
    f = lib.Func("f")
    ins = [lib.Buffer(v) for v in (a, b, c)]
    f[x] = ins[0][x] * ins[1][x] + ins[2][x]
    if vectorize:
        f.vectorize(x, 8)
    return f


def _host_has_fma() -> bool:
    return fused_multiply_add("host")


def test_operands_tell_fused_from_unfused():
    a, b, c = _operands()
    assert np.count_nonzero(_fused(a, b, c) != _unfused(a, b, c)) > N // 10


@pytest.mark.parametrize("vectorize", [False, True])
def test_host_fuses_as_halide_does(vectorize):
    if not _host_has_fma():
        pytest.skip("this machine's CPU has no FMA")
    a, b, c = _operands()
    got = np.asarray(_pipeline(hl, a, b, c, vectorize).realize([N], hl.Target("host")))
    theirs = np.asarray(_pipeline(halide, a, b, c, vectorize).realize(
        [N], halide.get_jit_target_from_environment()))
    assert np.array_equal(theirs, _fused(a, b, c)), "Halide's JIT does not fuse here"
    assert np.array_equal(got, theirs)


@pytest.mark.parametrize("target", ["host-strict_float", "wasm-32-wasmrt-wasm_simd128",
                                    "wasm-32-wasmrt"])
@pytest.mark.parametrize("vectorize", [False, True])
def test_strict_float_and_wasm_round_twice(request, target, vectorize):
    _require_target(request, target)
    a, b, c = _operands()
    got = np.asarray(_pipeline(hl, a, b, c, vectorize).realize([N], hl.Target(target)))
    assert np.array_equal(got, _unfused(a, b, c))
    if target == "host-strict_float":
        strict = halide.get_jit_target_from_environment().with_feature(
            halide.TargetFeature.StrictFloat)
        theirs = np.asarray(_pipeline(halide, a, b, c, vectorize).realize([N], strict))
        assert np.array_equal(got, theirs)
