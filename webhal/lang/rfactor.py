"""Stage.rfactor (Halide's lesson 18): an associative, commutative reduction split in two, so
that the RVars it preserves become pure Vars of an intermediate Func, which can then run in
parallel or vectorized over them.

For an update `f[args] = f[args] op e` over an RDom R, preserving RVars P as Vars V:

    intm[f's Vars..., V] = identity of op
    intm[args with P -> V, V] = intm[same] op (e with P -> V)      over R without P
    f[f's Vars...] = f[f's Vars...] op intm[f's Vars..., P']       over P' (P's ranges)

op is +, *, min or max; the stage's other RVars become the intermediate's RDom, under the same
names. Splits of RVars scheduled on the stage before rfactor (lesson 18's tiles) are applied to
R first, as Halide's rfactor does: `split(r.x, ro, ri, k)` makes R's r.x two RVars ri (extent k)
and ro (extent ceil(extent / k)), with r.x = min + ro * k + ri and, unless k divides the extent,
the predicate ro * k + ri < extent; either may then be preserved.
"""

from __future__ import annotations

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.function import Function, ReductionDomain
from webhal.ir.schedule import Split
from webhal.ir.types import Int, Type
from webhal.ir.visitor import substitute, walk
from webhal.lang.names import unique_name

_OPS = {ir.Add: "+", ir.Mul: "*", ir.Min: "min", ir.Max: "max"}


def _identity(op: type, t: Type) -> ir.Expr:
    if op is ir.Add:
        return ops.const(0, t)
    if op is ir.Mul:
        return ops.const(1, t)
    if t.is_float():
        return ops.const(float("inf") if op is ir.Min else float("-inf"), t)
    return ops.const(t.max() if op is ir.Min else t.min(), t)


def _reduction(fn: Function, stage: int) -> tuple[type, ir.Expr]:
    """(op, e) of `f[args] = f[args] op e` (or `e op f[args]`), else a clear error."""
    d = fn.definitions[stage]
    v = d.value
    what = f"rfactor of {fn.name}.update({stage - 1})"
    if fn.is_tuple:
        raise CompileError(f"{what}: webhal's rfactor takes single-valued Funcs only",
                           user_location())
    if type(v) not in _OPS:
        raise CompileError(f"{what}: the update must be f[...] = f[...] op e with op one of "
                           "+, *, min, max (associative and commutative)", user_location())
    for me, e in ((v.a, v.b), (v.b, v.a)):
        if isinstance(me, ir.Call) and me.func is fn and me.args == d.args and \
                not any(isinstance(n, ir.Call) and n.func is fn for n in walk(e)):
            return type(v), e
    raise CompileError(f"{what}: the update must combine f at its own left side "
                       f"({fn.name}[...] {_OPS[type(v)]} e) with a value that does not read "
                       f"{fn.name}", user_location())


def _apply_rvar_splits(fn: Function, stage: int) -> tuple[ReductionDomain, dict]:
    """The stage's RDom with its RVar splits applied (see the module's docstring), and each
    old RVar's name -> its expression in the new RVars."""
    d = fn.definitions[stage]
    rdom = d.rdom
    names = [rdom.var_name(i) for i in range(len(rdom.mins))]
    dims = [(n, rdom.mins[i], rdom.extents[i]) for i, n in enumerate(names)]
    # Each RVar of the original RDom as an expression of the current RVars (by name).
    value_of = {n: ir.Variable(Int(32), n) for n in names}
    predicates = list(rdom.predicates)
    for s in d.schedule.splits:
        if not isinstance(s, Split):
            raise CompileError(f"rfactor of {fn.name}.update({stage - 1}): webhal's rfactor "
                               f"applies splits only; fuse {s.inner} and {s.outer} after it",
                               user_location())
        at = [i for i, dim in enumerate(dims) if dim[0] == s.old]
        if not at:
            raise CompileError(f"rfactor of {fn.name}.update({stage - 1}): the split of {s.old} "
                               "splits a pure Var; schedule pure Vars after rfactor, on the "
                               "Func it returns", user_location())
        i = at[0]
        _, old_min, old_extent = dims[i]
        k = s.factor if isinstance(s.factor, ir.Expr) else ops.const(s.factor)
        outer_extent = ops.div(ops.add(old_extent, ops.sub(k, ops.const(1))), k)
        dims[i:i + 1] = [(s.inner, ops.const(0), k), (s.outer, ops.const(0), outer_extent)]
        offset = ops.add(ops.mul(ir.Variable(Int(32), s.outer), k), ir.Variable(Int(32), s.inner))
        now = {s.old: ops.add(old_min, offset)}
        value_of = {n: substitute(e, now) for n, e in value_of.items()}
        predicates = [substitute(p, now) for p in predicates]
        ce, ck = ops.as_const(old_extent), ops.as_const(k)
        if ce is None or ck is None or ce % ck:
            predicates.append(ops.lt(offset, old_extent))
    new = ReductionDomain(unique_name("rf"), [m for _, m, _ in dims], [e for _, _, e in dims],
                          names=[n for n, _, _ in dims])
    to_new = {n: ir.Variable(Int(32), n, rdom=new) for n, _, _ in dims}
    new.predicates = [substitute(p, to_new) for p in predicates]
    return new, {n: substitute(e, to_new) for n, e in value_of.items()}


def rfactor(fn: Function, stage: int, preserved: list[tuple[str, str]]):
    """The intermediate Func of rfactor on update `stage` of fn (preserved: (RVar name, new
    Var name) pairs); fn's update is rewritten to reduce the intermediate over them."""
    from webhal.lang.func import Func
    _reduction(fn, stage)  # checked before the stage is rewritten
    d = fn.definitions[stage]
    if d.rdom is None:
        raise CompileError(f"rfactor of {fn.name}.update({stage - 1}): the update has no RDom",
                           user_location())
    order = [dim.name for dim in d.schedule.dims]  # innermost first, after the splits
    rdom, value_of = _apply_rvar_splits(fn, stage) if d.schedule.splits else (d.rdom, {})
    names = [rdom.var_name(i) for i in range(len(rdom.mins))]
    dims = {}
    split_into = {s.old: (s.outer, s.inner) for s in d.schedule.splits if isinstance(s, Split)}
    for rvar, var in preserved:
        if rvar in split_into and rvar not in names:
            raise CompileError(f"rfactor: {rvar} was split into {' and '.join(split_into[rvar])} "
                               f"on {fn.name}.update({stage - 1}); preserve those RVars instead",
                               user_location())
        if rvar not in names:
            raise CompileError(f"rfactor: {rvar} is not an RVar of {fn.name}.update"
                               f"({stage - 1}), whose RVars are {', '.join(names)}",
                               user_location())
        if var in fn.pure_args:
            raise CompileError(f"rfactor: Var {var} is already a Var of {fn.name}; give the "
                               "preserved RVar a new Var", user_location())
        dims[names.index(rvar)] = var
    kept = [i for i in range(len(names)) if i not in dims]
    if value_of:  # the splits are consumed: the stage now reads the split RVars
        d.args = tuple(substitute(a, value_of) for a in d.args)
        d.values = tuple(substitute(v, value_of) for v in d.values)
        d.rdom = rdom
        d.schedule.splits = []
    op, e = _reduction(fn, stage)
    t = d.value.type
    where = user_location()

    def rdom_of(indices, names=None):
        return ReductionDomain(unique_name("rf"), [rdom.mins[i] for i in indices],
                               [rdom.extents[i] for i in indices], names=names)

    # The intermediate: the preserved RVars become its Vars V, the others its RDom's RVars,
    # under the same names, so that they can be scheduled on it.
    inner = rdom_of(kept, [names[i] for i in kept])
    to_inner = {names[i]: ir.Variable(Int(32), dims[i]) for i in dims}
    to_inner.update({names[i]: ir.Variable(Int(32), inner.var_name(j), rdom=inner)
                     for j, i in enumerate(kept)})
    inner.predicates = [substitute(p, to_inner) for p in rdom.predicates]
    intm = Func(unique_name(f"{fn.name}_intm"))
    intm_fn = intm.function()
    pure = [ir.Variable(Int(32), a) for a in fn.pure_args]
    new_vars = [ir.Variable(Int(32), dims[i]) for i in sorted(dims)]
    intm_fn.define_pure([*pure, *new_vars], _identity(op, t), where)
    lhs = [*(substitute(a, to_inner) for a in d.args), *new_vars]
    me = ir.Call(t, intm_fn.name, tuple(lhs), ir.CallType.HALIDE, func=intm_fn)
    intm_fn.define_update(lhs, op(me, substitute(e, to_inner)), where)
    # Its loops keep the stage's order, the preserved RVars' Vars where the RVars were.
    renamed = [dims[names.index(n)] if n in names and names.index(n) in dims else n
               for n in order]
    loops = intm_fn.definitions[-1].schedule.dims
    if sorted(renamed) == sorted(dim.name for dim in loops):
        loops.sort(key=lambda dim: renamed.index(dim.name))
    # fn's stage now reduces the intermediate over the preserved RVars.
    outer = rdom_of(sorted(dims))
    over = [ir.Variable(Int(32), outer.var_name(j), rdom=outer) for j in range(len(dims))]
    here = ir.Call(t, fn.name, tuple(pure), ir.CallType.HALIDE, func=fn)
    part = ir.Call(t, intm_fn.name, (*pure, *over), ir.CallType.HALIDE, func=intm_fn)
    saved = fn.definitions
    fn.definitions = saved[:stage]
    fn.define_update(pure, op(here, part), where)
    merged = fn.definitions[-1]
    merged.schedule.scheduled = True  # rfactor is this stage's schedule
    fn.definitions = [*saved[:stage], merged, *saved[stage + 1:]]
    return intm
