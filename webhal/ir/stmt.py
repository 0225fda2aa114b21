"""Statement nodes of webhal's IR, from loop nests with multi-dimensional Provide down to flat
Store/Load on allocations. Immutable; rebuilt by passes."""

from __future__ import annotations

from dataclasses import dataclass

from webhal.ir import nodes as ir
from webhal.ir.schedule import DeviceAPI, ForType
from webhal.ir.types import Type


class Stmt:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class For(Stmt):
    name: str
    min: ir.Expr
    extent: ir.Expr
    for_type: ForType
    body: Stmt
    device_api: DeviceAPI = DeviceAPI.None_


@dataclass(frozen=True, slots=True)
class LetStmt(Stmt):
    name: str
    value: ir.Expr
    body: Stmt


@dataclass(frozen=True, slots=True)
class Block(Stmt):
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class IfThenElse(Stmt):
    condition: ir.Expr
    then_case: Stmt
    else_case: Stmt | None = None


@dataclass(frozen=True, slots=True)
class Evaluate(Stmt):
    value: ir.Expr


@dataclass(frozen=True, slots=True)
class AssertStmt(Stmt):
    """If condition is false, report `message` (a Call to a runtime error function, whose value
    is the error code) and return that code from the pipeline."""

    condition: ir.Expr
    message: ir.Expr


@dataclass(frozen=True, slots=True)
class ProducerConsumer(Stmt):
    name: str
    is_producer: bool
    body: Stmt


@dataclass(frozen=True, slots=True)
class Provide(Stmt):
    """Store value at coordinates args of Func `name` (before storage flattening); element
    `value_index` of its values, for a Func that computes a Tuple."""

    name: str
    value: ir.Expr
    args: tuple[ir.Expr, ...]
    value_index: int = 0


@dataclass(frozen=True, slots=True)
class Realize(Stmt):
    """Storage for Func `name` over bounds [(min, extent)...] (before storage flattening)."""

    name: str
    type: Type
    bounds: tuple[tuple[ir.Expr, ir.Expr], ...]
    body: Stmt
    memory_type: object = None
    fold: tuple[int, int] | None = None  # (dimension, factor): a circular buffer there


@dataclass(frozen=True, slots=True)
class Allocate(Stmt):
    name: str
    type: Type
    size: ir.Expr  # in elements
    body: Stmt
    memory_type: object = None


@dataclass(frozen=True, slots=True)
class Store(Stmt):
    name: str
    value: ir.Expr
    index: ir.Expr
    predicate: ir.Expr | None = None


def block(*stmts: Stmt | None) -> Stmt:
    """A Block of the non-empty statements, flattened; a lone statement stays as it is."""
    flat: list[Stmt] = []
    for s in stmts:
        if s is None:
            continue
        if isinstance(s, Block):
            flat.extend(s.stmts)
        else:
            flat.append(s)
    if len(flat) == 1:
        return flat[0]
    return Block(tuple(flat))


@dataclass(frozen=True, slots=True)
class GPULaunch(Stmt):
    """Run kernel `kernel_id` of the pipeline's GPU module over `grid` workgroups, with the
    kernel's scalar arguments `args` (in its manifest's order)."""

    kernel_id: int
    grid: tuple[ir.Expr, ir.Expr, ir.Expr]
    args: tuple[ir.Expr, ...]
    kernel: object = None  # the ir.module.Kernel it runs (not a child: host passes skip it)
