"""Var (pure dimensions), RDom and RVar (reduction domains)."""

from __future__ import annotations

import operator
from collections.abc import Sequence

from webhal.errors import ArgumentError, CompileError, RDomDimensionError, user_location
from webhal.ir import nodes as ir
from webhal.ir.function import ReductionDomain
from webhal.ir.ops import cast_node
from webhal.ir.printer import to_string
from webhal.ir.types import Int
from webhal.ir.visitor import calls
from webhal.lang.expr import Expr, ExprLike, to_node
from webhal.lang.names import check_name, unique_name


class Var(ExprLike):
    """A pure dimension of a Func, an int32. Vars with the same name are the same Var."""

    __slots__ = ("_name",)

    def __init__(self, name: str | None = None):
        self._name = check_name(name, "Var") if name else unique_name("v")

    def name(self) -> str:
        return self._name

    def node(self) -> ir.Expr:
        return ir.Variable(Int(32), self._name)

    def same_as(self, other) -> bool:
        return isinstance(other, Var) and other._name == self._name

    def __hash__(self):
        return hash(("Var", self._name))

    def __repr__(self):
        return f"<halide.Var '{self._name}'>"  # Halide's words: code written for it compares

    @staticmethod
    def implicit(i: int) -> Var:
        """The i-th implicit Var, `_i` (also `hl._0` ... `hl._9`)."""
        return Var(f"_{i}")

    def is_implicit(self) -> bool:
        return self.implicit_index() >= 0

    def implicit_index(self) -> int:
        """i for the implicit Var `_i`, else -1."""
        n = self._name
        return int(n[1:]) if len(n) > 1 and n[0] == "_" and n[1:].isdigit() else -1

    @staticmethod
    def outermost() -> Var:
        """The level outside every loop of a Func, for store_at/hoist_storage
        (`producer.store_at(consumer, hl.Var.outermost())`)."""
        return Var(OUTERMOST)

    def is_placeholder(self) -> bool:
        """Whether this is `hl._`, Halide's placeholder for the remaining arguments: in a
        call it stands for the implicit Vars _0, _1, ... that fill the callee's dimensions,
        on the left of a definition for those its right side uses."""
        return self._name == "_"


def vars(names: str) -> tuple[Var, ...]:  # noqa: A001 - Halide's name
    """One Var per name in a string of names separated by spaces: `x, y = hl.vars("x y")`."""
    return tuple(Var(n) for n in names.split())


class RVar(ExprLike):
    """One dimension of an RDom, iterated in order by the update definitions that use it.
    `hl.RVar("ri")` is only a name, for the loops that split and fuse make of RVars."""

    __slots__ = ("_domain", "_index", "_name")

    def __init__(self, domain: ReductionDomain | str | None = None, index: int = 0):
        if not isinstance(domain, ReductionDomain):
            self._domain, self._index = None, 0
            self._name = check_name(domain, "RVar") if domain else unique_name("rv")
            return
        self._domain = domain
        self._index = index
        self._name = None

    def name(self) -> str:
        return self._name if self._domain is None else self._domain.var_name(self._index)

    def _require_domain(self) -> ReductionDomain:
        if self._domain is None:
            raise CompileError(f"RVar {self._name} is only a name for scheduling (split, fuse); "
                               "use an RDom's RVars (r.x, r.y, ...) in definitions",
                               user_location())
        return self._domain

    def min(self) -> ExprLike:
        return Expr(self._require_domain().mins[self._index])

    def extent(self) -> ExprLike:
        return Expr(self._require_domain().extents[self._index])

    def domain(self) -> RDom:
        return RDom._wrap(self._require_domain())

    def node(self) -> ir.Expr:
        return ir.Variable(Int(32), self.name(), rdom=self._require_domain())

    def __hash__(self):
        return hash(("RVar", self.name()))

    def __repr__(self):
        if self._domain is None:
            return f"<halide.RVar {self.name()}((undefined), (undefined))>"
        return f"<halide.RVar {self.name()}({to_string(self._domain.mins[self._index])}, " \
               f"{to_string(self._domain.extents[self._index])})>"


class Range:
    """A (min, extent) pair, as Halide's hl.Range."""

    def __init__(self, min, extent):  # noqa: A002
        self.min = min
        self.extent = extent


class RDom(ExprLike):
    """A reduction domain: `hl.RDom([(min, extent), ...], name)`. `r.x`, `r.y`, ... or `r[i]` are
    its RVars; a one-dimensional RDom may be used as an Expr (its `r.x`). Update definitions visit
    its points with r.x varying fastest. `where(pred)` restricts it to points where pred holds."""

    __slots__ = ("_domain",)

    def __init__(self, region=None, name: str | None = None):
        if region is None:  # Halide's undefined RDom
            self._domain = None
            return
        if hasattr(region, "dimensions") and hasattr(region, "dim"):  # a Buffer or ImageParam
            pairs = [(region.dim(i).min(), region.dim(i).extent())
                     for i in range(region.dimensions())]
        else:
            pairs = [(r.min, r.extent) if isinstance(r, Range) else tuple(r)
                     for r in _as_list(region)]
        if not pairs or any(len(p) != 2 for p in pairs):
            raise CompileError(f"RDom region must be a non-empty list of (min, extent) pairs, "
                               f"not {region!r}", user_location())
        mins, extents = [], []
        for d, (lo, ext) in enumerate(pairs):
            for v in (lo, ext):
                n = to_node(v)
                if not n.type.is_int_or_uint() or n.type.is_bool():
                    raise CompileError(f"RDom bounds must be integers, not {n.type}",
                                       user_location())
                funcs = [c.name for c in calls(n) if c.call_type is ir.CallType.HALIDE]
                if funcs:  # they are needed before any Func is computed (Halide refuses too)
                    raise CompileError(
                        f"the bounds of an RDom may not call a Func, but those of dimension "
                        f"{d} call Func {funcs[0]}; use a Param, a constant or a Buffer's "
                        "dimensions (or an RDom as large as the largest case, with where())",
                        user_location())
            mins.append(_as_int32(lo))
            extents.append(_as_int32(ext))
        name = check_name(name, "RDom") if name else unique_name("r")
        self._domain = ReductionDomain(name, mins, extents)

    @classmethod
    def _wrap(cls, domain: ReductionDomain) -> RDom:
        r = cls.__new__(cls)
        r._domain = domain
        return r

    def defined(self) -> bool:
        """Whether this RDom has a region (hl.RDom() alone is undefined, as in Halide)."""
        return self._domain is not None

    def _dom(self) -> ReductionDomain:
        if self._domain is None:
            raise CompileError("this RDom is undefined (hl.RDom() without a region); make it "
                               "with one: hl.RDom([(min, extent), ...])", user_location())
        return self._domain

    def name(self) -> str:
        return self._dom().name

    def dimensions(self) -> int:
        return len(self._dom().mins)

    def __len__(self) -> int:
        return self.dimensions()

    def __iter__(self):
        # Explicit, since indexing past the end is a KeyError, which ends no iteration.
        return (self[i] for i in range(self.dimensions()))

    def __getitem__(self, i: int) -> RVar:
        """The i-th RVar. As in Halide, i counts from 0 only: `r[-1]` is a KeyError."""
        try:
            i = operator.index(i)
        except TypeError:
            raise ArgumentError(f"RDom {self.name()} is indexed by a dimension number, not "
                                f"{i!r}", user_location()) from None
        if not 0 <= i < self.dimensions():
            raise RDomDimensionError(f"RDom {self.name()} has {self.dimensions()} dimensions "
                                     f"(0 to {self.dimensions() - 1}); there is no dimension "
                                     f"{i}", user_location())
        return RVar(self._domain, i)

    def _axis(self, i: int) -> RVar:
        return self[i]

    x = property(lambda self: self._axis(0))
    y = property(lambda self: self._axis(1))
    z = property(lambda self: self._axis(2))
    w = property(lambda self: self._axis(3))

    def where(self, predicate) -> RDom:
        """Keep only the points where predicate (a Bool Expr of this RDom's RVars) holds."""
        n = to_node(predicate)
        if not n.type.is_bool():
            raise CompileError(f"RDom.where needs a bool predicate, not {n.type}",
                               user_location())
        self._dom().predicates.append(n)
        return self

    def node(self) -> ir.Expr:
        if self.dimensions() != 1:
            raise CompileError(f"RDom {self.name()} has {self.dimensions()} dimensions; only a "
                               "one-dimensional RDom can be used as an Expr (use r.x, r.y, ...)",
                               user_location())
        return self[0].node()

    def domain(self) -> ReductionDomain:
        return self._dom()

    def __repr__(self):
        # Halide's words: code written for it compares them
        if self._domain is None:
            return "<halide.RDom RDom()>"
        lines = "".join(f"  {self[i].name()}({to_string(self._domain.mins[i])}, "
                        f"{to_string(self._domain.extents[i])})\n"
                        for i in range(self.dimensions()))
        where = " and ".join(to_string(p) for p in self._domain.predicates)
        return f"<halide.RDom RDom(\n{lines})" + (f" where ({where})" if where else "") + ">"

    __str__ = __repr__

    __hash__ = object.__hash__


def _as_list(region) -> Sequence:
    return region if isinstance(region, (list, tuple)) else [region]


def _as_int32(v) -> ir.Expr:
    return cast_node(Int(32), to_node(v))


OUTERMOST = "__outermost"

# Halide's implicit Vars and placeholder, as module attributes of webhal (hl._0, hl._).
IMPLICIT_VARS = tuple(Var.implicit(i) for i in range(10))
PLACEHOLDER = Var("_")
