"""Expression nodes of webhal's IR: small, immutable, compared by value.

Semantics follow Halide's: integer arithmetic wraps at the type's width; integer division and
modulo round toward negative infinity (Euclidean: the remainder is never negative) and give zero
when dividing by zero; comparisons and logical ops give Bool; Select evaluates to one of its
operands, both of which are free of side effects.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from webhal.ir import math_functions
from webhal.ir.types import Bool, Handle, Type


class Expr:
    """Base of expression nodes. Every node has a `type`."""

    __slots__ = ("_hash",)  # the node's hash, once computed (see _cache_hashes)
    type: Type


@dataclass(frozen=True, slots=True)
class IntImm(Expr):
    type: Type
    value: int


@dataclass(frozen=True, slots=True)
class UIntImm(Expr):
    type: Type
    value: int


@dataclass(frozen=True, slots=True)
class FloatImm(Expr):
    type: Type
    value: float


@dataclass(frozen=True, slots=True)
class StringImm(Expr):
    value: str
    type: Type = field(default_factory=Handle)


@dataclass(frozen=True, slots=True)
class Cast(Expr):
    """Convert value to type: floats to ints truncate toward zero; ints wrap to narrower ints."""

    type: Type
    value: Expr


@dataclass(frozen=True, slots=True)
class Reinterpret(Expr):
    """Same bits, other type."""

    type: Type
    value: Expr


@dataclass(frozen=True, slots=True)
class Variable(Expr):
    """A named scalar: a loop or pure variable, a Param (`param` set) or an RVar (`rdom` set)."""

    type: Type
    name: str
    param: Any = field(default=None, compare=False)
    rdom: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class BinaryOp(Expr):
    a: Expr
    b: Expr

    @property
    def type(self) -> Type:  # type: ignore[override]
        return self.a.type


class Add(BinaryOp):
    __slots__ = ()

class Sub(BinaryOp):
    __slots__ = ()

class Mul(BinaryOp):
    __slots__ = ()

class Div(BinaryOp):
    __slots__ = ()

class Mod(BinaryOp):
    __slots__ = ()

class Min(BinaryOp):
    __slots__ = ()

class Max(BinaryOp):
    __slots__ = ()



@dataclass(frozen=True, slots=True)
class CompareOp(Expr):
    a: Expr
    b: Expr

    @property
    def type(self) -> Type:  # type: ignore[override]
        return Bool(self.a.type.lanes)


class EQ(CompareOp):
    __slots__ = ()

class NE(CompareOp):
    __slots__ = ()

class LT(CompareOp):
    __slots__ = ()

class LE(CompareOp):
    __slots__ = ()

class GT(CompareOp):
    __slots__ = ()

class GE(CompareOp):
    __slots__ = ()



class And(BinaryOp):
    __slots__ = ()

class Or(BinaryOp):
    __slots__ = ()



@dataclass(frozen=True, slots=True)
class Not(Expr):
    a: Expr

    @property
    def type(self) -> Type:  # type: ignore[override]
        return self.a.type


@dataclass(frozen=True, slots=True)
class Select(Expr):
    condition: Expr
    true_value: Expr
    false_value: Expr

    @property
    def type(self) -> Type:  # type: ignore[override]
        return self.true_value.type


class CallType(enum.Enum):
    HALIDE = "halide"        # a Func: `func` is the callee's Function
    IMAGE = "image"          # a Buffer or ImageParam: `func` is the buffer or parameter
    INTRINSIC = "intrinsic"  # bitwise ops, shifts, absd, ... (names in INTRINSICS)
    PURE_EXTERN = "extern"   # math library functions: sqrt, exp, ...
    RUNTIME = "runtime"      # webhal/Halide runtime functions (errors, allocation)


@dataclass(frozen=True, slots=True)
class Call(Expr):
    type: Type
    name: str
    args: tuple[Expr, ...]
    call_type: CallType
    func: Any = field(default=None, compare=False)
    value_index: int = 0


@dataclass(frozen=True, slots=True)
class Let(Expr):
    name: str
    value: Expr
    body: Expr

    @property
    def type(self) -> Type:  # type: ignore[override]
        return self.body.type


@dataclass(frozen=True, slots=True)
class Ramp(Expr):
    """base, base + stride, ... (lanes values)."""

    base: Expr
    stride: Expr
    lanes: int

    @property
    def type(self) -> Type:  # type: ignore[override]
        return self.base.type.with_lanes(self.lanes)


@dataclass(frozen=True, slots=True)
class Broadcast(Expr):
    value: Expr
    lanes: int

    @property
    def type(self) -> Type:  # type: ignore[override]
        return self.value.type.with_lanes(self.lanes)


@dataclass(frozen=True, slots=True)
class Load(Expr):
    """Element(s) `index` of allocation or buffer `name` (after storage flattening)."""

    type: Type
    name: str
    index: Expr
    predicate: Expr | None = None


# Intrinsic calls the front end creates, by name. Their semantics are Halide's.
INTRINSICS = frozenset({
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "shift_left", "shift_right", "abs", "absd", "popcount",
    "count_leading_zeros", "count_trailing_zeros", "likely", "saturating_cast",
    "lerp", "mux", "round", "floor", "ceil", "trunc", "is_nan", "is_inf", "is_finite",
})
# One intrinsic only lowering makes, gone before code generation: promise_clamped(value, lo, hi)
# is value, with a promise to bounds inference that it lies in [lo, hi] (simplify drops it).

# Math functions (PURE_EXTERN calls): every one takes and returns floats of one width; the
# table of what each backend calls them is ir/math_functions.py.
MATH_FUNCTIONS = frozenset(math_functions.FUNCTIONS)


def _cache_hashes() -> None:
    """Give every node class a hash computed once per node. A dataclass hashes its fields
    afresh on every call, so hashing a tree costs its size, and analyses that key dicts by
    expressions (constraints, memo tables) hash each subtree again at every level: quadratic
    in the size of an expression. Nodes are immutable, so the first hash stands."""
    def cached(compute):
        def __hash__(self):
            try:
                return self._hash
            except AttributeError:
                h = compute(self)
                object.__setattr__(self, "_hash", h)
                return h
        return __hash__
    pending = list(Expr.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if "__hash__" in vars(cls) and vars(cls)["__hash__"] is not None:
            cls.__hash__ = cached(vars(cls)["__hash__"])


_cache_hashes()
