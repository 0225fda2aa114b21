"""Reverse-mode automatic differentiation: `hl.propagate_adjoints` and `hl.Derivative`, as in
Halide's Derivative.h.

Every Func the output depends on gets one adjoint Func per stage: `d[f]` is the adjoint of the
value f's pure definition computes, `d[f, k]` that of f after update k; Buffers, ImageParams and
float Params get one too (`d[buf]`, a 0-dimensional Func for a Param). The Funcs are visited
consumers first and each stage's definitions last to first. A stage's adjoint is pushed down its
right side by the chain rule until it reaches a call `g(args)` (a scatter,
`d_g(args) += adjoint`), which becomes a definition of d_g:

  - an argument affine in one Var of the stage with coefficient +-1 (`g(x - 1, y)`) is inverted,
    so the scatter becomes a gather (`d_g(x, y) += d_f(x + 1, y)`), other uses of that Var in the
    adjoint being clamped to the region the stage computes;
  - any other argument (`clamp(x, 0, w - 1)`, `x * y`, `2 * x`) scatters through an RDom over
    that region (`d_g(clamp(r.x, 0, w - 1)) += d_f(r.x)`), and so do the stage's Vars the
    arguments leave out (`d_g(x) += sum over y of d_f(x, y)`);
  - a stage's reads of its own Func go to the previous stage's adjoint (`=`, since the update
    overwrites them), the rest accumulates (`+=`).

The regions come from a bounds inference from the output's region, which must bound every
access, as Halide requires. What Halide refuses webhal refuses with a HalideError naming the
Func: updates whose adjoints need overwritten intermediate values. webhal also refuses what it
does not implement: Tuple-valued Funcs, and scans whose updates read values other iterations
of the same update wrote (`f(x, r + 1) = 2 * f(x, r) + g(r)`).
"""

from __future__ import annotations

import dataclasses
import warnings

from webhal.analysis.intervals import Interval, bounds_of
from webhal.analysis.linear import linear_form
from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.function import Function, ReductionDomain
from webhal.ir.printer import to_string
from webhal.ir.types import Int
from webhal.ir.visitor import free_variables, rebuild, substitute, walk
from webhal.lang.func import Func
from webhal.lang.graph import functions_of
from webhal.lang.names import unique_name
from webhal.passes.simplify import simplify_expr

I32 = Int(32)


class Derivative:
    """The adjoint Funcs made by propagate_adjoints: `d[f]` (of f's pure definition), `d[f, k]`
    (of f after update k), `d[buffer]`, `d[image_param]`, `d[param]` or `d[name]`. Anything the
    output does not depend on differentiably gives an undefined Func, as in Halide."""

    def __init__(self, adjoints: dict[tuple[str, int], Func]):
        self._adjoints = adjoints

    def __getitem__(self, key) -> Func:
        stage = -1
        if isinstance(key, tuple):
            key, stage = key
        if not isinstance(key, str) and not hasattr(key, "name"):
            raise CompileError(f"a Derivative is indexed by a Func (and an update index), a "
                               f"Buffer, an ImageParam, a Param or a name, not {key!r}",
                               user_location())
        name = key if isinstance(key, str) else key.name()
        found = self._adjoints.get((name, stage))
        return found if found is not None else Func()

    def __repr__(self):
        return f"<webhal.Derivative of {len(self._adjoints)} adjoint Funcs>"


def propagate_adjoints(output: Func, adjoint=None, output_bounds=None) -> Derivative:
    """The adjoints of everything `output` depends on (Halide's propagate_adjoints).

    - `propagate_adjoints(f)`: f's adjoint is 1 and its region the point 0 in every dimension
      (for a 0-dimensional loss);
    - `propagate_adjoints(f, buffer)`: the adjoint is the float Buffer (0 outside it) over the
      Buffer's region;
    - `propagate_adjoints(f, adjoint_func, [(min, extent), ...])`: an adjoint Func over a region,
      taken, as Halide takes it, as min to min + extent inclusive.
    """
    from webhal.lang.boundary import constant_exterior
    from webhal.lang.buffer import Buffer
    out = output.function()
    if not out.defined:
        raise CompileError(f"propagate_adjoints: Func {out.name} is not defined",
                           user_location())
    dims = out.dimensions
    if adjoint is None:
        adjoint = Func("adjoint")
        adjoint[tuple(ir.Variable(I32, a) for a in out.pure_args)] = ops.const(1.0, out.type)
        box = [Interval(ops.const(0), ops.const(0))] * dims
    elif isinstance(adjoint, Buffer):
        if not adjoint.type().is_float() or adjoint.dimensions() != dims:
            raise CompileError(f"propagate_adjoints: the adjoint Buffer {adjoint.name()} must "
                               f"be float with the {dims} dimensions of Func {out.name}, not "
                               f"{adjoint.type()} with {adjoint.dimensions()}", user_location())
        box = [Interval(ops.const(adjoint.dim(i).min()),
                        ops.const(adjoint.dim(i).min() + adjoint.dim(i).extent() - 1))
               for i in range(dims)]
        adjoint = constant_exterior(adjoint, 0.0)
    else:
        if output_bounds is None or len(output_bounds) != dims or adjoint.dimensions() != dims:
            raise CompileError(f"propagate_adjoints: Func {out.name} has {dims} dimensions; "
                               "the adjoint Func and output_bounds (a (min, extent) per "
                               "dimension) must have as many", user_location())
        box = []
        for b in output_bounds:
            lo, extent = (b.min, b.extent) if hasattr(b, "extent") else b
            lo, extent = _int_node(lo), _int_node(extent)
            box.append(Interval(lo, ops.add(lo, extent)))  # Halide's max: min + extent
    return _Propagation(out, adjoint, box).run()


def _int_node(v) -> ir.Expr:
    from webhal.lang.expr import to_node
    return ops.cast(I32, to_node(v))


@dataclasses.dataclass
class _Stage:
    """The stage whose adjoint is being pushed to its callees."""

    fn: Function
    index: int           # -1 for the pure definition, k for update k
    adjoint: Function    # its adjoint Function
    box: list[Interval]  # the region of fn that is needed


class _Propagation:
    def __init__(self, output: Function, adjoint: Func, box: list[Interval]):
        self.order = functions_of([output])  # producers first; output last
        self.adjoints: dict[tuple[str, int], Func] = {}
        self.output, self.adjoint, self.box = output, adjoint, box

    def run(self) -> Derivative:
        for fn in self.order:
            if fn.is_tuple:
                raise CompileError(f"propagate_adjoints: Func {fn.name} computes a Tuple; "
                                   "webhal differentiates single-valued Funcs only",
                                   user_location())
            for k in range(len(fn.updates)):
                _check_overwrites(fn, k)
        self.bounds = _infer_bounds(self.order, self.output, self.box)
        self._make_stubs()
        for fn in reversed(self.order):
            for k in range(len(fn.updates) - 1, -2, -1):
                self._propagate_stage(fn, k)
        return Derivative(self.adjoints)

    def _make_stubs(self) -> None:
        for fn in self.order:
            for k in range(-1, len(fn.updates)):
                f = Func(f"{fn.name}_{k + 1}_d_def__")
                args = tuple(ir.Variable(I32, a) for a in fn.pure_args)
                if fn is self.output and k == len(fn.updates) - 1:
                    f[args] = self.adjoint[args]
                else:
                    f[args] = ops.const(0, fn.type)
                self.adjoints[(fn.name, k)] = f
        seen = {}
        for fn in self.order:
            for d in fn.definitions:
                for v in d.values:
                    for n in walk(v):
                        if isinstance(n, ir.Call) and n.call_type is ir.CallType.IMAGE and \
                                n.type.is_float():
                            seen[n.name] = (len(n.args), n.type)
                        elif isinstance(n, ir.Variable) and n.param is not None and \
                                n.type.is_float():
                            seen[n.name] = (0, n.type)
        for name, (dims, t) in seen.items():
            if any(key[0] == name for key in self.adjoints):
                raise CompileError(f"propagate_adjoints: a Buffer or Param and a Func are both "
                                   f"named {name}", user_location())
            f = Func(f"{name.replace('.', '_')}_d__")
            f[tuple(ir.Variable(I32, unique_name("v")) for _ in range(dims))] = ops.const(0, t)
            self.adjoints[(name, -1)] = f

    def _propagate_stage(self, fn: Function, k: int) -> None:
        current = self.adjoints[(fn.name, k)].function()
        stage = _Stage(fn, k, current, self.bounds[fn.name])
        d = fn.definitions[k + 1]
        if k >= 0:
            self._mask_previous(fn, k)
            args = d.args
        else:
            args = tuple(ir.Variable(I32, a) for a in fn.pure_args)
        seed = ir.Call(fn.type, current.name, args, ir.CallType.HALIDE, func=current)
        found: dict[ir.Expr, ir.Expr] = {}
        _backprop(_inline_lets(d.value), seed, found)
        # Reads of fn itself first: the previous stage's adjoint is set, not added to. Last
        # read first, as Halide visits them (it decides which `=` wins).
        for own in (True, False):
            for leaf, adj in reversed(found.items()):
                is_own = isinstance(leaf, ir.Call) and leaf.func is fn
                if is_own == own:
                    self._scatter(stage, leaf, adj, own, d.rdom)

    def _mask_previous(self, fn: Function, k: int) -> None:
        """The previous stage's adjoint is this one's, except where update k overwrites."""
        prev = self.adjoints[(fn.name, k - 1)].function()
        current = self.adjoints[(fn.name, k)].function()
        pure = [ir.Variable(I32, a) for a in fn.pure_args]
        update_args = list(fn.definitions[k + 1].args)
        where = user_location()
        prev.definitions = []
        zero = ops.const(0, fn.type)
        if update_args == pure:  # every point is overwritten
            prev.define_pure(pure, zero, where)
            return
        prev.define_pure(pure, ir.Call(fn.type, current.name, tuple(pure), ir.CallType.HALIDE,
                                       func=current), where)
        prev.define_update(update_args, zero, where)

    def _scatter(self, stage: _Stage, leaf: ir.Expr, adjoint: ir.Expr, own: bool,
                 rdom: ReductionDomain | None) -> None:
        """d_target(leaf's arguments) += adjoint, made a definition of d_target."""
        fn = stage.fn
        if isinstance(leaf, ir.Variable):  # a Param
            key, lhs = (leaf.name, -1), []
        elif leaf.call_type is ir.CallType.IMAGE:
            key, lhs = (leaf.name, -1), list(leaf.args)
        else:
            callee = leaf.func
            key = (callee.name, stage.index - 1) if own else \
                (callee.name, len(callee.updates) - 1)
            lhs = list(leaf.args)
        target = self.adjoints[key].function()
        names = list(fn.pure_args)
        exprs = [adjoint, *(rdom.predicates if rdom is not None else ())]
        solved: dict[str, ir.Variable] = {}
        new_args = [ir.Variable(I32, unique_name(f"u{i}_")) for i in range(len(lhs))]
        for i, arg in enumerate(lhs):
            inverse = _invert(arg, names, new_args[i])
            if inverse is None:
                continue
            var, value = inverse
            box = stage.box[names.index(var)]
            clamped = ir.Max(ir.Min(ir.Variable(I32, var), box.max), box.min)
            exprs = [_restore_own_calls(substitute(e, {var: clamped}), stage.adjoint,
                                        names.index(var), var) for e in exprs]
            exprs = [substitute(e, {var: value}) for e in exprs]
            lhs[i] = new_args[i]
            solved[var] = new_args[i]
        lhs = [substitute(a, solved) for a in lhs]
        # What is left of the stage's Vars scatters through RDoms over the stage's region.
        region = [(b.min, ops.add(ops.sub(b.max, b.min), ops.const(1))) for b in stage.box]
        around = ReductionDomain(unique_name("r"), [m for m, _ in region], [e for _, e in region])
        rvar = {n: ir.Variable(I32, around.var_name(i), rdom=around) for i, n in enumerate(names)}
        used = {v.name for a in lhs for v in free_variables(a) if v.name in rvar}
        lhs = [substitute(a, {n: rvar[n] for n in used}) for a in lhs]
        exprs = [substitute(e, {n: rvar[n] for n in used}) for e in exprs]
        free = [n for n in names if any(v.name == n for v in free_variables(exprs[0]))]
        rest = ReductionDomain(unique_name("r"), [region[names.index(n)][0] for n in free],
                               [region[names.index(n)][1] for n in free])
        exprs = [substitute(e, {n: ir.Variable(I32, rest.var_name(i), rdom=rest)
                                for i, n in enumerate(free)}) for e in exprs]
        # One RDom per definition: the new RVars, then the stage's own.
        adjoint = exprs[0]
        # The stage RDom's predicates come along when any of its RVars does.
        predicates = exprs[1:] if rdom is not None and _uses_rdom([*lhs, adjoint], rdom) else []
        merged, renames = _merge_rvars([*lhs, adjoint, *predicates], [around, rest], rdom)
        if merged is not None:
            merged.predicates = [substitute(p, renames) for p in predicates]
        to_target = {u.name: ir.Variable(I32, a) for u, a in zip(new_args, target.pure_args)}
        lhs = [simplify_expr(substitute(substitute(a, renames), to_target)) for a in lhs]
        adjoint = simplify_expr(substitute(substitute(adjoint, renames), to_target))
        if merged is not None:
            merged.predicates = [simplify_expr(substitute(p, to_target))
                                 for p in merged.predicates]
        _define(target, lhs, adjoint, merged, accumulate=not own)


def _define(target: Function, lhs: list[ir.Expr], adjoint: ir.Expr,
            rdom: ReductionDomain | None, accumulate: bool) -> None:
    """Add `target(lhs) (+)= adjoint`, into the last definition when it has the same left side
    and RDom (fewer stages, same values)."""
    last = target.definitions[-1]
    pure = [ir.Variable(I32, a) for a in target.pure_args]
    if len(target.definitions) == 1:
        mergeable = lhs == pure and rdom is None
    else:
        mergeable = list(last.args) == lhs and _same_domain(last.rdom, rdom)
    if mergeable:
        if rdom is not None:
            adjoint = substitute(adjoint, {rdom.var_name(i): ir.Variable(
                I32, last.rdom.var_name(i), rdom=last.rdom) for i in range(len(rdom.mins))})
        value = simplify_expr(ops.add(last.value, adjoint)) if accumulate else adjoint
        target.definitions[-1] = dataclasses.replace(last, values=(value,))
        return
    if accumulate:
        here = ir.Call(target.type, target.name, tuple(lhs), ir.CallType.HALIDE, func=target)
        adjoint = ops.add(here, adjoint)
    target.define_update(lhs, adjoint, user_location())


def _same_domain(a: ReductionDomain | None, b: ReductionDomain | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.mins == b.mins and a.extents == b.extents and not a.predicates and \
        not b.predicates


def _uses_rdom(exprs, rdom: ReductionDomain) -> bool:
    return any(v.rdom is rdom for e in exprs for v in free_variables(e))


def _merge_rvars(exprs, new: list[ReductionDomain], old: ReductionDomain | None):
    """One RDom for every RVar the expressions use, new domains' first; (it, renames)."""
    used = {v.name: v for e in exprs for v in free_variables(e) if v.rdom is not None}
    dims = []
    for dom in [*new, old]:
        if dom is None:
            continue
        dims += [(dom.var_name(i), dom.mins[i], dom.extents[i]) for i in range(len(dom.mins))
                 if dom.var_name(i) in used]
    if not dims:
        return None, {}
    merged = ReductionDomain(unique_name("r"), [m for _, m, _ in dims], [e for _, _, e in dims])
    return merged, {n: ir.Variable(I32, merged.var_name(i), rdom=merged)
                    for i, (n, _, _) in enumerate(dims)}


def _invert(arg: ir.Expr, names: list[str], u: ir.Variable):
    """(Var, its value in terms of u) when `arg == u` solves for the one stage Var in arg
    (coefficient +-1); else None, and the argument scatters through an RDom."""
    inside = {v.name for v in free_variables(arg) if v.name in names and v.rdom is None}
    if len(inside) != 1:
        return None
    var = inside.pop()
    terms, const = linear_form(arg)
    coefficient = terms.pop(ir.Variable(I32, var), None)
    if coefficient not in (1, -1) or any(var in {v.name for v in free_variables(t)}
                                         for t in terms):
        return None
    rest = ops.const(const)
    for t, c in terms.items():
        rest = ops.add(rest, ops.mul(t, ops.const(c)))
    value = ops.sub(u, rest) if coefficient == 1 else ops.sub(rest, u)
    return var, value


def _restore_own_calls(e: ir.Expr, adjoint: Function, position: int, var: str) -> ir.Expr:
    """Calls of the stage's adjoint read it at the stage Var itself, never clamped: it is 0
    outside the region, which the clamp would lose."""
    def go(n):
        n = rebuild(n, go)
        if isinstance(n, ir.Call) and n.func is adjoint:
            args = list(n.args)
            args[position] = ir.Variable(I32, var)
            return dataclasses.replace(n, args=tuple(args))
        return n
    return go(e)


def _inline_lets(e: ir.Expr) -> ir.Expr:
    def go(n):
        if isinstance(n, ir.Let):
            return go(substitute(n.body, {n.name: n.value}))
        return rebuild(n, go)
    return go(e)


# -- the chain rule on one expression -----------------------------------------------------------

def _zero(t) -> ir.Expr:
    return ops.const(0, t)


def _inside_zero_select(adj: ir.Expr, apply) -> ir.Expr:
    """apply(adj), kept inside a select with a zero branch, so 0 * inf (or 0 / 0) is never
    NaN."""
    if isinstance(adj, ir.Select):
        if ops.is_const(adj.true_value, 0):
            return ir.Select(adj.condition, adj.true_value,
                             _inside_zero_select(adj.false_value, apply))
        if ops.is_const(adj.false_value, 0):
            return ir.Select(adj.condition, _inside_zero_select(adj.true_value, apply),
                             adj.false_value)
    return apply(adj)


def _times(adj: ir.Expr, factor: ir.Expr) -> ir.Expr:
    return _inside_zero_select(adj, lambda a: ops.mul(a, factor))


def _over(adj: ir.Expr, divisor: ir.Expr) -> ir.Expr:
    return _inside_zero_select(adj, lambda a: ir.Div(a, divisor))


def _neg(e: ir.Expr) -> ir.Expr:
    return ir.Sub(_zero(e.type), e)


def _math(name: str, *args: ir.Expr) -> ir.Expr:
    return ir.Call(args[0].type, name, args, ir.CallType.PURE_EXTERN)


def _one(t) -> ir.Expr:
    return ops.const(1, t)


# d/dx of each math function of one argument, as a function of x (and the call's type).
_MATH = {
    "exp": lambda x: _math("exp", x),
    "sin": lambda x: _math("cos", x),
    "cos": lambda x: _neg(_math("sin", x)),
    "sinh": lambda x: _math("cosh", x),
    "cosh": lambda x: _math("sinh", x),
    "sqrt": lambda x: ir.Div(ops.const(0.5, x.type), _math("sqrt", x)),
}
# ... and those whose derivative is best written adj / g(x).
_MATH_OVER = {
    "log": lambda x: x,
    "asin": lambda x: _math("sqrt", ir.Sub(_one(x.type), ir.Mul(x, x))),
    "tan": lambda x: ir.Mul(_math("cos", x), _math("cos", x)),
    "atan": lambda x: ir.Add(_one(x.type), ir.Mul(x, x)),
    "asinh": lambda x: _math("sqrt", ir.Add(_one(x.type), ir.Mul(x, x))),
    "acosh": lambda x: ir.Mul(_math("sqrt", ir.Sub(x, _one(x.type))),
                              _math("sqrt", ir.Add(x, _one(x.type)))),
    "tanh": lambda x: ir.Mul(_math("cosh", x), _math("cosh", x)),
    "atanh": lambda x: ir.Sub(_one(x.type), ir.Mul(x, x)),
}
_ZERO_GRADIENT = {"floor", "ceil", "round", "trunc", "bitwise_and", "bitwise_or", "bitwise_xor",
                  "bitwise_not", "shift_left", "shift_right", "is_nan", "is_inf", "is_finite",
                  "popcount", "count_leading_zeros", "count_trailing_zeros"}


def _backprop(e: ir.Expr, adj: ir.Expr, found: dict) -> None:
    """Push the adjoint `adj` of e down to the Func, Buffer and Param reads inside it, adding
    what reaches each (by value) into `found`."""
    if not e.type.is_float():
        return  # nothing continuous flows through integers or bools
    match e:
        case ir.FloatImm():
            return
        case ir.Variable():
            if e.param is not None:
                _add(found, e, adj)
        case ir.Cast():
            _backprop(e.value, ops.cast(e.value.type, adj), found)
        case ir.Add():
            _backprop(e.a, adj, found)
            _backprop(e.b, adj, found)
        case ir.Sub():
            _backprop(e.a, adj, found)
            _backprop(e.b, _neg(adj), found)
        case ir.Mul():
            _backprop(e.a, _times(adj, e.b), found)
            _backprop(e.b, _times(adj, e.a), found)
        case ir.Div():
            _backprop(e.a, _over(adj, e.b), found)
            _backprop(e.b, _over(_times(_neg(adj), e.a), ir.Mul(e.b, e.b)), found)
        case ir.Mod():  # a - trunc(a / b) * b
            _backprop(e.a, adj, found)
            trunc = ir.Call(e.type, "trunc", (ir.Div(e.a, e.b),), ir.CallType.INTRINSIC)
            _backprop(e.b, _times(_neg(adj), trunc), found)
        case ir.Min() | ir.Max():
            wins = ir.LE if isinstance(e, ir.Min) else ir.GE
            _backprop(e.a, ir.Select(wins(e.a, e.b), adj, _zero(adj.type)), found)
            _backprop(e.b, ir.Select(wins(e.b, e.a), adj, _zero(adj.type)), found)
        case ir.Select():
            _backprop(e.true_value, ir.Select(e.condition, adj, _zero(adj.type)), found)
            _backprop(e.false_value, ir.Select(e.condition, _zero(adj.type), adj), found)
        case ir.Reinterpret():
            return
        case ir.Call():
            _backprop_call(e, adj, found)
        case _:
            raise CompileError(f"propagate_adjoints cannot differentiate {to_string(e)}",
                               user_location())


def _backprop_call(e: ir.Call, adj: ir.Expr, found: dict) -> None:
    args = e.args
    if e.call_type in (ir.CallType.HALIDE, ir.CallType.IMAGE):
        _add(found, e, adj)
    elif e.call_type is ir.CallType.PURE_EXTERN and e.name in _MATH:
        _backprop(args[0], _times(adj, _MATH[e.name](args[0])), found)
    elif e.call_type is ir.CallType.PURE_EXTERN and e.name in _MATH_OVER:
        _backprop(args[0], _over(adj, _MATH_OVER[e.name](args[0])), found)
    elif e.name == "acos":
        _backprop(args[0], _over(_neg(adj), _MATH_OVER["asin"](args[0])), found)
    elif e.name == "atan2":
        y, x = args
        norm = ir.Add(ir.Mul(y, y), ir.Mul(x, x))
        _backprop(y, _times(adj, ir.Div(x, norm)), found)
        _backprop(x, _times(adj, ir.Div(_neg(y), norm)), found)
    elif e.name == "pow":
        a, b = args
        _backprop(a, _times(_times(adj, b), _math("pow", a, ir.Sub(b, _one(b.type)))), found)
        _backprop(b, _times(_times(adj, e), _math("log", a)), found)
    elif e.name == "abs":
        sign = ir.Select(ir.GT(args[0], _zero(e.type)), _one(e.type), ops.const(-1, e.type))
        _backprop(args[0], _times(adj, sign), found)
    elif e.name == "lerp":
        lo, hi, w = args
        _backprop(lo, _times(adj, ir.Sub(_one(e.type), w)), found)
        _backprop(hi, _times(adj, w), found)
        _backprop(w, _times(adj, ir.Sub(hi, lo)), found)
    elif e.name == "likely":
        _backprop(args[0], adj, found)
    elif e.name not in _ZERO_GRADIENT:
        warnings.warn(f"propagate_adjoints: dropping gradients at call to {e.name}",
                      stacklevel=2)


def _add(found: dict, leaf: ir.Expr, adj: ir.Expr) -> None:
    found[leaf] = ops.add(found[leaf], adj) if leaf in found else adj


# -- checks and bounds --------------------------------------------------------------------------

def _check_overwrites(fn: Function, k: int) -> None:
    """Refuse update k of fn when its adjoints would need values it overwrites (Halide refuses
    these too), or when it is a scan reading other iterations' results (webhal does not
    implement Halide's reversal of those)."""
    d = fn.definitions[k + 1]
    found: dict[ir.Expr, ir.Expr] = {}
    _backprop(_inline_lets(d.value), ops.const(1.0, fn.type), found)
    own = [leaf for leaf in found if isinstance(leaf, ir.Call) and leaf.func is fn]
    others = [leaf for leaf in found if leaf not in own]
    reads_self = any(isinstance(n, ir.Call) and n.func is fn
                     for adj in found.values() for n in walk(adj))
    problem = (f"propagate_adjoints: cannot take the gradients of Func {fn.name}, whose "
               f"update {k} needs intermediate values it overwrites; write it as a scan that "
               "keeps them (a new dimension per iteration)")
    if reads_self:
        pure_calls = any(isinstance(n, ir.Call) and n.call_type in (
            ir.CallType.HALIDE, ir.CallType.IMAGE) for n in walk(fn.definitions[0].value))
        if pure_calls or any(not _disjoint(_box(fn.definitions[j + 1]), _box(d))
                             for j in range(k)):
            raise CompileError(problem, d.where)
    self_adjoint = simplify_expr(_sum([found[leaf] for leaf in own], fn.type))
    if d.rdom is None or ops.is_const(self_adjoint, 0) or ops.is_const(self_adjoint, 1):
        return
    overwriting = any(_same_point(leaf.args, d.args) for leaf in own)
    if not overwriting:
        raise CompileError(f"propagate_adjoints: update {k} of Func {fn.name} is a scan "
                           "(it reads what other iterations of its RDom wrote, with a "
                           "derivative other than 0 or 1); webhal does not differentiate "
                           "such scans yet", d.where)
    if others:
        raise CompileError(problem, d.where)


def _sum(exprs, t) -> ir.Expr:
    total = _zero(t)
    for e in exprs:
        total = ops.add(total, e)
    return total


def _same_point(a, b) -> bool:
    """Whether two argument lists may name the same point (they differ by no constant)."""
    for x, y in zip(a, b):
        terms, const = linear_form(ops.sub(x, y) if x.type == y.type else x)
        if not terms and const != 0:
            return False
    return True


def _box(d) -> list[Interval]:
    scope = _rvar_scope(d.rdom)
    return [bounds_of(a, scope) for a in d.args]


def _disjoint(a: list[Interval], b: list[Interval]) -> bool:
    for p, q in zip(a, b):
        lo = [ops.as_const(v) if v is not None else None for v in (p.min, p.max, q.min, q.max)]
        if None not in lo and (lo[1] < lo[2] or lo[3] < lo[0]):
            return True
    return False


def _rvar_scope(rdom: ReductionDomain | None) -> dict[str, Interval]:
    if rdom is None:
        return {}
    return {rdom.var_name(i): Interval(m, ops.sub(ops.add(m, e), ops.const(1)))
            for i, (m, e) in enumerate(zip(rdom.mins, rdom.extents))}


def _infer_bounds(order: list[Function], output: Function,
                  box: list[Interval]) -> dict[str, list[Interval]]:
    """The region of each Func and Buffer that computing `box` of the output reads."""
    bounds = {output.name: box}
    for fn in reversed(order):
        here = bounds.get(fn.name)
        if here is None:
            continue
        for d in fn.definitions:
            scope = {a: b for a, b in zip(fn.pure_args, here)}
            scope.update(_rvar_scope(d.rdom))
            for node in d.nodes():
                for n in walk(node):
                    if not isinstance(n, ir.Call) or n.call_type not in (
                            ir.CallType.HALIDE, ir.CallType.IMAGE) or n.func is fn:
                        continue
                    found = [bounds_of(a, scope) for a in n.args]
                    old = bounds.get(n.name)
                    bounds[n.name] = found if old is None else \
                        [p.union(q) for p, q in zip(old, found)]
    for name, b in bounds.items():
        for i, iv in enumerate(b):
            if not iv.is_bounded():
                raise CompileError(f"propagate_adjoints: the access to {name} in dimension {i} "
                                   "is not bounded; only bounded accesses can be "
                                   "differentiated (clamp the coordinate)", user_location())
        bounds[name] = [Interval(simplify_expr(iv.min), simplify_expr(iv.max)) for iv in b]
    return bounds
