"""webhal.analysis.boxes: the regions of Funcs and buffers that statements read and write."""

from __future__ import annotations

import pytest

from tests.analysis._brute_force import I32, var
from webhal.analysis.boxes import boxes_provided, boxes_required, boxes_touched
from webhal.analysis.intervals import Interval
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType
from webhal.ir.types import UInt

x, y, n = var("x"), var("y"), var("n")


def c(v, t=I32) -> ir.Expr:
    return ops.const(v, t)


def read(name: str, *args: ir.Expr, t=I32) -> ir.Call:
    return ir.Call(t, name, args, ir.CallType.HALIDE)


def loop(name: str, lo, extent, body: st.Stmt) -> st.For:
    return st.For(name, lo, extent, ForType.Serial, body)


def ends(box) -> list[tuple]:
    return [(ops.as_const(i.min), ops.as_const(i.max)) for i in box]


def stencil() -> st.Stmt:
    """for x in [0, 10): out(x) = f(x - 1) + f(x + 1)"""
    value = ir.Add(read("f", ir.Sub(x, c(1))), read("f", ir.Add(x, c(1))))
    return loop("x", c(0), c(10), st.Provide("out", value, (x,)))


def test_required_and_provided():
    s = stencil()
    assert ends(boxes_required(s)["f"]) == [(-1, 10)]
    assert ends(boxes_provided(s)["out"]) == [(0, 9)]
    assert "out" not in boxes_required(s) and "f" not in boxes_provided(s)
    assert set(boxes_touched(s)) == {"f", "out"}


def test_names_filter():
    assert set(boxes_required(stencil(), {"g"})) == set()
    assert set(boxes_touched(stencil(), {"out"})) == {"out"}


def test_symbolic_loop_bounds():
    s = loop("x", n, ir.Mul(n, c(2)), st.Provide("out", read("f", ir.Mul(x, c(3))), (x,)))
    box = boxes_required(s)["f"]
    assert box == [Interval(ops.mul(n, c(3)), ops.mul(ops.sub(ops.add(n, ops.mul(n, c(2))),
                                                             c(1)), c(3)))]


def test_two_dimensions_and_an_outer_scope():
    body = st.Provide("out", read("f", x, ir.Sub(y, c(2))), (x, y))
    s = loop("y", c(0), c(4), body)
    box = boxes_required(s, scope={"x": Interval(c(5), c(6))})["f"]
    assert ends(box) == [(5, 6), (-2, 1)]


def test_reads_are_merged_across_a_block():
    s = loop("x", c(0), c(4), st.block(
        st.Provide("out", read("f", x), (x,)),
        st.Evaluate(read("f", ir.Add(x, c(20))))))
    assert ends(boxes_required(s)["f"]) == [(0, 23)]


def test_if_condition_tightens_the_reads_inside():
    inner = st.IfThenElse(ir.LT(x, c(3)), st.Provide("out", read("f", x), (x,)),
                          st.Provide("out", read("g", x), (x,)))
    s = loop("x", c(0), c(10), inner)
    req = boxes_required(s)
    assert ends(req["f"]) == [(0, 2)]
    assert ends(req["g"]) == [(3, 9)]


def test_select_condition_tightens_the_reads_in_each_branch():
    value = ir.Select(ir.GE(x, c(5)), read("f", x), read("f", ir.Add(x, c(100))))
    s = loop("x", c(0), c(10), st.Provide("out", value, (x,)))
    assert ends(boxes_required(s)["f"]) == [(5, 104)]


def test_let_differences_stay_exact():
    # let lo = y * 2; let hi = y * 2 + 5: hi - lo is 5, though each ranges over [0, 23].
    hi_minus_lo = ir.Sub(var("hi"), var("lo"))
    body = st.LetStmt("lo", ir.Mul(y, c(2)), st.LetStmt(
        "hi", ir.Add(ir.Mul(y, c(2)), c(5)), st.Evaluate(read("f", hi_minus_lo))))
    s = loop("y", c(0), c(10), body)
    assert ends(boxes_required(s)["f"]) == [(5, 5)]


def test_let_expression_in_an_argument():
    arg = ir.Let("t", ir.Add(x, c(1)), ir.Mul(var("t"), c(2)))
    s = loop("x", c(0), c(4), st.Evaluate(read("f", arg)))
    assert ends(boxes_required(s)["f"]) == [(2, 8)]


def test_images_and_reads_inside_arguments():
    inner = ir.Call(I32, "idx", (x,), ir.CallType.IMAGE)
    s = loop("x", c(0), c(4), st.Evaluate(read("f", inner)))
    req = boxes_required(s)
    assert ends(req["idx"]) == [(0, 3)]
    assert req["f"] == [Interval(None, None)]  # an int32 image's values are not bounded


def test_a_narrow_index_that_may_wrap_covers_its_type():
    # lut(int32(in(x) + 10)) with uint8 in: in(x) + 10 wraps, so every lut entry may be read.
    u8 = UInt(8)
    pixel = ir.Call(u8, "in", (x,), ir.CallType.IMAGE)
    index = ir.Cast(I32, ir.Add(pixel, c(10, u8)))
    s = loop("x", c(0), c(4), st.Evaluate(read("lut", index)))
    assert ends(boxes_required(s)["lut"]) == [(0, 255)]


def test_unknown_statement():
    class Odd(st.Stmt):
        __slots__ = ()
    with pytest.raises(TypeError, match="Odd"):
        boxes_required(Odd())
