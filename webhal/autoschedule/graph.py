"""The pipeline as the autoscheduler sees it: Funcs, who reads whom, and how.

For every read of a producer by a consumer, each coordinate is classified: `coeff * v + offset`
of one of the consumer's pure Vars (a stencil when coeff is 1, a down- or upsampling
otherwise), or data-dependent (a gather, as a lookup table or a histogram's bin). The search
fuses only stencils; the cost model charges gathers per lane.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from webhal.analysis.linear import linear_form
from webhal.ir import nodes as ir
from webhal.ir.function import Function
from webhal.ir.visitor import calls, children, free_variables


@dataclass(frozen=True)
class Coord:
    """One coordinate of a read: `coeff * var + [lo, hi]`, or (var None) data-dependent."""

    var: str | None
    coeff: Fraction = Fraction(1)
    lo: int = 0
    hi: int = 0


@dataclass
class Read:
    """All reads of `producer` by one stage of `consumer`, merged per coordinate."""

    producer: object          # Function, or an ImageParam/Buffer
    consumer: Function
    coords: list[Coord]
    count: int                # how many calls (each is a load, or recomputation if inlined)
    # each call's own coordinates (`coords` merges them): calls at the same offsets read the
    # same value, which a compiler loads or computes once (common subexpressions)
    taps: list[tuple[Coord, ...]] = field(default_factory=list)
    # each call's argument expressions, for exact regions (regions.py); an update's are in
    # its pure Vars and its RDom's
    args: list[tuple] = field(default_factory=list)
    bits: int = 8             # widest element the calls load (the memory traffic of a read)
    in_update: bool = False   # some of the calls are an update's

    @property
    def is_stencil(self) -> bool:
        """Every coordinate is its consumer's own Var plus constants."""
        return all(c.var is not None and c.coeff == 1 for c in self.coords)

    @property
    def gathers(self) -> bool:
        return any(c.var is None for c in self.coords)


@dataclass
class Node:
    """One Func: its cost per point and what it reads."""

    fn: Function
    ops: float                # arithmetic per point of its pure stage (weighted)
    widenings: int            # casts between integer widths (SIMD128 pays for each)
    bits: int                 # widest type it computes with
    narrow_bits: int          # narrowest type it loads or stores
    reads: list[Read] = field(default_factory=list)
    consumers: list[Function] = field(default_factory=list)
    is_output: bool = False
    feeds_index: bool = False  # its values are coordinates of a read (a gather's index)

    @property
    def name(self) -> str:
        return self.fn.name

    @property
    def has_updates(self) -> bool:
        return bool(self.fn.updates)

    @property
    def inlinable(self) -> bool:
        return not self.fn.updates and not self.is_output


# Weights of operations relative to an add (what a vector unit takes for one).
_WEIGHTS = {ir.Div: 4.0, ir.Mod: 4.0, ir.Mul: 1.0, ir.Select: 1.0}
_CALL_WEIGHTS = {"pow": 20.0, "pow_f32": 20.0, "exp": 12.0, "log": 12.0, "sqrt": 3.0,
                 "sin": 12.0, "cos": 12.0, "atan2": 16.0, "tanh": 14.0}


def _cost_of(values) -> tuple[float, int, int, int]:
    """(weighted ops, widenings, widest bits, narrowest bits) of a definition's values."""
    ops, widen, wide, narrow = 0.0, 0, 8, 64
    index_nodes = {id(a) for v in values for c in calls(v) for a in c.args
                   if c.call_type in (ir.CallType.HALIDE, ir.CallType.IMAGE)}
    for value in values:
        for n in _walk_values(value, index_nodes):
            t = getattr(n, "type", None)
            if t is not None and not t.is_bool() and t.bits:
                wide = max(wide, t.bits)
            if isinstance(n, ir.Call):
                if n.call_type in (ir.CallType.HALIDE, ir.CallType.IMAGE):
                    narrow = min(narrow, n.type.bits)
                else:
                    ops += _CALL_WEIGHTS.get(n.name, 2.0)
            elif isinstance(n, ir.Cast):
                if n.type.is_int_or_uint() and n.value.type.is_int_or_uint() and \
                        n.type.bits != n.value.type.bits:
                    widen += 1
                else:
                    ops += 1.0
            elif isinstance(n, (ir.BinaryOp, ir.Select)):
                ops += _WEIGHTS.get(type(n), 1.0)
    for value in values:
        narrow = min(narrow, value.type.bits or 8)
    return ops, widen, wide, min(narrow, wide)


def _walk_values(value, index_nodes: set[int]):
    """The nodes of a value outside the coordinates of its reads: index arithmetic (a
    boundary condition's clamps) is mostly hoisted or partitioned away by lowering, so it is
    not charged as arithmetic."""
    stack = [value]
    while stack:
        n = stack.pop()
        if id(n) in index_nodes:
            continue
        yield n
        stack.extend(children(n))


def _unclamped(arg: ir.Expr, pure: list[str]) -> ir.Expr:
    """The coordinate inside a boundary condition's clamp (min/max against bounds of no pure
    Var): a clamped stencil is a stencil, not a gather."""
    while True:
        if isinstance(arg, ir.Cast) and arg.type.is_int_or_uint():
            arg = arg.value
        elif isinstance(arg, (ir.Min, ir.Max)):
            sides = [e for e in (arg.a, arg.b)
                     if any(v.name in pure and v.rdom is None for v in free_variables(e))]
            if len(sides) != 1:
                return arg
            arg = sides[0]
        else:
            return arg


def _coord(arg: ir.Expr, pure: list[str]) -> Coord:
    """Classify one coordinate of a call: `k * v + c`, or `k * ((k2 * v + c2) / d) + c` (an
    upsampling's read, bounded by a coordinate either side), or data-dependent."""
    arg = _unclamped(arg, pure)
    terms, const = linear_form(arg)
    if not terms:
        return Coord("", Fraction(0), const, const)  # a constant coordinate
    if len(terms) != 1:
        return Coord(None)
    atom, k = next(iter(terms.items()))
    scale, lo, hi = Fraction(k), const, const
    if isinstance(atom, ir.Div) and isinstance(atom.b, ir.IntImm) and atom.b.value > 0:
        d = atom.b.value
        inner, c2 = linear_form(atom.a)
        if len(inner) != 1:
            return Coord(None)
        atom, k2 = next(iter(inner.items()))
        scale = Fraction(k * k2, d)
        centre = const + k * (c2 // d)
        lo, hi = centre - abs(k), centre + abs(k)
    if isinstance(atom, ir.Variable) and atom.name in pure and atom.rdom is None:
        return Coord(atom.name, scale, lo, hi)
    return Coord(None)


def _clamped_to_constants(arg: ir.Expr) -> bool:
    """A coordinate that is a clamp (min/max, under casts and added constants) to constant
    bounds, whatever it clamps."""
    from webhal.autoschedule.regions import span
    inner = arg
    while isinstance(inner, (ir.Cast, ir.Add, ir.Sub)):
        if isinstance(inner, ir.Cast):
            inner = inner.value
        elif isinstance(inner.b, ir.IntImm):
            inner = inner.a
        else:
            break
    lo, hi = span(arg, {})
    return isinstance(inner, (ir.Min, ir.Max)) and lo is not None and hi is not None


def _merge(a: Coord, b: Coord) -> Coord:
    if a.var != b.var or a.coeff != b.coeff or a.var is None:
        return Coord(None)
    return Coord(a.var, a.coeff, min(a.lo, b.lo), max(a.hi, b.hi))


def build_graph(functions: list[Function], outputs: list[Function]) -> dict[int, Node]:
    """A Node per Function (by id), producers before consumers as `functions` lists them."""
    out_ids = {id(f) for f in outputs}
    nodes: dict[int, Node] = {}
    for fn in functions:
        pure = fn.definitions[0]
        ops, widen, wide, narrow = _cost_of(pure.values)
        node = Node(fn, ops, widen, wide, narrow, is_output=id(fn) in out_ids)
        by_producer: dict[int, Read] = {}
        for d in fn.definitions:
            for value in d.nodes():
                for c in calls(value):
                    if c.call_type not in (ir.CallType.HALIDE, ir.CallType.IMAGE) or \
                            c.func is fn:
                        continue
                    coords = [_coord(a, fn.pure_args) for a in c.args]
                    if d is not pure:  # an update's reads are never fused: data-dependent
                        coords = [Coord(None) for _ in coords]
                    r = by_producer.get(id(c.func))
                    args = tuple(c.args)
                    bits = max(8, c.type.bits)
                    if r is None:
                        r = by_producer[id(c.func)] = Read(c.func, fn, coords, 1,
                                                           [tuple(coords)], [args], bits)
                    else:
                        r.bits = max(r.bits, bits)
                        r.coords = [_merge(a, b) for a, b in zip(r.coords, coords)]
                        r.count += 1
                        r.taps.append(tuple(coords))
                        r.args.append(args)
                    r.in_update |= d is not pure
        node.reads = list(by_producer.values())
        nodes[id(fn)] = node
    # A Func whose values index a read stays inlined where it can: bounds inference sees the
    # range of its expression, while a load of a stored Func's value has no bounds at all.
    # Not where the index is clamped to constants whatever the value (the local Laplacian's
    # intensity level `clamp(floor(v * 7), 0, 6)`): a stored value is as good there.
    for fn in functions:
        for d in fn.definitions:
            for value in d.nodes():
                for c in calls(value):
                    if c.call_type not in (ir.CallType.HALIDE, ir.CallType.IMAGE):
                        continue  # an intrinsic's arguments are values, not coordinates
                    for a in c.args:
                        if _clamped_to_constants(a):
                            continue
                        for inner in calls(a, ir.CallType.HALIDE):
                            if id(inner.func) in nodes:
                                nodes[id(inner.func)].feeds_index = True
    for node in nodes.values():
        for r in node.reads:
            if isinstance(r.producer, Function) and id(r.producer) in nodes:
                nodes[id(r.producer)].consumers.append(node.fn)
    return nodes
