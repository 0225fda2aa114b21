"""Vectorized integer sums move their broadcasts outwards and merge them, as Halide's simplifier
does: `(v - x8(k*256)) + x8(1792)` (a lookup table's index, the table's min subtracted) is
`v + x8(1792 - k*256)`, one vector add whose broadcast is computed outside the vector loop."""

from __future__ import annotations

import numpy as np
import pytest

import webhal as hl
from tests.passes.steps import pass_steps
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.printer import to_string
from webhal.ir.types import Float, Int
from webhal.ir.visitor import walk
from webhal.passes.vectorize import _combine


def _vector(t, lanes=8):
    return ir.Load(t.with_lanes(lanes), "buf", ir.Ramp(ops.var("i"), ops.const(1), lanes))


@pytest.mark.parametrize("inner, outer, want", [
    (ir.Sub, ir.Add, (ir.Add, "(1792 - k)")),
    (ir.Add, ir.Add, (ir.Add, "(k + 1792)")),
    (ir.Add, ir.Sub, (ir.Add, "(k - 1792)")),
    (ir.Sub, ir.Sub, (ir.Sub, "(k + 1792)")),
])
def test_broadcasts_merge(inner, outer, want):
    v = _vector(Int(32))
    k = ops.var("k")
    e = _combine(outer, _combine(inner, v, k), ops.const(1792))
    node, scalar = want
    assert type(e) is node and e.a is v and isinstance(e.b, ir.Broadcast)
    assert to_string(e.b.value) == scalar


def test_float_sums_keep_their_order():
    """Float additions round at each step: (v - b) + c is not v + (c - b)."""
    v = _vector(Float(32))
    e = _combine(ir.Add, _combine(ir.Sub, v, ops.var("f", Float(32))),
                 ops.const(1.5, Float(32)))
    assert isinstance(e, ir.Add) and isinstance(e.a, ir.Sub)


def _vectorized(out, target):
    for name, _, _, after in pass_steps(out, target):
        if name == "vectorize":
            return after
    raise AssertionError("no vectorize pass")


def _table_lookup():
    """out(x, k) = table(clamp(in(x), 0, 64) - 16 * k): the table's min is -48, so its flat
    index is `(v - x8(k*16)) + x8(48)` before the merge."""
    x, k = hl.Var("x"), hl.Var("k")
    inp = hl.ImageParam(hl.Int(32), 1, "inp")
    table, out = hl.Func("table"), hl.Func("out")
    table[x] = x * 3 + 1
    out[x, k] = table[hl.clamp(inp[x], 0, 64) - 16 * k]
    table.compute_root()
    out.bound(k, 0, 4).vectorize(x, 8)
    return inp, out


def test_table_index_is_one_add_of_a_broadcast():
    _, out = _table_lookup()
    s = _vectorized(out, "x86-64-linux-sse41-no_asserts")
    loads = [n for n in walk(s) if isinstance(n, ir.Load) and n.name == "table"
             and n.type.lanes == 8]
    assert loads
    for load in loads:
        idx = load.index
        assert isinstance(idx, ir.Add) and isinstance(idx.b, ir.Broadcast), idx
        assert not isinstance(idx.a, ir.Add | ir.Sub) or \
            not isinstance(idx.a.b, ir.Broadcast), idx


@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt-wasm_simd128"])
def test_table_lookup_values(target):
    inp, out = _table_lookup()
    data = np.array([-5, 0, 3, 17, 64, 70, 33, 1, 2, 60, 48, 16, 9, 100, -1, 40, 12],
                    dtype=np.int32)
    inp.set(hl.Buffer(data))
    got = np.asarray(out.realize([len(data), 4], hl.Target(target)))
    k = np.arange(4)[:, None]
    want = (np.clip(data, 0, 64)[None, :] - 16 * k) * 3 + 1
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt-wasm_simd128"])
def test_wrapping_uint8_sums(target):
    """uint8 lanes wrap: (v - k) + 200 and (v + k) - 250 with v + k past 255 or below 0."""
    x = hl.Var("x")
    inp = hl.ImageParam(hl.UInt(8), 1, "inp")
    k = hl.Param(hl.UInt(8), "k")
    out = hl.Func("out")
    out[x] = (inp[x] - k + hl.u8(200)) ^ (inp[x] + k - hl.u8(250))
    out.vectorize(x, 16)
    data = np.arange(0, 256, 7, dtype=np.uint8)[:32]
    inp.set(hl.Buffer(data))
    k.set(77)
    got = np.asarray(out.realize([len(data)], hl.Target(target)))
    d = data.astype(np.int64)
    want = (((d - 77 + 200) % 256) ^ ((d + 77 - 250) % 256)).astype(np.uint8)
    np.testing.assert_array_equal(got, want)
