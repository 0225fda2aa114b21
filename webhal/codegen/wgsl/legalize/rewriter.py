"""A statement walk for passes that rewrite expressions and may need values computed first."""

from __future__ import annotations

import dataclasses

from webhal.codegen.wgsl.legalize.names import Bindings, Names
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import stmt as st


class Rewriter:
    """Rebuilds a kernel body. Each statement's own expressions go through `expr`, and the
    values `expr` binds are computed just before that statement (in LetStmts around it); nested
    statements go through `stmt` again. A statement comes back as the same object when nothing
    in it changed."""

    def __init__(self, names: Names):
        self.names = names

    def expr(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        return e

    def stmt(self, s: st.Stmt) -> st.Stmt:
        b = Bindings(self.names)
        match s:
            case st.Block():
                new = _replace(s, stmts=self.block(s.stmts))
            case st.LetStmt():
                new = _replace(s, value=self.expr(s.value, b), body=self.stmt(s.body))
            case st.For():
                new = _replace(s, min=self.expr(s.min, b), extent=self.expr(s.extent, b),
                               body=self.stmt(s.body))
            case st.IfThenElse():
                new = _replace(s, condition=self.expr(s.condition, b),
                               then_case=self.stmt(s.then_case),
                               else_case=None if s.else_case is None else self.stmt(s.else_case))
            case st.Store():
                new = self.store(s, b)
            case st.Evaluate():
                new = _replace(s, value=self.expr(s.value, b))
            case st.Allocate():
                new = _replace(s, size=self.expr(s.size, b), body=self.stmt(s.body))
            case st.ProducerConsumer():
                new = _replace(s, body=self.stmt(s.body))
            case _:
                raise CompileError(f"GPU code generation cannot handle {type(s).__name__} "
                                   "inside a kernel")
        return b.around(new)

    def block(self, stmts: tuple[st.Stmt, ...]) -> tuple[st.Stmt, ...]:
        return tuple(self.stmt(x) for x in stmts)

    def store(self, s: st.Store, b: Bindings) -> st.Stmt:
        if s.predicate is not None:
            raise CompileError("GPU code generation has no predicated stores")
        return _replace(s, value=self.expr(s.value, b), index=self.expr(s.index, b))


def _replace(node, **fields):
    """node with fields replaced, or node itself when every new value is the old one."""
    changed = {k: v for k, v in fields.items() if not _same(v, getattr(node, k))}
    return dataclasses.replace(node, **changed) if changed else node


def _same(new, old) -> bool:
    if isinstance(new, tuple) and isinstance(old, tuple):
        return len(new) == len(old) and all(a is b for a, b in zip(new, old))
    return new is old
