"""A Func fused (fuse(x, y, xy)) and computed at the tile loop of an output split with
GuardWithIf, reading a Func computed at root (a reduction, an inline one, or a pure Func of an
input Buffer just large enough): the root Func's region comes through the fused loop's % and /
by an extent that varies with the tile (the last one is shorter), which bounds inference could
not bound ("cannot infer the bounds of Func sum0"). Expected values from numpy; the Halide test
runs the same schedules."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

W, H = 10, 3
KINDS = ["update", "pure_of_buffer", "inline_sum_read_twice", "inline_sums_in_the_fused_loop"]
# Wide enough for Halide, whose region of A here is larger than webhal's (the last tile's whole
# extent, not the guarded part of it).
DATA = np.arange((W + 8) * H, dtype=np.int32).reshape(H, W + 8)


def _build(m, kind: str):
    x, y, xy, xo, xi = m.Var("x"), m.Var("y"), m.Var("xy"), m.Var("xo"), m.Var("xi")
    A = m.Buffer(DATA, "A")
    r = m.RDom([(0, 3)])
    f = m.Func("f")
    if kind == "update":
        g = m.Func("g")
        g[x, y] = 0
        g[x, y] += A[x + r.x, y]
        g.compute_root()
        f[x, y] = g[x, y]
    elif kind == "pure_of_buffer":
        g = m.Func("g")
        g[x, y] = A[x, y] * 3
        g.compute_root()
        f[x, y] = g[x, y]
    elif kind == "inline_sums_in_the_fused_loop":
        # Each sum is computed inside f's fused loop (where it is used), reading a producer
        # computed at the tile loop, in a tile guarded in both dimensions.
        inp = m.Func("inp")
        inp[x, y] = x * 2 - y * 3
        f[x, y] = m.sum(inp[x + r.x, y]) + m.sum(inp[x, y + r.x])
    else:
        # Read by two stages (f's and out's), the inline reduction is computed at root.
        s = m.sum(A[x + r.x, y])
        mid = m.Func("mid")
        mid[x, y] = s
        f[x, y] = mid[x, y] * 2
    out = m.Func("out")
    if kind == "inline_sum_read_twice":
        out[x, y] = f[x, y] + f[x + 1, y] + mid[x, y]
    else:
        out[x, y] = f[x, y] + f[x + 1, y]
    if kind == "inline_sums_in_the_fused_loop":
        yo, yi = m.Var("yo"), m.Var("yi")
        out.tile(x, y, xo, yo, xi, yi, 4, 2, m.TailStrategy.GuardWithIf)
        inp.compute_at(out, xo)
    else:
        out.split(x, xo, xi, 4, m.TailStrategy.GuardWithIf)
    f.fuse(x, y, xy)
    f.compute_at(out, xo)
    return out


def _expected(kind: str) -> np.ndarray:
    a = DATA.T.astype(np.int64)  # x first
    if kind == "inline_sums_in_the_fused_loop":
        xs, ys = np.arange(W)[:, None], np.arange(H)[None, :]
        return (24 * xs + 6 - 36 * ys).astype(np.int32)  # f is 12x - 18y - 3
    if kind == "pure_of_buffer":
        fv = a[:W + 1] * 3
    else:
        fv = a[:W + 1] + a[1:W + 2] + a[2:W + 3]
        if kind == "inline_sum_read_twice":
            fv = fv * 2
    out = fv[:W] + fv[1:W + 1]
    if kind == "inline_sum_read_twice":
        out = out + fv[:W] // 2  # mid, which is half of f
    return out.astype(np.int32)


@pytest.mark.parametrize("kind", KINDS)
def test_fused_producer_in_a_guarded_tile(target, kind):
    check(_build(hl, kind), [W, H], target, expected=_expected(kind))


@pytest.mark.halide
@pytest.mark.parametrize("kind", [k for k in KINDS if k != "inline_sum_read_twice"])
def test_the_same_schedules_in_halide(kind):
    # (Halide's region of A for inline_sum_read_twice is wider than A, rows from -4: its bounds
    # of the fused loop's / are looser than webhal's.)
    halide = pytest.importorskip("halide")
    got = np.asarray(_build(halide, kind).realize([W, H])).T
    np.testing.assert_array_equal(got, _expected(kind))
