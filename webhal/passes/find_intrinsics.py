"""Find intrinsics: recognize, in vector expressions, the arithmetic idioms that SIMD instruction
sets do in one instruction (wasm SIMD's add_sat, avgr_u, extmul, narrow, q15mulr, dot and
extadd_pairwise) and rewrite them as intrinsic Calls. The LLVM code generator
(codegen/llvm/simd_idioms.py) maps them to those instructions on wasm and to the same arithmetic
in plain LLVM IR elsewhere.

Every rewrite is exact: it applies only where the intrinsic's value equals the original
expression's for every input, Halide's wrapping and floor division included; `_range` proves
that the sums involved do not wrap. The intrinsics, for a and b of a narrow integer type T and W
a wider one (the call's type is T unless said otherwise):

    saturating_add(a, b)        T(clamp(W(a) + W(b), T.min, T.max))
    saturating_sub(a, b)        T(clamp(W(a) - W(b), T.min, T.max))
    rounding_halving_add(a, b)  T((W(a) + W(b) + 1) / 2), or >> 1
    widening_mul(a, b)          W(a) * W(b), of type W twice as wide as T
    saturating_narrow(e)        T(clamp(e, T.min, T.max)) for e of a wider integer type
    q15mulr(a, b)               saturating_narrow((i32(a) * i32(b) + 16384) >> 15), a, b int16
    widening_pairwise_add(v)    W(v[2i]) + W(v[2i + 1]), of type W with half of v's lanes
    dot(u, v)                   i32(u[2i]) * i32(v[2i]) + i32(u[2i + 1]) * i32(v[2i + 1]),
                                int16 u and v, of type int32 with half of their lanes

The last two take dense loads of 2n lanes where the user's code loads the even and the odd
elements with stride 2: the same elements. GPU loops are left alone (WGSL has no such calls).
"""

from __future__ import annotations

from webhal.analysis.linear import linear_form
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType
from webhal.ir.types import Int, Type
from webhal.ir.visitor import rebuild
from webhal.passes.context import LowerContext

_GPU_LOOPS = (ForType.GPUBlock, ForType.GPUThread)


def _call(t: Type, name: str, *args: ir.Expr) -> ir.Call:
    return ir.Call(t, name, tuple(args), ir.CallType.INTRINSIC)


def _is_integer(t: Type) -> bool:
    return t.is_int_or_uint() and not t.is_bool()


# -- value ranges ------------------------------------------------------------------------------
# Constant bounds of integer expressions, wrapping included: an operation whose exact result
# could leave its type gets the whole type's range. (analysis/intervals.py assumes no overflow,
# as bounds inference may; here that is what has to be proven.)

def _within(r: tuple[int, int], t: Type) -> bool:
    return t.min() <= r[0] and r[1] <= t.max()


def _exact(e: ir.BinaryOp) -> tuple[int, int]:
    """The range of e's result computed without wrapping, for Add, Sub and Mul."""
    (a0, a1), (b0, b1) = _range(e.a), _range(e.b)
    match e:
        case ir.Add():
            return a0 + b0, a1 + b1
        case ir.Sub():
            return a0 - b1, a1 - b0
    corners = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
    return min(corners), max(corners)


def _wraps(e: ir.Expr) -> bool:
    return not _within(_exact(e), e.type)


def _range(e: ir.Expr) -> tuple[int, int]:
    t = e.type
    match e:
        case ir.IntImm() | ir.UIntImm():
            return e.value, e.value
        case ir.Broadcast():
            return _range(e.value)
        case ir.Cast() if _is_integer(e.value.type) or e.value.type.is_bool():
            r = _range(e.value)
            return r if _within(r, t) else (t.min(), t.max())
        case ir.Add() | ir.Sub() | ir.Mul():
            r = _exact(e)
            return r if _within(r, t) else (t.min(), t.max())
        case ir.Min() | ir.Max():
            (a0, a1), (b0, b1) = _range(e.a), _range(e.b)
            pick = min if isinstance(e, ir.Min) else max
            return pick(a0, b0), pick(a1, b1)
        case ir.Div():
            k = ops.as_const(e.b)
            if isinstance(k, int) and k > 0:  # floor division is monotonic
                lo, hi = _range(e.a)
                return lo // k, hi // k
        case ir.Call(name="shift_right"):
            k = ops.as_const(e.args[1])
            if isinstance(k, int) and 0 <= k < t.bits:
                lo, hi = _range(e.args[0])
                return lo >> k, hi >> k
        case ir.Call(name="widening_mul"):
            (a0, a1), (b0, b1) = _range(e.args[0]), _range(e.args[1])
            corners = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
            return min(corners), max(corners)
    return t.min(), t.max()


# -- shapes ------------------------------------------------------------------------------------

def _narrow(x: ir.Expr, t: Type) -> ir.Expr | None:
    """An expression of element type t with x's lanes and x's value, where x is a lossless
    widening of one or a constant that t holds; else None."""
    if x.type.element_of() == t:
        return x
    c = ops.as_const(x)
    if c is not None:
        if not isinstance(c, int) or not t.min() <= c <= t.max():
            return None
        k = ops.const(c, t)
        return k if x.type.is_scalar() else ir.Broadcast(k, x.type.lanes)
    if isinstance(x, ir.Cast) and _is_integer(x.value.type) and \
            _within(_range(x.value), x.type):
        return _narrow(x.value, t)
    return None


def _strip_widening(x: ir.Expr) -> ir.Expr:
    """x without its lossless integer casts on top."""
    while isinstance(x, ir.Cast) and _is_integer(x.value.type) and \
            _within(_range(x.value), x.type):
        x = x.value
    return x


def _halved(e: ir.Expr, k: int) -> ir.Expr | None:
    """x where e is floor(x / 2**k): a division by 2**k or a right shift by k."""
    if isinstance(e, ir.Div) and ops.as_const(e.b) == 1 << k and not e.type.is_float():
        return e.a
    if isinstance(e, ir.Call) and e.call_type is ir.CallType.INTRINSIC and \
            e.name == "shift_right" and ops.as_const(e.args[1]) == k:
        return e.args[0]
    return None


def _clamp(e: ir.Expr) -> tuple[ir.Expr, int | None, int | None]:
    """e as clamp(x, lo, hi) with constant bounds, lo or hi None when that side is open."""
    lo = hi = None
    while isinstance(e, ir.Min | ir.Max):
        k, x = ops.as_const(e.b), e.a
        if k is None:
            k, x = ops.as_const(e.a), e.b
        if not isinstance(k, int):
            break
        if isinstance(e, ir.Min) and hi is None:
            hi = k
        elif isinstance(e, ir.Max) and lo is None:
            lo = k
        else:
            break
        e = x
    return e, lo, hi


def _distance(a: ir.Expr, b: ir.Expr) -> int | None:
    """b - a when it is a constant."""
    terms, const = linear_form(ir.Sub(b, a))
    return None if terms else const


def _strided(x: ir.Expr) -> ir.Load | None:
    """x when it loads every other element (a Ramp of stride 2)."""
    if isinstance(x, ir.Load) and x.predicate is None and isinstance(x.index, ir.Ramp) and \
            ops.as_const(x.index.stride) == 2:
        return x
    return None


def _odd_after(even: ir.Expr, odd: ir.Expr) -> int | None:
    """+1 when `odd` loads the elements right after `even`'s, -1 when right before."""
    a, b = _strided(even), _strided(odd)
    if a is None or b is None or a.name != b.name or a.type != b.type:
        return None
    d = _distance(a.index.base, b.index.base)
    return d if d in (1, -1) else None


def _dense(even: ir.Load) -> ir.Load:
    """The even elements' load with the odd ones in between: twice the lanes, stride 1."""
    lanes = 2 * even.type.lanes
    base = even.index.base
    return ir.Load(even.type.with_lanes(lanes), even.name,
                   ir.Ramp(base, ops.const(1, base.type), lanes))


def _is_call(e: ir.Expr, name: str) -> bool:
    return isinstance(e, ir.Call) and e.call_type is ir.CallType.INTRINSIC and e.name == name


# -- idioms ------------------------------------------------------------------------------------

def _rounding_halving_add(e: ir.Cast) -> ir.Expr | None:
    """T((W(a) + W(b) + 1) / 2): the sum cannot wrap, and its half fits T."""
    t = e.type.element_of()
    s = _halved(e.value, 1)
    if s is None or t.bits > 32:
        return None
    terms, spine = [], []

    def flatten(x):
        if isinstance(x, ir.Add) and x.type == s.type:
            spine.append(x)
            flatten(x.a)
            flatten(x.b)
        else:
            terms.append(x)
    flatten(s)
    consts = [ops.as_const(x) for x in terms if ops.as_const(x) is not None]
    others = [x for x in terms if ops.as_const(x) is None]
    if sum(consts) != 1 or len(others) != 2 or any(_wraps(x) for x in spine):
        return None
    a, b = _narrow(others[0], t), _narrow(others[1], t)
    if a is None or b is None:
        return None
    return _call(e.type, "rounding_halving_add", a, b)


def _saturating_narrow(e: ir.Cast) -> ir.Expr | None:
    """T(clamp(x, lo, hi)) where, over x's range, the clamp is the one to T's range."""
    t = e.type.element_of()
    x, lo, hi = _clamp(e.value)
    src = x.type
    if (lo is None and hi is None) or not _is_integer(src) or src.bits <= t.bits:
        return None
    if lo is not None and hi is not None and lo > hi:  # then the order of min and max matters
        return None
    rlo, rhi = _range(x)
    same_lo = lo == t.min() or (t.min() <= rlo and (lo is None or lo <= rlo))
    same_hi = hi == t.max() or (rhi <= t.max() and (hi is None or rhi <= hi))
    if not (same_lo and same_hi):
        return None
    return _saturating_arithmetic(x, e.type) or _q15mulr(x, e.type) or \
        _call(e.type, "saturating_narrow", x)


def _saturating_arithmetic(x: ir.Expr, t: Type) -> ir.Expr | None:
    """saturating_narrow(W(a) +/- W(b)) to T, for a and b of type T, the sum not wrapping in W."""
    x = _strip_widening(x)
    if not isinstance(x, ir.Add | ir.Sub) or _wraps(x):
        return None
    a, b = _narrow(x.a, t.element_of()), _narrow(x.b, t.element_of())
    if a is None or b is None or (ops.is_const(a) and ops.is_const(b)):
        return None
    return _call(t, "saturating_add" if isinstance(x, ir.Add) else "saturating_sub", a, b)


def _q15mulr(x: ir.Expr, t: Type) -> ir.Expr | None:
    """saturating_narrow((i32(a) * i32(b) + 16384) >> 15) to int16, a and b int16."""
    if t.element_of() != Int(16) or x.type.element_of() != Int(32):
        return None
    s = _halved(x, 15)
    if not isinstance(s, ir.Add):
        return None
    for p, k in ((s.a, s.b), (s.b, s.a)):
        if ops.as_const(k) == 16384 and _is_call(p, "widening_mul") and \
                all(a.type.element_of() == Int(16) for a in p.args):
            return _call(t, "q15mulr", *p.args)
    return None


def _widening_mul(e: ir.Mul) -> ir.Expr | None:
    """W(a) * W(b) for a and b of one type half as wide as W (or b a constant it holds)."""
    w = e.type.element_of()
    if not _is_integer(w) or w.bits < 16:
        return None
    for x, y in ((e.a, e.b), (e.b, e.a)):
        if isinstance(x, ir.Cast) and _is_integer(x.value.type) and \
                2 * x.value.type.bits == w.bits:
            a = x.value
            b = _narrow(y, a.type.element_of())
            if b is not None:
                return _call(e.type, "widening_mul", a, b)
    return None


def _dot(e: ir.Add) -> ir.Expr | None:
    """widening_mul(u_even, v_even) + widening_mul(u_odd, v_odd) for int16 loads of stride 2."""
    p, q = e.a, e.b
    if e.type.element_of() != Int(32) or not (_is_call(p, "widening_mul") and
                                              _is_call(q, "widening_mul")):
        return None
    if any(a.type.element_of() != Int(16) for a in (*p.args, *q.args)):
        return None
    for q0, q1 in (q.args, q.args[::-1]):
        d0, d1 = _odd_after(p.args[0], q0), _odd_after(p.args[1], q1)
        if d0 is not None and d0 == d1:
            u, v = p.args if d0 == 1 else (q0, q1)
            return _call(e.type, "dot", _dense(u), _dense(v))
    return None


def _widening_pairwise_add(e: ir.Add) -> ir.Expr | None:
    """W(v_even) + W(v_odd) for loads of stride 2 of a type half as wide as W."""
    if not (isinstance(e.a, ir.Cast) and isinstance(e.b, ir.Cast)) or not _is_integer(e.type):
        return None
    x, y = e.a.value, e.b.value
    if not _is_integer(x.type) or 2 * x.type.bits != e.type.bits:
        return None
    d = _odd_after(x, y)
    if d is None:
        return None
    return _call(e.type, "widening_pairwise_add", _dense(x if d == 1 else y))


def _rewrite(e: ir.Expr) -> ir.Expr:
    e = rebuild(e, _rewrite)
    if e.type.is_scalar():
        return e
    match e:
        case ir.Cast() if _is_integer(e.type) and _is_integer(e.value.type):
            return _rounding_halving_add(e) or _saturating_narrow(e) or e
        case ir.Mul():
            return _widening_mul(e) or e
        case ir.Add():
            return _dot(e) or _widening_pairwise_add(e) or e
    return e


def run(s: st.Stmt, ctx: LowerContext | None = None) -> st.Stmt:
    def go(n):
        if isinstance(n, ir.Expr):
            return _rewrite(n)
        if isinstance(n, st.For) and n.for_type in _GPU_LOOPS:
            return n
        return rebuild(n, go)
    return go(s)
