"""An inline reduction (hl.sum, product, maximum, minimum) is a hidden Func with an update; as in
Halide, it is computed at the innermost loop of the stage that uses it, so a producer it reads
may be computed at a loop of that consumer (inp.compute_at(out, xo)). webhal computed it at root
and refused that schedule. Expected values from numpy; the Halide test runs the same."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

W, H = 11, 3
KINDS = ["sum", "product", "maximum", "minimum"]


def _build(m, kind: str, vectorized: bool, through_inlined: bool):
    x, y, xo, xi = m.Var("x"), m.Var("y"), m.Var("xo"), m.Var("xi")
    inp = m.Func("inp")
    inp[x, y] = x + y * 3 - 4
    r = m.RDom([(-1, 3)])
    value = getattr(m, kind)(inp[x + r.x, y])
    out = m.Func("out")
    if through_inlined:
        mid = m.Func("mid")
        mid[x, y] = value * 2
        out[x, y] = mid[x, y] + 1
    else:
        out[x, y] = value
    out.split(x, xo, xi, 4)
    if vectorized:
        out.vectorize(xi)
    inp.compute_at(out, xo)
    return out


def _expected(kind: str, through_inlined: bool) -> np.ndarray:
    xs, ys = np.arange(W)[:, None], np.arange(H)[None, :]
    window = np.stack([xs + dx + ys * 3 - 4 for dx in (-1, 0, 1)])
    v = {"sum": window.sum(0), "product": window.prod(0), "maximum": window.max(0),
         "minimum": window.min(0)}[kind]
    return (v * 2 + 1 if through_inlined else v).astype(np.int32)


@pytest.mark.parametrize("through_inlined", [False, True], ids=["direct", "through_inlined"])
@pytest.mark.parametrize("vectorized", [False, True], ids=["scalar", "vectorized"])
@pytest.mark.parametrize("kind", KINDS)
def test_inline_reduction_reads_a_producer_computed_in_its_consumer(target, kind, vectorized,
                                                                    through_inlined):
    out = _build(hl, kind, vectorized, through_inlined)
    check(out, [W, H], target, expected=_expected(kind, through_inlined))


@pytest.mark.halide
@pytest.mark.parametrize("kind", KINDS)
def test_the_same_schedule_in_halide(kind):
    halide = pytest.importorskip("halide")
    out = _build(halide, kind, True, True)
    got = np.asarray(out.realize([W, H])).T  # Halide's buffers read back in numpy's order
    np.testing.assert_array_equal(got, _expected(kind, True))
