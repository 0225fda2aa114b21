"""vectorize(x, n, GuardWithIf): outputs as wide as the vector, narrower, one lane more and two
vectors and a lane, for a pure stage, a split whose inner loop is vectorized, a tile and an update's
pure Var (one with an RDom loop inside). The loop outside the vector loop is partitioned
(partition_loops): a steady state where every lane passes the guard, stored as whole vectors,
and a guarded tail."""

import os

import numpy as np
import pytest

import webhal as hl

from .conftest import check, ramp_image

x, y, xo, xi = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xi")
yo, yi = hl.Var("yo"), hl.Var("yi")
GUARD = hl.TailStrategy.GuardWithIf
IN = hl.Buffer(ramp_image(np.uint8, 40, 5, seed=3), "in")


def _pipeline() -> hl.Pipeline:
    pure = hl.Func("pure")
    pure[x, y] = IN[x, y] + IN[x + 1, y] * 3
    pure.vectorize(x, 16, GUARD)
    split = hl.Func("split")
    split[x, y] = hl.cast(hl.UInt(16), IN[x, y]) * IN[x + 1, y]
    split.split(x, xo, xi, 8, GUARD).vectorize(xi, 4, GUARD)
    tile = hl.Func("tile")
    tile[x, y] = IN[x, y] - IN[x + 1, y + 1]
    tile.tile(x, y, xo, yo, xi, yi, 8, 2, GUARD).vectorize(xi)
    update = hl.Func("update")
    update[x, y] = hl.cast(hl.Int(32), IN[x, y])
    update[x, y] = update[x, y] * 5 - IN[x + 1, y]
    update.vectorize(x, 16, GUARD)
    update.update(0).vectorize(x, 16, GUARD)
    r = hl.RDom([(0, 3)])
    update[x, y] += hl.cast(hl.Int(32), IN[x + r.x, y])  # an RDom loop inside the vectors
    update.update(1).vectorize(x, 8, GUARD)
    return hl.Pipeline([pure, split, tile, update])


@pytest.mark.parametrize("width", [1, 15, 16, 17, 33])
def test_guard_with_if_vectors(target, width):
    check(_pipeline(), [width, 3], target)


def test_steady_state_stores_vectors(tmp_path):
    inp = hl.ImageParam(hl.UInt(8), 2, "inp")
    f = hl.Func("f")
    f[x, y] = inp[x, y] + inp[x + 1, y]
    f.vectorize(x, 16, GUARD)
    g = hl.Func("g")
    g[x, y] = f[x, y]
    g[x, y] = g[x, y] * 2
    g.update(0).vectorize(x, 8, GUARD)
    t = hl.Func("t")  # the guarded loop (xo) is outside the vector loop's parent (yi)
    t[x, y] = inp[x, y] * 2
    t.tile(x, y, xo, yo, xi, yi, 4, 4, GUARD).vectorize(xi)
    path = os.path.join(tmp_path, "gw.stmt")
    target = hl.Target("wasm-32-wasmrt-wasm_simd128")
    hl.Pipeline([f, g, t]).compile_to_lowered_stmt(path, [inp], hl.StmtOutputFormat.Text, target)
    text = open(path).read()
    assert "f[ramp(" in text and ", 1, 16)] = " in text  # the pure stage's steady state
    assert "g[ramp(" in text and ", 1, 8)] = " in text  # the update's
    assert "t[ramp(" in text and ", 1, 4)] = " in text
    assert "if (likely(" in text  # the tails keep their guards
