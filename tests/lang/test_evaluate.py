"""hl.evaluate and hl.evaluate_may_gpu: an expression without Vars computed by running it on
the JIT target (HL_JIT_TARGET), its value as a Python number."""

import numpy as np
import pytest

import webhal as hl


@pytest.fixture(params=["reference", "host"])
def jit_target(request, monkeypatch) -> str:
    monkeypatch.setenv("HL_JIT_TARGET", request.param)
    return request.param


def test_values_come_back_as_python_numbers(jit_target):
    assert hl.evaluate(hl.Expr(3) + 4) == 7 and type(hl.evaluate(hl.Expr(3) + 4)) is int
    assert hl.evaluate(hl.Expr(2.5) * 2) == 5.0
    assert hl.evaluate(hl.Expr(3) > 2) is True
    assert hl.evaluate(hl.u8(200) + hl.u8(100)) == 44  # wraps as uint8 does
    assert hl.evaluate(7) == 7


def test_a_tuple_gives_a_tuple(jit_target):
    i16, f = hl.i16(-4), hl.f32(8)
    assert hl.evaluate((i16 // 3, i16 / f, hl.Expr(1) == 1)) == (-2, -0.5, True)
    assert hl.evaluate_may_gpu((i16 % 3, f // 3)) == (2, 2.0)


def test_params_buffers_and_funcs_may_appear(jit_target):
    p = hl.Param(hl.Int(32), "p", 5)
    b = hl.Buffer(np.array([10, 20, 30], np.int32), "b")
    x = hl.Var("x")
    g = hl.Func("g")
    g[x] = x * x
    assert hl.evaluate(p + b[2] + g[3]) == 5 + 30 + 9


def test_a_free_var_is_an_error():
    x = hl.Var("x")
    with pytest.raises(hl.CompileError, match="Var x"):
        hl.evaluate(x + 1)
