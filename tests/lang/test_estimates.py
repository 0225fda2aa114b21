"""Estimates (Func.set_estimate(s), ImageParam/OutputImageParam dims, Param.set_estimate): kept
where an autoscheduler reads them, checked as Halide checks them, and changing no code."""

import pytest

import webhal as hl
from webhal.ir import nodes as ir


def _values(pairs):
    return [tuple(None if e is None else e.value for e in p) for p in pairs]


def _pipeline():
    x, y = hl.Var("x"), hl.Var("y")
    im = hl.ImageParam(hl.UInt(8), 2, "im")
    f = hl.Func("f")
    f[x, y] = im[x, y] + 1
    return x, y, im, f


def test_func_estimates_are_kept_per_pure_var_and_on_the_output_buffer():
    x, y, _, f = _pipeline()
    f.set_estimate(y, 0, 10)
    f.set_estimates([(0, 100), hl.Range(2, 200)])  # x, then y again (keeps y's place)
    f.output_buffer().dim(0).set_estimate(1, 7)
    est = f.function().schedule.estimates
    assert [e[0] for e in est] == ["y", "x"]
    assert _values([e[1:] for e in est]) == [(2, 200), (1, 7)]
    assert all(isinstance(e[1], ir.IntImm) and e[1].type == hl.Int(32) for e in est)
    assert _values([f.function().output_estimates[d] for d in (0, 1)]) == [(1, 7), (2, 200)]


def test_image_param_and_param_estimates():
    _, _, im, _ = _pipeline()
    im.set_estimates([(0, 1536), (0, 2560)])
    im.dim(1).set_estimate(4, 5).dim(0).set_stride(1)  # Dimension.dim(i) chains
    assert _values(im.estimates()) == [(0, 1536), (4, 5)]
    p = hl.Param(hl.Float(32), "p")
    assert p.estimate() is None
    p.set_estimate(2.5)
    assert p.estimate().value == 2.5 and p.estimate().type == hl.Float(32)


@pytest.mark.parametrize("bad", [
    lambda f, im: f.set_estimate(hl.Var("z"), 0, 1),
    lambda f, im: f.set_estimates([(0, 1)]),
    lambda f, im: im.set_estimates([(0, 1), (0, 2), (0, 3)]),
    lambda f, im: f.set_estimate(f.args()[0], 0.5, 4),
])
def test_bad_estimates_name_the_culprit(bad):
    _, _, im, f = _pipeline()
    with pytest.raises(hl.CompileError, match="estimate"):
        bad(f, im)


def test_estimates_change_no_lowered_code(tmp_path):
    texts = []
    for estimated in (False, True):
        x, y, im, f = _pipeline()
        if estimated:
            f.set_estimates([(0, 64), (0, 32)])
            im.set_estimates([(0, 64), (0, 32)])
        path = tmp_path / f"{estimated}.stmt"
        f.compile_to_lowered_stmt(str(path), [im], target=hl.Target("host"))
        texts.append(path.read_text())
    assert texts[0] == texts[1]
