"""Pipeline.add_requirement: checked before the pipeline runs on every target; a failure is a
HalideError "Requirement Failed: (condition) message" with the message's values."""

import numpy as np
import pytest

import webhal as hl

x = hl.Var("x")


def _required():
    p = hl.Param(hl.Int(32), "p")
    inp = hl.ImageParam(hl.Float(32), 1, "inp")
    k = hl.Func("k")
    k[x] = inp[x] * hl.f32(p)
    pipeline = hl.Pipeline(k)
    pipeline.add_requirement(p < 3, "p must be small,", p, "half", hl.f32(p) / 2)
    pipeline.add_requirement(inp.width() >= 4, "inp is too narrow:", inp.width())
    inp.set(hl.Buffer(np.arange(5, dtype=np.float32)))
    return pipeline, p, inp


def test_requirements_met(target):
    pipeline, p, _ = _required()
    p.set(2)
    np.testing.assert_array_equal(np.asarray(pipeline.realize([3], hl.Target(target))),
                                  [0, 2, 4])


def test_requirement_on_a_param_fails(target):
    pipeline, p, _ = _required()
    p.set(5)
    with pytest.raises(hl.HalideError) as e:
        pipeline.realize([3], hl.Target(target))
    assert str(e.value).startswith("Error: Requirement Failed: (p < 3) p must be small, 5 half "
                                   "2.500000")


def test_requirement_on_an_input_size_fails(target):
    pipeline, p, inp = _required()
    p.set(1)
    inp.set(hl.Buffer(np.arange(3, dtype=np.float32)))
    with pytest.raises(hl.HalideError, match="inp is too narrow: 3"):
        pipeline.realize([3], hl.Target(target))
