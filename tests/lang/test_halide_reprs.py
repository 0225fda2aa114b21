"""repr() and str() in Halide's words (its Python tests compare them), object by object against
PyPI halide; and the undefined objects Halide's no-argument constructors make."""

import pytest

import webhal as hl
from tests.halide_peer import require

(halide,) = require("halide")


def _objects(lib):
    x = lib.Var("x")
    f = lib.Func("f")
    f[x] = x
    r = lib.RDom([(0, 3), (1, 4)], "r")
    return {
        "Var": x, "Type": lib.Int(32), "vector Type": lib.Int(32).with_lanes(8),
        "Target": lib.Target("x86-64-linux-sse41"), "Func": f, "Pipeline": lib.Pipeline([f]),
        "Param": lib.Param(lib.UInt(8), "offset"), "Expr": lib.Expr(x) + 1,
        "Tuple": lib.Tuple([x, x + 1]), "RDom": r, "RVar": r.y, "name-only RVar": lib.RVar("ri"),
        "ImageParam": lib.ImageParam(lib.UInt(16), 2, "input"),
        "undefined ImageParam": lib.ImageParam(), "undefined RDom": lib.RDom(),
        "undefined Pipeline": lib.Pipeline(), "undefined OutputImageParam": lib.OutputImageParam(),
    }


MINE, HALIDES = _objects(hl), _objects(halide)


# str() of an Expr, Param or RVar stays webhal's (the expression's text), where Halide's is its
# repr; Halide's tests compare str() of these only.
STR_AS_HALIDE = ["Var", "Type", "vector Type", "Target", "ImageParam", "undefined ImageParam",
                 "undefined RDom", "undefined Pipeline", "undefined OutputImageParam", "RDom"]


@pytest.mark.parametrize("what", list(MINE))
def test_repr_as_halide(what):
    assert repr(MINE[what]) == repr(HALIDES[what])


@pytest.mark.parametrize("what", STR_AS_HALIDE)
def test_str_as_halide(what):
    assert str(MINE[what]) == str(HALIDES[what])


def test_output_buffer_repr():
    """As Halide's (whose name may carry a $n suffix where it made the name unique)."""
    import re
    reprs = []
    for lib in (hl, halide):
        x, y = lib.Var("x"), lib.Var("y")
        f = lib.Func("output_buffer_repr")
        f[x, y] = lib.f32(x + y)
        reprs.append(repr(f.output_buffer()))
    assert reprs[0] == "<halide.OutputImageParam 'output_buffer_repr', dims: 2, type: float32>"
    assert re.fullmatch(r"<halide.OutputImageParam 'output_buffer_repr(\$\d+)?', dims: 2, "
                        r"type: float32>", reprs[1]), reprs[1]


def test_undefined_objects_are_named_when_used():
    assert not hl.RDom().defined() and not hl.Pipeline().defined()
    assert not hl.OutputImageParam().defined()
    with pytest.raises(hl.CompileError, match=r"this RDom is undefined \(hl.RDom\(\) without a "
                       "region\\); make it with one"):
        hl.RDom().dimensions()
    with pytest.raises(hl.CompileError, match="this Pipeline is undefined"):
        hl.Pipeline().realize([3])
    with pytest.raises(hl.CompileError, match="this OutputImageParam is undefined"):
        hl.OutputImageParam().dim(0)
