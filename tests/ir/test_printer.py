"""webhal.ir.printer: the text of every expression and statement node."""

from __future__ import annotations

import pytest

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.module import Kernel
from webhal.ir.printer import stmt_to_string, to_string
from webhal.ir.schedule import ForType
from webhal.ir.types import Bool, Float, Int, UInt

I32, U8, F32 = Int(32), UInt(8), Float(32)
x, y = ops.var("x"), ops.var("y")


@pytest.mark.parametrize("e, text", [
    (ir.IntImm(I32, -3), "-3"),
    (ir.IntImm(Int(16), 5), "(int16)5"),
    (ir.UIntImm(U8, 200), "(uint8)200"),
    (ir.UIntImm(Bool(), 1), "true"),
    (ir.UIntImm(Bool(), 0), "false"),
    (ir.FloatImm(F32, 0.5), "0.5f"),
    (ir.FloatImm(Float(64), 2.0), "(float64)2.0"),
    (ir.StringImm("it's"), '"it\'s"'),
    (ir.Cast(U8, x), "uint8(x)"),
    (ir.Cast(Int(16, 8), ir.Broadcast(x, 8)), "int16x8(x8(x))"),
    (ir.Reinterpret(UInt(32), ir.Variable(F32, "f")), "reinterpret<uint32>(f)"),
    (ir.Add(x, ir.Mul(y, ops.const(2))), "(x + (y * 2))"),
    (ir.Sub(x, y), "(x - y)"),
    (ir.Div(x, y), "(x / y)"),
    (ir.Mod(x, y), "(x % y)"),
    (ir.Min(x, ir.Max(y, ops.const(0))), "min(x, max(y, 0))"),
    (ir.EQ(x, y), "(x == y)"),
    (ir.NE(x, y), "(x != y)"),
    (ir.LT(x, y), "(x < y)"),
    (ir.LE(x, y), "(x <= y)"),
    (ir.GT(x, y), "(x > y)"),
    (ir.GE(x, y), "(x >= y)"),
    (ir.And(ir.LT(x, y), ir.Or(ir.EQ(x, y), ir.Not(ir.GT(x, y)))),
     "((x < y) && ((x == y) || !(x > y)))"),
    (ir.Select(ir.LT(x, y), x, y), "select((x < y), x, y)"),
    (ir.Call(I32, "f", (x, y), ir.CallType.HALIDE), "f(x, y)"),
    (ir.Call(I32, "absd", (x, y), ir.CallType.INTRINSIC), "absd(x, y)"),
    (ir.Let("t", ir.Add(x, ops.const(1)), ir.Mul(ops.var("t"), ops.var("t"))),
     "(let t = (x + 1) in (t * t))"),
    (ir.Ramp(x, ops.const(2), 4), "ramp(x, 2, 4)"),
    (ir.Broadcast(ops.const(1), 4), "x4(1)"),
    (ir.Load(U8, "buf", ir.Add(x, ops.const(1))), "buf[(x + 1)]"),
])
def test_expressions(e, text):
    assert to_string(e) == text


def test_unknown_nodes_are_refused():
    with pytest.raises(TypeError):
        to_string(object())
    with pytest.raises(TypeError):
        stmt_to_string(object())


def test_statements():
    one = ops.const(1)
    kernel = Kernel("kernel_0_f", (), st.Evaluate(one))
    body = st.block(
        st.AssertStmt(ir.LT(x, y), ir.Call(I32, "halide_error", (), ir.CallType.RUNTIME)),
        st.LetStmt("n", ir.Mul(y, ops.const(2)), st.Realize(
            "f", I32, ((ops.const(0), ops.var("n")),), st.ProducerConsumer("f", True, st.For(
                "x", ops.const(0), ops.var("n"), ForType.Vectorized,
                st.Provide("f", ir.Add(x, one), (x,)))), fold=(0, 4))),
        st.IfThenElse(ir.GT(y, one), st.Evaluate(x), st.Evaluate(y)),
        st.IfThenElse(ir.GT(y, one), st.Evaluate(x)),
        st.Allocate("tmp", U8, ops.const(16), st.Store(
            "tmp", ir.Cast(U8, x), ops.const(3), ir.LT(x, y))),
        st.Store("out", ops.const(2), y),
        st.ProducerConsumer("f", False, st.GPULaunch(
            0, (ops.const(4), one, one), (x, y), kernel)),
        st.GPULaunch(1, (one, one, one), ()),
    )
    assert stmt_to_string(body) == """\
assert((x < y), halide_error())
let n = (y * 2)
realize f([0, n]) fold dim 0 by 4 {
  produce f {
    vectorized (x, 0, n) {
      f(x) = (x + 1)
    }
  }
}
if ((y > 1)) {
  x
} else {
  y
}
if ((y > 1)) {
  x
}
allocate tmp[uint8 * 16]
tmp[3] = uint8(x) if (x < y)
free tmp
out[y] = 2
consume f {
  gpu_launch kernel 0 kernel_0_f <<<4, 1, 1>>>(x, y)
}
gpu_launch kernel 1 <<<1, 1, 1>>>()
"""


def test_indentation_argument():
    assert stmt_to_string(st.Evaluate(x), 2) == "    x\n"
