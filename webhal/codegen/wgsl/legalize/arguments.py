"""Scalar arguments as 32-bit words, for a kernel whose arguments arrive in a block of 4-byte
fields (webhal's runtimes pack them so: bools as 0 or 1, 8/16-bit integers zero-extended,
float16 as its bits zero-extended). An argument of another type is read from its word, under
the name `name#word`, at the top of the kernel."""

from __future__ import annotations

import dataclasses

from webhal.codegen.wgsl.legalize.nodes import constant, is_narrow
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.module import Kernel
from webhal.ir.types import Type, UInt

U32 = UInt(32)


def word_name(name: str) -> str:
    return f"{name}#word"


def arguments_as_words(kernel: Kernel) -> Kernel:
    """kernel with each scalar argument narrower than 32 bits (bools included) replaced by a
    UInt(32) one that holds it."""
    scalars, body = [], kernel.body
    for name, t in reversed(kernel.scalars):
        if t.bits >= 32:
            scalars.append((name, t))
            continue
        scalars.append((word_name(name), U32))
        body = st.LetStmt(name, _from_word(ir.Variable(U32, word_name(name)), t), body)
    if body is kernel.body:
        return kernel
    return dataclasses.replace(kernel, scalars=tuple(reversed(scalars)), body=body)


def _from_word(word: ir.Expr, t: Type) -> ir.Expr:
    if t.is_bool():
        return ir.NE(word, constant(0, U32))
    if t.is_float():
        return ir.Reinterpret(t, ir.Cast(UInt(t.bits), word))
    assert is_narrow(t), t
    return ir.Cast(t, word)
