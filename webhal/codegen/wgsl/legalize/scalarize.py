"""Vectors to scalars, for a language without vector types (or, as WGSL here, without vectors
as wide as the ones vectorized loops make): every vector statement becomes one statement per
lane.

A vector LetStmt becomes one LetStmt per lane; a vector Store becomes one Store per lane, all
of whose values are computed before the first is stored (a lane may read the element that
another lane's store replaces). Each intermediate lane value is bound once (to a LetStmt) and
shared by the lanes and operations that use it; so is each vector subexpression that occurs more
than once in a statement (an inlined stencil repeats its loads and their index arithmetic). Lane
i of Ramp(base, stride) is `base + stride * i`, in the ramp's own type (so narrow types wrap as
they would in a vector)."""

from __future__ import annotations

import dataclasses

from webhal.codegen.wgsl.legalize.names import Bindings, Names
from webhal.codegen.wgsl.legalize.nodes import intrinsic, is_narrow
from webhal.codegen.wgsl.legalize.rewriter import Rewriter
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.types import Type, UInt
from webhal.ir.visitor import children, rebuild, walk

U32 = UInt(32)

# What a name stands for while rewriting: its lanes (a vector) or its new scalar value.
Env = dict[str, "list[ir.Expr] | ir.Expr"]


# The intrinsics that remain for buffers accessed as whole vectors (`vector`: name -> width):
# a vector made of scalar lanes, and one lane of a vector (the lane a constant).
MAKE_VECTOR = "make_vector"
VECTOR_LANE = "vector_lane"


def scalarize(body: st.Stmt, names: Names | None = None,
              vector: dict[str, int] | None = None) -> st.Stmt:
    """body with no vector-typed expression left, but the accesses to the buffers in `vector`
    (name -> width w), whose indices are dense ramps at multiples of w (passes/vector_buffers
    proved it, or the host tests it before the launch): each is made of w-wide Loads and Stores
    at index base / w, bound to LetStmts, whose lanes are VECTOR_LANE calls; a stored vector is
    a MAKE_VECTOR call of computed lanes. A buffer of 8/16-bit elements is read and written as
    UInt(32) words of w elements instead (shifts and masks; pack_storage leaves them be)."""
    return _Scalarize(names or Names(body), vector or {}).stmt(body)


def _has_vector(e: ir.Expr) -> bool:
    return any(isinstance(n, ir.Expr) and n.type.lanes > 1 for n in walk(e))


class _Scalarize(Rewriter):
    def __init__(self, names: Names, vector: dict[str, int]):
        super().__init__(names)
        self.vector = vector
        self.env: Env = {}  # vector LetStmts in scope
        # The lanes of each vector subexpression taken apart so far, by value, for the
        # Bindings and the env it was taken apart in (both kept, so that their ids stay theirs).
        self.seen: dict[tuple, tuple[Env, Bindings, list[ir.Expr]]] = {}

    def stmt(self, s: st.Stmt) -> st.Stmt:
        if isinstance(s, st.LetStmt | st.For) and s.name in self.env:
            saved, self.env = self.env, {k: v for k, v in self.env.items() if k != s.name}
            try:
                return self.stmt(s)
            finally:
                self.env = saved
        if isinstance(s, st.LetStmt) and s.value.type.lanes > 1:
            b = Bindings(self.names)
            lanes = [b.bind(v, s.name) for v in self.lanes(s.value, self.env, b)]
            saved, self.env = self.env, {**self.env, s.name: lanes}
            try:
                return b.around(self.stmt(s.body))
            finally:
                self.env = saved
        return super().stmt(s)

    def store(self, s: st.Store, b: Bindings) -> st.Stmt:
        if s.value.type.lanes == 1:
            return super().store(s, b)
        if s.predicate is not None:
            raise CompileError("GPU code generation has no predicated stores")
        values = self.bound_lanes(s.value, self.env, b)
        indices = self.lanes(s.index, self.env, b)
        w = self.vector.get(s.name)
        if w is not None and is_narrow(s.value.type):
            return st.Block(tuple(
                st.Store(s.name, _word_of(values[j:j + w]), _vector_index(indices[0], j, w))
                for j in range(0, len(values), w)))
        if w is not None:
            t = s.value.type.element_of().with_lanes(w)
            return st.Block(tuple(
                st.Store(s.name, intrinsic(t, MAKE_VECTOR, *values[j:j + w]),
                         _vector_index(indices[0], j, w))
                for j in range(0, len(values), w)))
        return st.Block(tuple(st.Store(s.name, v, i) for v, i in zip(values, indices)))

    def expr(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        if e.type.lanes > 1:
            raise CompileError(f"a vector value where a scalar is needed: {to_string(e)}")
        # A scalar statement's expression refers to no vector LetStmt; only a vector inside
        # it (under a Let) needs taking apart.
        return self.scalar(e, {}, b) if _has_vector(e) else e

    # -- expressions ---------------------------------------------------------------------------

    def scalar(self, e: ir.Expr, env: Env, b: Bindings) -> ir.Expr:
        """Scalar e with the names in env replaced (and any vector inside it taken apart)."""
        match e:
            case ir.Variable() if e.name in env:
                return env[e.name]
            case ir.Let() if e.value.type.lanes > 1:
                return self.scalar(e.body, self.bind_let(e, env, b), b)
            case ir.Let():
                inner = {k: v for k, v in env.items() if k != e.name}
                return ir.Let(e.name, self.scalar(e.value, env, b), self.scalar(e.body, inner, b))
        return rebuild(e, lambda c: self.scalar(c, env, b))

    def bind_let(self, e: ir.Let, env: Env, b: Bindings) -> Env:
        """env with e's name standing for e's value, computed once."""
        if e.value.type.lanes > 1:
            value = [b.bind(v, e.name) for v in self.lanes(e.value, env, b)]
        else:
            value = b.bind(self.scalar(e.value, env, b), e.name)
        return {**env, e.name: value}

    def bound_lanes(self, e: ir.Expr, env: Env, b: Bindings) -> list[ir.Expr]:
        """The lanes of vector e, bound: once per statement for each value e has there."""
        key = (e, id(env), id(b))
        hit = self.seen.get(key)
        if hit is not None and hit[0] is env and hit[1] is b:
            return hit[2]
        lanes = [b.bind(v) for v in self.lanes(e, env, b)]
        self.seen[key] = (env, b, lanes)
        return lanes

    def lanes(self, e: ir.Expr, env: Env, b: Bindings) -> list[ir.Expr]:
        """One scalar expression per lane of vector e."""
        n = e.type.lanes
        match e:
            case ir.Broadcast():
                return [b.bind(self.scalar(e.value, env, b))] * n
            case ir.Ramp():
                base = b.bind(self.scalar(e.base, env, b))
                stride = b.bind(self.scalar(e.stride, env, b))
                t = base.type
                return [base] + [ops.add(base, ops.mul(stride, ops.const(i, t)))
                                 for i in range(1, n)]
            case ir.Variable():
                if not isinstance(env.get(e.name), list):
                    raise CompileError(f"vector {e.name} is not available in the kernel")
                return env[e.name]
            case ir.Let():
                return self.lanes(e.body, self.bind_let(e, env, b), b)
            case ir.Load():
                if e.predicate is not None:
                    raise CompileError("GPU code generation has no predicated loads")
                indices = self.lanes(e.index, env, b)
                w = self.vector.get(e.name)
                if w is not None and is_narrow(e.type):
                    out = []
                    for j in range(0, n, w):
                        word = b.bind(ir.Load(U32, e.name, _vector_index(indices[0], j, w)))
                        out += [_element_of(word, e.type.element_of(), i) for i in range(w)]
                    return out
                if w is not None:
                    t = e.type.element_of()
                    out = []
                    for j in range(0, n, w):
                        v = b.bind(ir.Load(t.with_lanes(w), e.name,
                                           _vector_index(indices[0], j, w)))
                        out += [intrinsic(t, VECTOR_LANE, v, ops.const(i)) for i in range(w)]
                    return out
                return [ir.Load(e.type.element_of(), e.name, i) for i in indices]
        # Any other node: its children's lanes once each, then the node per lane over them.
        per_child = [self.bound_lanes(c, env, b) if c.type.lanes > 1
                     else [b.bind(self.scalar(c, env, b))] * n for c in children(e)]
        if not per_child:
            raise CompileError(f"GPU code generation cannot take apart {to_string(e)}")
        return [_lane(e, row) for row in zip(*per_child)]


def _vector_index(base: ir.Expr, offset: int, w: int) -> ir.Expr:
    """The index of the w-wide vector that holds elements base + offset.. (base a multiple of
    w, offset of w)."""
    shift = intrinsic(base.type, "shift_right", base, ops.const(w.bit_length() - 1, base.type))
    return ops.add(shift, ops.const(offset // w, base.type)) if offset else shift


def _element_of(word: ir.Expr, t: Type, i: int) -> ir.Expr:
    """Element i of the 8/16-bit type t packed in a 32-bit word (element 0 in the low bits)."""
    value = ir.Cast(UInt(t.bits), intrinsic(U32, "shift_right", word, ops.const(i * t.bits, U32)))
    return ir.Reinterpret(t, value) if t.is_int() else value


def _word_of(values: list[ir.Expr]) -> ir.Expr:
    """The 32-bit word that packs 8/16-bit values (the first in the low bits)."""
    t = values[0].type
    word = None
    for i, v in enumerate(values):
        bits = ir.Cast(U32, ir.Reinterpret(UInt(t.bits), v) if t.is_int() else v)
        if i:
            bits = intrinsic(U32, "shift_left", bits, ops.const(i * t.bits, U32))
        word = bits if word is None else intrinsic(U32, "bitwise_or", word, bits)
    return word


def _lane(e: ir.Expr, kids: tuple[ir.Expr, ...]) -> ir.Expr:
    """e rebuilt over scalar children `kids` (in the order `children` gives), its own type
    field (if any) made scalar."""
    it = iter(kids)
    e = rebuild(e, lambda _: next(it))
    if any(f.name == "type" for f in dataclasses.fields(e)) and e.type.lanes > 1:
        return dataclasses.replace(e, type=e.type.element_of())
    return e
