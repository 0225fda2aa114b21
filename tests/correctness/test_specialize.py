"""Func.specialize(cond): the Stage returned schedules a copy that runs where cond holds;
specialize_fail(msg) fails where no condition holds. Same values on every target."""

import numpy as np
import pytest

import webhal as hl

x, xi = hl.Var("x"), hl.Var("xi")


def _specialized():
    p = hl.Param(hl.Int(32), "p")
    k = hl.Func("k")
    k[x] = x * p
    wide = k.specialize(p > 2)
    wide.vectorize(x, 4)
    k.specialize(p == 2).split(x, x, xi, 2).unroll(xi)
    return k, p


@pytest.mark.parametrize("value", [3, 2])
def test_each_specialization_computes_the_same(target, value):
    k, p = _specialized()
    p.set(value)
    out = k.realize([37], hl.Target(target))
    np.testing.assert_array_equal(np.asarray(out), np.arange(37) * value)


def test_the_default_schedule_runs_otherwise(target):
    k, p = _specialized()
    k.parallel(x)
    p.set(-1)
    np.testing.assert_array_equal(np.asarray(k.realize([9], hl.Target(target))),
                                  -np.arange(9))


def test_specialize_fail(target):
    k, p = _specialized()
    k.specialize_fail("p too small")
    p.set(1)
    with pytest.raises(hl.HalideError, match="specialize_fail\\(\\) was chosen: p too small"):
        k.realize([8], hl.Target(target))
    p.set(4)
    np.testing.assert_array_equal(np.asarray(k.realize([8], hl.Target(target))),
                                  np.arange(8) * 4)


def test_lowered_statement_has_the_branches(tmp_path):
    k, p = _specialized()
    k.specialize_fail("p too small")
    path = tmp_path / "k.stmt"
    k.compile_to_lowered_stmt(str(path), [p], hl.StmtOutputFormat.Text,
                              hl.Target("x86-64-linux-sse41"))
    text = path.read_text()
    assert "if ((p > 2))" in text and "if ((p == 2))" in text
    assert "halide_error_specialize_fail('p too small')" in text
    assert "ramp(" in text  # the vectorized specialization


@pytest.mark.halide
def test_specialize_returns_a_stage_as_in_halide():
    halide = pytest.importorskip("halide")
    for lib in (halide, hl):
        v = lib.Var("v")
        f = lib.Func("f")
        f[v] = v
        assert isinstance(f.specialize(lib.Param(lib.Int(32), "q") > 0), lib.Stage)
