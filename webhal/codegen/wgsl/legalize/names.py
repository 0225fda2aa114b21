"""Fresh names and statement-level bindings, shared by the legalization passes."""

from __future__ import annotations

import dataclasses
import re

from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.visitor import walk

# Lowering never puts '#' in a name, so `hint#N` cannot capture a name it made.
_SUFFIX = re.compile(r"#(\d+)$")


class Names:
    """Fresh names `hint#N` for one kernel body, N above every such name already in it (so that
    passes run one after another never reuse one)."""

    def __init__(self, body: st.Stmt):
        used = [int(m.group(1)) for n in walk(body)
                if isinstance(getattr(n, "name", None), str) and (m := _SUFFIX.search(n.name))]
        self.count = max(used, default=0)

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"{_SUFFIX.sub('', hint)}#{self.count}"


def is_trivial(e: ir.Expr) -> bool:
    """Whether e costs nothing to repeat: a variable or a constant."""
    return isinstance(e, ir.Variable | ir.IntImm | ir.UIntImm | ir.FloatImm | ir.StringImm)


class Bindings:
    """Values computed once, before the statement being rewritten: `bind` names a value and
    `around` wraps the statement in LetStmts of them, in the order they were bound."""

    def __init__(self, names: Names):
        self.names = names
        self.pairs: list[tuple[str, ir.Expr]] = []

    def bind(self, e: ir.Expr, hint: str = "t") -> ir.Expr:
        if is_trivial(e):
            return e
        name = self.names.fresh(hint)
        self.pairs.append((name, e))
        return ir.Variable(e.type, name)

    def around(self, s: st.Stmt) -> st.Stmt:
        for name, value in reversed(self.pairs):
            s = st.LetStmt(name, value, s)
        self.pairs = []
        return s


def leaf_key(v):
    """v as part of a structural key: floats told apart by their text (-0.0 == 0.0 in Python)."""
    return ("float", repr(v)) if isinstance(v, float) else v


def structural_key(e):
    """A hashable key, equal for structurally equal IR (whatever objects hold it)."""
    if isinstance(e, tuple):
        return tuple(structural_key(x) for x in e)
    if isinstance(e, ir.Expr):
        return (type(e),) + tuple(structural_key(getattr(e, f.name))
                                  for f in dataclasses.fields(e) if f.compare)
    return leaf_key(e)
