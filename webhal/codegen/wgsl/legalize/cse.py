"""Common subexpressions of a kernel's statements computed once.

Lowering inlines Funcs into their consumers, so one statement of a GPU kernel can repeat a load
and the arithmetic over it many times (the local Laplacian's output level repeats its
intensity-level lookup, a floor and a float-to-int conversion of a load, in each of its 20
uses). Each repeated subexpression of a statement (its expressions together: a store's value
and index) that is not a variable or a constant becomes a LetStmt before the statement, inner
ones first, and its uses read that name. Loads are repeated values too: nothing in one
statement's expressions writes memory. Calls other than pure intrinsics and math functions
(atomics, runtime calls) are never shared, nor is anything containing one, nor vectors (those
that remain are scalarize's whole-vector accesses, bound already).

Across statements, a LetStmt's value is its name in the statements it encloses (and a LetStmt
that only renames a variable is replaced by that variable there): an expression
equal to it (structurally, after the same replacement inside it) reads the name instead. That
holds everywhere inside for a value that reads no memory, and for one that loads only until
memory may change: along the LetStmt's chain of bodies and the expressions of the statement
that ends it (a Store's value and index are computed before it writes), not into nested
statements nor past a value that calls an atomic. (scalarize's lanes of a vector
read-modify-write, the bilateral grid's histogram, bind the same index once for the loads and
again for the stores.)"""

from __future__ import annotations

import dataclasses

from webhal.codegen.wgsl.legalize.names import Bindings, Names, is_trivial, leaf_key
from webhal.codegen.wgsl.legalize.nodes import is_impure_call
from webhal.codegen.wgsl.legalize.rewriter import Rewriter, _replace
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.visitor import rebuild, walk


def common_subexpressions(body: st.Stmt, names: Names | None = None) -> st.Stmt:
    """body with each statement's repeated subexpressions bound once before it."""
    return _CSE(names or Names(body)).stmt(body)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.compare)
    return names


class _Table:
    """Structural numbering of the expressions of one statement: equal subexpressions get the
    same number (whatever object holds them); `count` says how often each occurs, counting
    the inside of a repeated subexpression once; `eligible` which may be shared."""

    def __init__(self):
        self.numbers: dict = {}       # structural key -> number
        self.of: dict[int, int] = {}  # id(node) -> number
        self.count: dict[int, int] = {}
        self.impure: dict[int, bool] = {}
        self.eligible: dict[int, bool] = {}
        self.nodes: list = []  # keeps the nodes numbered alive (their ids stay theirs)

    def number(self, e: ir.Expr) -> int:
        n = self.of.get(id(e))
        if n is not None:
            return n
        key = [type(e)]
        impure = is_impure_call(e)
        for name in _field_names(type(e)):
            v = getattr(e, name)
            if isinstance(v, ir.Expr):
                c = self.number(v)
                key.append(c)
                impure = impure or self.impure[c]
            elif isinstance(v, tuple):
                parts = []
                for x in v:
                    if isinstance(x, ir.Expr):
                        c = self.number(x)
                        parts.append(c)
                        impure = impure or self.impure[c]
                    else:
                        parts.append(leaf_key(x))
                key.append(tuple(parts))
            else:
                key.append(leaf_key(v))
        n = self.numbers.setdefault(tuple(key), len(self.numbers))
        self.of[id(e)] = n
        self.nodes.append(e)
        self.impure[n] = impure
        self.eligible[n] = not impure and e.type.lanes == 1 and not is_trivial(e)
        return n

    def occur(self, e: ir.Expr) -> None:
        n = self.number(e)
        self.count[n] = self.count.get(n, 0) + 1
        if self.count[n] == 1:
            for name in _field_names(type(e)):
                v = getattr(e, name)
                if isinstance(v, ir.Expr):
                    self.occur(v)
                elif isinstance(v, tuple):
                    for x in v:
                        if isinstance(x, ir.Expr):
                            self.occur(x)


class _CSE(Rewriter):
    def __init__(self, names: Names):
        super().__init__(names)
        # structural key of a LetStmt's value -> (its Variable, whether it reads no memory),
        # for the statements it encloses (see the module's docstring)
        self.known: dict = {}
        self.chain = False  # whether the statement being rewritten is a LetStmt's body

    def stmt(self, s: st.Stmt) -> st.Stmt:
        outer = self.known
        self.known = dict(outer) if self.chain else {k: v for k, v in outer.items() if v[1]}
        self.chain = False
        try:
            if isinstance(s, st.For):
                self.forget(s.name)
            if not isinstance(s, st.LetStmt):
                return super().stmt(s)
            b = Bindings(self.names)
            value, key = s.value, None
            if not any(isinstance(n, ir.Let) for n in walk(s.value)):
                value, key = self.known_names(s.value)
                if any(isinstance(n, ir.Variable) and n.name == s.name for n in walk(value)):
                    value = s.value  # a name bound again (lowering repeats some): as it was
            self.forget(s.name)
            new = self.shared([value], b)[0]
            if isinstance(value, ir.Variable) and value.name != s.name:
                # another name for a value: its uses read that one (and so compare equal to
                # expressions built over it)
                own = ir.Variable(s.value.type, s.name)
                self.known[self.known_names(own)[1]] = (value, True,
                                                        frozenset((s.name, value.name)))
            elif any(is_impure_call(n) for n in walk(value)):
                # memory may change: values that load are no longer known
                self.known = {k: v for k, v in self.known.items() if v[1]}
            elif key is not None and key not in self.known and not is_trivial(value) \
                    and s.value.type.lanes == 1:
                loads = any(isinstance(n, ir.Load) for n in walk(value))
                uses = frozenset(n.name for n in walk(s.value) if isinstance(n, ir.Variable))
                self.known[key] = (ir.Variable(s.value.type, s.name), not loads, uses | {s.name})
            value = new
            self.chain = True
            return b.around(_replace(s, value=value, body=self.stmt(s.body)))
        finally:
            self.known, self.chain = outer, False

    def forget(self, name: str) -> None:
        """Drop the known values that `name`, bound again, changes (or names)."""
        self.known = {k: v for k, v in self.known.items() if name not in v[2]}

    def known_names(self, e: ir.Expr) -> tuple[ir.Expr, tuple]:
        """(e with each subexpression equal to a known value replaced by its name, outermost
        first; e's structural key, a variable that renames another keyed as that one)."""
        memo: dict[int, tuple] = {}

        def go(x):
            got = memo.get(id(x))
            if got is not None:
                return got
            key, changed = [type(x)], {}
            for name in _field_names(type(x)):
                v = getattr(x, name)
                if isinstance(v, ir.Expr):
                    new, k = go(v)
                    key.append(k)
                    if new is not v:
                        changed[name] = new
                elif isinstance(v, tuple):
                    parts, keys = [], []
                    for y in v:
                        if isinstance(y, ir.Expr):
                            new, k = go(y)
                            parts.append(new)
                            keys.append(k)
                        else:
                            parts.append(y)
                            keys.append(leaf_key(y))
                    key.append(tuple(keys))
                    if any(p is not y for p, y in zip(parts, v)):
                        changed[name] = tuple(parts)
                else:
                    key.append(leaf_key(v))
            key = tuple(key)
            hit = self.known.get(key)
            if hit is None:
                node = dataclasses.replace(x, **changed) if changed else x
            else:
                node = hit[0]
                if isinstance(x, ir.Variable):  # another name for a variable: keyed as it
                    key = (type(node),) + tuple(leaf_key(getattr(node, f))
                                                for f in _field_names(type(node)))
            memo[id(x)] = (node, key)
            return node, key
        return go(e)

    def shared(self, exprs: list[ir.Expr], b: Bindings) -> list[ir.Expr]:
        """exprs with the subexpressions they repeat bound in b (each once), those equal to a
        known LetStmt value replaced by its name first."""
        if any(isinstance(n, ir.Let) for e in exprs for n in walk(e)):
            return exprs  # names scoped inside an expression: left as they are
        if self.known:
            exprs = [self.known_names(e)[0] for e in exprs]
        table = _Table()
        for e in exprs:
            table.occur(e)
        if all(c < 2 for c in table.count.values()):
            return exprs
        bound: dict[int, ir.Expr] = {}

        def rewrite(e):
            if not isinstance(e, ir.Expr):
                return e
            n = table.of[id(e)]
            if n in bound:
                return bound[n]
            new = rebuild(e, rewrite)
            if table.count.get(n, 0) >= 2 and table.eligible[n]:
                new = bound[n] = b.bind(new, "cse")
            return new
        return [rewrite(e) for e in exprs]

    def expr(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        return self.shared([e], b)[0]

    def store(self, s: st.Store, b: Bindings) -> st.Stmt:
        value, index = self.shared([s.value, s.index], b)
        return _replace(s, value=value, index=index)
