"""Symbolic intervals: the range of an expression when some variables range over intervals.

`bounds_of(e, scope)` gives [min, max] as expressions in the variables left out of `scope`; None
means unbounded on that side. `constraints` holds facts from enclosing select/if conditions
(`m < ext` in the true branch), so clamps written as selects stay tight.

Arithmetic follows the IR's semantics (Euclidean division and modulo, x / 0 == x % 0 == 0).
int32 and int64 sums and products are assumed not to overflow, as in Halide; narrower and
unsigned ones may wrap, and their bounds fall back to the type's range unless proven to fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from webhal.analysis.linear import linear_form
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.types import Type
from webhal.ir.visitor import children, variable_names


@dataclass(frozen=True)
class Interval:
    min: ir.Expr | None
    max: ir.Expr | None

    @staticmethod
    def point(e: ir.Expr) -> Interval:
        return Interval(e, e)

    def is_bounded(self) -> bool:
        return self.min is not None and self.max is not None

    def union(self, other: Interval) -> Interval:
        lo = None if self.min is None or other.min is None else _absorbed(self.min, other.min,
                                                                          ir.Max, ops.minimum)
        hi = None if self.max is None or other.max is None else _absorbed(self.max, other.max,
                                                                          ir.Min, ops.maximum)
        return Interval(lo, hi)

    def intersect(self, other: Interval) -> Interval:
        lo = other.min if self.min is None else self.min if other.min is None else \
            _absorbed(self.min, other.min, ir.Min, ops.maximum)
        hi = other.max if self.max is None else self.max if other.max is None else \
            _absorbed(self.max, other.max, ir.Max, ops.minimum)
        return Interval(lo, hi)


def _absorbed(a: ir.Expr, b: ir.Expr, inner: type, pick) -> ir.Expr:
    """pick(a, b) (a max or a min), or one of them where the other is already clamped by it:
    max(m, min(y, m)) is m, and so are min(m, max(y, m)), max(min(y, m), m) and so on, as
    Halide's simplifier rewrites them. A guarded update's touched region is the region it
    covers clamped by its consumers' (min(rounded max, f.x.max)): left as a max of the two, the
    Func's max let hides the clamp that makes `f.x.max - f.x.min` a tile's size, and what is
    computed over that size is bounded as widely as the whole output."""
    if not (a.type.is_scalar() and not a.type.is_float()):
        return pick(a, b)
    if isinstance(b, inner) and (b.a == a or b.b == a):
        return a
    if isinstance(a, inner) and (a.a == b or a.b == b):
        return b
    return pick(a, b)


Scope = dict[str, Interval]
Constraints = dict[ir.Expr, Interval]


def type_bounds(t: Type) -> Interval:
    """The whole range of a narrow type; unbounded for 32/64-bit ints and floats."""
    if t.is_bool():
        return Interval(ops.const(0, t), ops.const(1, t))
    if t.is_int_or_uint() and t.bits <= 16:
        return Interval(ops.const(t.min(), t), ops.const(t.max(), t))
    if t.is_uint():
        return Interval(ops.const(0, t), None)
    return Interval(None, None)


def _map(f, *values):
    return None if any(v is None for v in values) else f(*values)


def bounds_of(e: ir.Expr, scope: Scope, constraints: Constraints | None = None) -> Interval:
    constraints = constraints or {}
    known = constraints.get(e)
    if known is not None and known.min is not None and known.min is known.max:
        return known  # an exact fact (see boxes._with_let_differences)
    result = _bounds(e, scope, constraints)
    if known is not None:
        result = result.intersect(known)
    return result


def _bounds(e: ir.Expr, scope: Scope, cons: Constraints) -> Interval:
    b = lambda x: bounds_of(x, scope, cons)  # noqa: E731
    match e:
        case ir.IntImm() | ir.UIntImm() | ir.FloatImm():
            return Interval.point(e)
        case ir.Variable():
            return scope.get(e.name, Interval.point(e))
        case ir.Add() | ir.Sub():
            paired = _bounds_by_pairs(e, scope, cons)
            if paired.is_bounded():
                return _bounds_through_clamps(e, paired, scope, cons)
            a, c = b(e.a), b(e.b)
            if isinstance(e, ir.Add):
                plain = Interval(_map(ops.add, a.min, c.min), _map(ops.add, a.max, c.max))
            else:
                plain = Interval(_map(ops.sub, a.min, c.max), _map(ops.sub, a.max, c.min))
            plain = _unless_wrapped(plain, e.type)
            return _bounds_through_clamps(e, Interval(
                plain.min if paired.min is None else paired.min,
                plain.max if paired.max is None else paired.max), scope, cons)
        case ir.Mul():
            return _unless_wrapped(_mul(b(e.a), b(e.b), e), e.type)
        case ir.Div():
            return _div(b(e.a), b(e.b), e)
        case ir.Mod():
            a, c = b(e.a), b(e.b)
            if a.is_bounded() and a.min == a.max and c.is_bounded() and c.min == c.max:
                # One value (the inner half of a fused loop, inside its loop): that value.
                return Interval.point(ops.mod(a.min, c.min))
            if e.type.is_float():
                return Interval(None, None)
            zero, one = ops.const(0, e.type), ops.const(1, e.type)
            if c.is_bounded() and c.min == c.max:
                # The remainder lies in [0, |c| - 1], and x % 0 is 0.
                k = ops.as_const(c.min)
                hi = ops.const(max(abs(k) - 1, 0), e.type) if k is not None else \
                    ops.maximum(ops.maximum(ops.sub(c.max, one), ops.sub(ops.const(-1, e.type),
                                                                         c.min)), zero)
                return Interval(zero, hi)
            if c.max is not None and ops.as_const(c.min) is not None and ops.as_const(c.min) > 0:
                return Interval(zero, ops.sub(c.max, one))
            return Interval(zero, None)
        case ir.Min():
            a, c = b(e.a), b(e.b)
            lo = None if a.min is None or c.min is None else ops.minimum(a.min, c.min)
            hi = c.max if a.max is None else a.max if c.max is None else ops.minimum(a.max, c.max)
            return Interval(lo, hi)
        case ir.Max():
            a, c = b(e.a), b(e.b)
            lo = c.min if a.min is None else a.min if c.min is None else ops.maximum(a.min, c.min)
            hi = None if a.max is None or c.max is None else ops.maximum(a.max, c.max)
            return Interval(lo, hi)
        case ir.Select():
            t_cons = refine(e.condition, True, scope, cons)
            f_cons = refine(e.condition, False, scope, cons)
            return bounds_of(e.true_value, scope, t_cons).union(
                bounds_of(e.false_value, scope, f_cons))
        case ir.Cast():
            return _cast(b(e.value), e.value.type, e.type)
        case ir.Let():
            inner = dict(scope)
            inner[e.name], bound = named_bounds(e.name, b(e.value))
            return wrap_lets(bounds_of(e.body, inner, cons), bound)
        case ir.Broadcast():
            return b(e.value)
        case ir.Ramp():
            base = b(e.base)
            last = ops.mul(e.stride, ops.const(e.lanes - 1, e.stride.type))
            lb = bounds_of(last, scope, cons)
            return Interval(_map(ops.add, base.min, _map(ops.minimum, ops.const(0, lb.min.type)
                                                          if lb.min is not None else None,
                                                          lb.min)),
                            _map(ops.add, base.max, _map(ops.maximum, ops.const(0, lb.max.type)
                                                          if lb.max is not None else None,
                                                          lb.max)))
        case ir.Call() if e.call_type is ir.CallType.INTRINSIC:
            return _intrinsic(e, b)
        case _:
            if e.type.is_bool():
                return type_bounds(e.type)
            return type_bounds(e.type)


# Bounds of a let's value up to this many nodes are substituted where the let's name is used;
# larger ones are named (see named_bounds). Small ones must stay substituted: a tile's extent,
# `f.x.max - f.x.min + 1`, folds to a constant only when both sides are spelled out.
_SUBSTITUTE_NODES = 32


def is_small(e: ir.Expr) -> bool:
    """Whether e has at most _SUBSTITUTE_NODES nodes (counted no further)."""
    stack, n = [e], 0
    while stack:
        n += 1
        if n > _SUBSTITUTE_NODES:
            return False
        stack.extend(children(stack.pop()))
    return True


def named_bounds(name: str, iv: Interval) -> tuple[Interval, list[tuple[str, ir.Expr]]]:
    """The interval a let `name` ranges over, given the bounds iv of its value, as the let's
    body sees it: iv itself where its ends are small, else by name (`name.lower`, `name.upper`),
    with the (name, value) pairs that wrap_lets defines around what is derived from them. As
    Halide's bounds inference does: substituted, the bounds of a let naming the let before it
    twice (a pyramid's region, min(g.min / 2, (g.min + 1) / 2)) double with every level."""
    bound: list[tuple[str, ir.Expr]] = []

    def named(e: ir.Expr | None, suffix: str) -> ir.Expr | None:
        if e is None or is_small(e):
            return e
        n = f"{name}.{suffix}"
        bound.append((n, e))
        return ir.Variable(e.type, n)
    if iv.min is not None and (iv.min is iv.max or iv.min == iv.max):
        point = named(iv.min, "lower")
        return Interval.point(point), bound
    return Interval(named(iv.min, "lower"), named(iv.max, "upper")), bound


def wrap_lets(iv: Interval, bound: list[tuple[str, ir.Expr]]) -> Interval:
    """iv with the lets of named_bounds defined around each end that uses them."""
    if not bound:
        return iv

    def wrap(e: ir.Expr | None) -> ir.Expr | None:
        if e is None:
            return None
        used = variable_names(e)
        for n, value in reversed(bound):
            if n in used:
                e = ir.Let(n, value, e)
        return e
    lo = wrap(iv.min)
    return Interval(lo, lo if iv.max is iv.min else wrap(iv.max))


def _variable_terms(e: ir.Expr, k: int, out: dict[ir.Variable, int],
                    clamps: list[tuple[ir.Min | ir.Max, int]] | None = None) -> None:
    """Add k times the coefficient of each variable that e sums (through +, - and products
    with constants) to `out`, and the mins and maxes it sums with theirs to `clamps` if given;
    other terms are passed over without being hashed."""
    match e:
        case ir.Variable():
            out[e] = out.get(e, 0) + k
        case ir.Add():
            _variable_terms(e.a, k, out, clamps)
            _variable_terms(e.b, k, out, clamps)
        case ir.Sub():
            _variable_terms(e.a, k, out, clamps)
            _variable_terms(e.b, -k, out, clamps)
        case ir.Mul():
            for x, y in ((e.a, e.b), (e.b, e.a)):
                factor = ops.as_const(y)
                if isinstance(factor, int):
                    _variable_terms(x, k * factor, out, clamps)
                    return
        case ir.Min() | ir.Max() if clamps is not None:
            clamps.append((e, k))


def _known_pairs(e: ir.Expr, cons: Constraints) -> list[tuple[ir.Variable, ir.Variable, int]]:
    """The pairs of variables `(a, b, n)` that e sums as n * (a - b) and whose difference
    `a - b` the constraints bound (lets of a Func's min and max, see
    boxes._with_let_differences)."""
    terms: dict[ir.Variable, int] = {}
    _variable_terms(e, 1, terms)
    if len(terms) < 2:
        return []
    return [(a, c, terms[a]) for a in terms for c in terms
            if terms[a] > 0 and terms[a] == -terms[c] and ir.Sub(a, c) in cons]


def _bounds_by_pairs(e: ir.Expr, scope: Scope, cons: Constraints) -> Interval:
    """Bounds of a sum in which a - b appears with a known range: that range, plus the bounds
    of the rest, rather than a's and b's ranges apart (each may move with an outer loop, by as
    much as the other: a tile's max - min is its size wherever the tile lies). Unbounded when
    no such pair appears."""
    # Halide's assumption that 32/64-bit signed sums never overflow makes the form exact.
    if not cons or not (e.type.is_int() and e.type.bits >= 32 and e.type.is_scalar()):
        return Interval(None, None)
    pairs = _known_pairs(e, cons)
    if not pairs:
        return Interval(None, None)
    terms, k = linear_form(e)
    total = Interval.point(ops.const(k, e.type))
    for a, c, n in pairs:
        if terms.get(a) != n or terms.get(c) != -n:
            continue  # a variable in two pairs: the first takes it
        del terms[a], terms[c]
        total = _add(total, _mul(cons[ir.Sub(a, c)], Interval.point(ops.const(n, e.type)), e))
    for atom, n in terms.items():
        total = _add(total, bounds_of(ops.mul(atom, ops.const(n, e.type)), scope, cons))
    return total


def _bounds_through_clamps(e: ir.Expr, iv: Interval, scope: Scope, cons: Constraints
                           ) -> Interval:
    """iv, the bounds of a sum e, made tighter where e sums n * min(p, q) (n > 0) and an arm
    holds a ranging variable that the rest of e cancels: e is at most e with p in place of the
    min, and at most e with q, whose bound no longer counts that variable twice (a vector of a
    slid producer, min(4 * i, (M - m) - 3) + m, is at most M - 3 wherever m lies). Likewise
    the lower bound through a max, and with n < 0 the other way round. Halide's simplifier
    writes such a sum min(p + m, q + m) before bounding it, to the same effect."""
    if not (e.type.is_int() and e.type.bits >= 32 and e.type.is_scalar()):
        return iv  # min(p, q) + m is min(p + m, q + m) only where sums do not wrap
    variables: dict[ir.Variable, int] = {}
    clamps: list[tuple[ir.Min | ir.Max, int]] = []
    _variable_terms(e, 1, variables, clamps)
    if not clamps or not variables:
        return iv
    lo, hi = iv.min, iv.max
    form = None
    done = set()  # one clamp a side: the bounds of the sums with its arms take the others
    for clamp, n in clamps:
        if not any(_cancels(q, n, variables, scope) for q in (clamp.a, clamp.b)):
            continue
        form = form or linear_form(e)
        n = form[0].get(clamp, 0)  # its coefficient in all, should it appear twice
        upper = isinstance(clamp, ir.Min) == (n > 0)
        if n == 0 or upper in done:
            continue
        done.add(upper)
        a, b = (bounds_of(_replaced(form, clamp, q, e.type), scope, cons)
                for q in (clamp.a, clamp.b))
        if upper:
            bound = _either(a.max, b.max, ops.minimum)
            hi = hi if bound is None else bound
        else:
            bound = _either(a.min, b.min, ops.maximum)
            lo = lo if bound is None else bound
    return Interval(lo, hi)


def _cancels(arm: ir.Expr, n: int, variables: dict[ir.Variable, int], scope: Scope) -> bool:
    """Whether n * arm sums a variable that `variables` sums with the opposite coefficient and
    that ranges over an interval (bounded at one value, it is not counted twice: the bounds
    stay the sum itself)."""
    mine: dict[ir.Variable, int] = {}
    _variable_terms(arm, n, mine)
    return any(variables.get(v, 0) == -k and _ranges(v, scope) for v, k in mine.items() if k)


def _ranges(v: ir.Variable, scope: Scope) -> bool:
    iv = scope.get(v.name)
    return iv is not None and (iv.min is None or iv.min != iv.max)


def _replaced(form: tuple[dict, int], clamp: ir.Expr, arm: ir.Expr, t: Type) -> ir.Expr:
    """The sum of linear form `form` with `clamp` replaced by `arm`, written so that the terms
    that cancel are gone."""
    terms, k = dict(form[0]), form[1]
    n = terms.pop(clamp)
    arm_terms, arm_k = linear_form(arm)
    k += n * arm_k
    for atom, c in arm_terms.items():
        terms[atom] = terms.get(atom, 0) + n * c
    out = ops.const(k, t)
    for atom, c in terms.items():
        term = atom if abs(c) == 1 else ops.mul(atom, ops.const(abs(c), t))
        out = out if c == 0 else ops.add(out, term) if c > 0 else ops.sub(out, term)
    return out


def _either(a: ir.Expr | None, b: ir.Expr | None, pick) -> ir.Expr | None:
    """pick(a, b) of two bounds on one side, or the one that is not None (unbounded)."""
    return b if a is None else a if b is None else pick(a, b)


def _add(a: Interval, c: Interval) -> Interval:
    return Interval(_map(ops.add, a.min, c.min), _map(ops.add, a.max, c.max))


def _unless_wrapped(iv: Interval, t: Type) -> Interval:
    """iv, the bounds of a sum, difference or product of type t, or t's whole range when the
    value may have wrapped. int32 and int64 arithmetic is taken not to overflow, as Halide
    does; narrower and unsigned types wrap in ordinary code (uint8 pixels), and their bounds
    stand only when both ends folded to constants (the ops fold only what fits) or the interval
    is one point (the expression itself, which wraps alike)."""
    if not (t.is_uint() or (t.is_int() and t.bits < 32)) or t.is_bool():
        return iv
    if iv.min is not None and iv.min == iv.max:
        return iv
    if iv.min is not None and iv.max is not None and \
            ops.as_const(iv.min) is not None and ops.as_const(iv.max) is not None:
        return iv
    return type_bounds(t)


def _mul(a: Interval, c: Interval, e) -> Interval:
    ka = ops.as_const(a.min) if a.min is not None and a.min == a.max else None
    kc = ops.as_const(c.min) if c.min is not None and c.min == c.max else None
    if kc is None and ka is not None:
        a, c, ka, kc = c, a, kc, ka
    if kc is not None:
        if kc >= 0:
            return Interval(_map(ops.mul, a.min, c.min), _map(ops.mul, a.max, c.min))
        return Interval(_map(ops.mul, a.max, c.min), _map(ops.mul, a.min, c.min))
    if not (a.is_bounded() and c.is_bounded()):
        return Interval(None, None)
    prods = [ops.mul(x, y) for x in (a.min, a.max) for y in (c.min, c.max)]
    lo, hi = prods[0], prods[0]
    for p in prods[1:]:
        lo, hi = ops.minimum(lo, p), ops.maximum(hi, p)
    return Interval(lo, hi)


def _div(a: Interval, c: Interval, e) -> Interval:
    if e.type.is_float():
        return _float_div(a, c)
    kc = ops.as_const(c.min) if c.min is not None and c.min == c.max else None
    if kc is not None and kc != 0:
        if kc > 0:
            return Interval(_map(lambda x: ops.div(x, c.min), a.min),
                            _map(lambda x: ops.div(x, c.min), a.max))
        return Interval(_map(lambda x: ops.div(x, c.min), a.max),
                        _map(lambda x: ops.div(x, c.min), a.min))
    if c.min is not None and c.min == c.max and a.is_bounded():
        # One divisor of unknown sign (a fused loop's inner extent): Euclidean division is
        # monotonic in the numerator for either sign, and x / 0 is 0 for every x.
        lo, hi = ops.div(a.min, c.min), ops.div(a.max, c.min)
        return Interval(ops.minimum(lo, hi), ops.maximum(lo, hi))
    lo_c = ops.as_const(c.min) if c.min is not None else None
    if lo_c is not None and lo_c > 0 and a.is_bounded() and c.max is not None:
        cands = [ops.div(x, y) for x in (a.min, a.max) for y in (c.min, c.max)]
        lo, hi = cands[0], cands[0]
        for p in cands[1:]:
            lo, hi = ops.minimum(lo, p), ops.maximum(hi, p)
        return Interval(lo, hi)
    if e.type.is_uint() and a.max is not None:
        return Interval(ops.const(0, e.type), a.max)
    return Interval(None, None)


def _float_div(a: Interval, c: Interval) -> Interval:
    """a / c for floats where c is one value (a constant, a Param such as `1.0 / sigma`): the
    quotient is monotonic in the numerator for either sign of c, as in Halide's bounds."""
    if not (a.is_bounded() and c.min is not None and c.min == c.max):
        return Interval(None, None)
    if a.min == a.max:
        return Interval.point(ops.div(a.min, c.min))
    lo, hi = ops.div(a.min, c.min), ops.div(a.max, c.min)
    k = ops.as_const(c.min)
    if k is not None and k > 0:
        return Interval(lo, hi)
    if k is not None and k < 0:
        return Interval(hi, lo)
    return Interval(ops.minimum(lo, hi), ops.maximum(lo, hi))


def _cast(a: Interval, src: Type, dst: Type) -> Interval:
    if dst.is_float() or (src.is_int_or_uint() and dst.is_int_or_uint() and
                           _contains_type(dst, src)):
        return Interval(_map(lambda x: ops.cast(dst, x), a.min), _map(lambda x: ops.cast(dst, x),
                                                                       a.max))
    if src.is_float() and dst.is_int_or_uint() and dst.bits >= 32:
        return Interval(_map(lambda x: ops.cast(dst, x), a.min),
                        _map(lambda x: ops.cast(dst, x), a.max))
    # Narrowing may wrap: constant bounds that fit stay, otherwise the whole target type.
    lo, hi = ops.as_const(a.min) if a.min is not None else None, \
        ops.as_const(a.max) if a.max is not None else None
    if lo is not None and hi is not None and dst.can_represent(lo) and dst.can_represent(hi):
        return Interval(ops.const(lo, dst), ops.const(hi, dst))
    return type_bounds(dst)


def _contains_type(big: Type, small: Type) -> bool:
    if small.is_bool():
        return True
    if big.code == small.code:
        return big.bits >= small.bits
    if big.is_int() and small.is_uint():
        return big.bits > small.bits
    return False


def _intrinsic(e: ir.Call, b) -> Interval:
    t = e.type
    if e.name == "likely":
        return b(e.args[0])
    if e.name in ("print_value", "return_second"):  # hl.print: the value it returns
        return b(e.args[1])
    if e.name == "promise_clamped":
        value, lo, hi = b(e.args[0]), b(e.args[1]), b(e.args[2])
        if value.min is not None and value.min == value.max:
            # One value: still promised, so that what is derived from it (a producer's region
            # inside the fused loop) keeps the promise for the loops outside.
            if lo.min is None or hi.max is None:
                return value
            return Interval.point(ops.promise_clamped(value.min, lo.min, hi.max))
        return value.intersect(Interval(lo.min, hi.max))
    if e.name == "bitwise_and":
        k = ops.as_const(e.args[1])
        if k is not None and k >= 0:
            return Interval(ops.const(0, t), e.args[1])
    if e.name == "shift_right":
        k = ops.as_const(e.args[1])
        if k is not None and k >= 0:
            a = b(e.args[0])
            f = lambda x: ir.Call(t, "shift_right", (x, e.args[1]), ir.CallType.INTRINSIC)  # noqa
            return Interval(_map(f, a.min), _map(f, a.max))
    if e.name == "saturating_cast":
        return type_bounds(t)
    return type_bounds(t)


def refine(cond: ir.Expr, truth: bool, scope: Scope, cons: Constraints) -> Constraints:
    """Constraints known inside a branch where cond == truth (comparisons and their &&/||)."""
    out = dict(cons)
    match cond:
        case ir.And() if truth:
            out = refine(cond.a, True, scope, out)
            return refine(cond.b, True, scope, out)
        case ir.Or() if not truth:
            out = refine(cond.a, False, scope, out)
            return refine(cond.b, False, scope, out)
        case ir.Not():
            return refine(cond.a, not truth, scope, out)
        case ir.Call() if cond.call_type is ir.CallType.INTRINSIC and cond.name == "likely":
            return refine(cond.args[0], truth, scope, out)
        case ir.LT() | ir.LE() | ir.GT() | ir.GE():
            a, c = cond.a, cond.b
            if a.type.is_float():
                return out
            # Normalize to a <= c - k or a >= c + k.
            kind = type(cond)
            if not truth:
                kind = {ir.LT: ir.GE, ir.LE: ir.GT, ir.GT: ir.LE, ir.GE: ir.LT}[kind]
            one = ops.const(1, a.type)
            if kind is ir.LT:
                _narrow(out, a, Interval(None, ops.sub(c, one)), scope)
                _narrow(out, c, Interval(ops.add(a, one), None), scope)
            elif kind is ir.LE:
                _narrow(out, a, Interval(None, c), scope)
                _narrow(out, c, Interval(a, None), scope)
            elif kind is ir.GT:
                _narrow(out, a, Interval(ops.add(c, one), None), scope)
                _narrow(out, c, Interval(None, ops.sub(a, one)), scope)
            else:
                _narrow(out, a, Interval(c, None), scope)
                _narrow(out, c, Interval(None, a), scope)
    return out


def _narrow(cons: Constraints, e: ir.Expr, bound: Interval, scope: Scope) -> None:
    """Record that e lies in `bound` (whose ends may mention scoped variables: take their
    loosest values)."""
    if ops.as_const(e) is not None:
        return
    lo = None if bound.min is None else bounds_of(bound.min, scope).min
    hi = None if bound.max is None else bounds_of(bound.max, scope).max
    new = Interval(lo, hi)
    cons[e] = cons[e].intersect(new) if e in cons else new
