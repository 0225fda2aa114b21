"""Let expressions to LetStmts, for a language whose expressions cannot bind names: each Let
inside a statement's expression is computed just before that statement, under a fresh name
(so it cannot capture a name the statement uses). A Let in a Select arm or behind && or || is
then computed whichever way the condition goes: it is free of side effects."""

from __future__ import annotations

from webhal.codegen.wgsl.legalize.names import Bindings, Names
from webhal.codegen.wgsl.legalize.rewriter import Rewriter
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.visitor import rebuild, walk


def lets_to_statements(body: st.Stmt, names: Names | None = None) -> st.Stmt:
    """body with no Let expression left."""
    return _Lets(names or Names(body)).stmt(body)


class _Lets(Rewriter):
    def expr(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        if not any(isinstance(n, ir.Let) for n in walk(e)):
            return e
        return self.hoist(e, {}, b)

    def hoist(self, e: ir.Expr, renamed: dict[str, ir.Expr], b: Bindings) -> ir.Expr:
        match e:
            case ir.Let():
                value = b.bind(self.hoist(e.value, renamed, b), e.name)
                return self.hoist(e.body, {**renamed, e.name: value}, b)
            case ir.Variable():
                return renamed.get(e.name, e)
        return rebuild(e, lambda c: self.hoist(c, renamed, b))
