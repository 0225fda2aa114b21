"""Stage.rfactor (Halide's lesson 18): an associative, commutative reduction split in two, so
that the RVars it preserves become pure Vars of an intermediate Func, which can then run in
parallel or vectorized over them.

For an update `f[args] = f[args] op e` over an RDom R, preserving RVars P as Vars V:

    intm[f's Vars..., V] = identity of op
    intm[args with P -> V, V] = intm[same] op (e with P -> V)      over R without P
    f[f's Vars...] = f[f's Vars...] op intm[f's Vars..., P']       over P' (P's ranges)

op is +, *, min or max; the stage's other RVars are renamed into the intermediate's RDom.
"""

from __future__ import annotations

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.function import Function, ReductionDomain
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


def rfactor(fn: Function, stage: int, preserved: list[tuple[str, str]]):
    """The intermediate Func of rfactor on update `stage` of fn (preserved: (RVar name, new
    Var name) pairs); fn's update is rewritten to reduce the intermediate over them."""
    from webhal.lang.func import Func
    op, e = _reduction(fn, stage)
    d = fn.definitions[stage]
    rdom = d.rdom
    if rdom is None:
        raise CompileError(f"rfactor of {fn.name}.update({stage - 1}): the update has no RDom",
                           user_location())
    names = [rdom.var_name(i) for i in range(len(rdom.mins))]
    split = {n for s in d.schedule.splits for n in (getattr(s, "outer", None),
                                                  getattr(s, "inner", None)) if n}
    dims = {}
    for rvar, var in preserved:
        if rvar in split:
            raise CompileError(f"rfactor: {rvar} comes from a split of an RVar of "
                               f"{fn.name}.update({stage - 1}); webhal's rfactor preserves "
                               "whole RVars only (use an RDom of the tiles' dimensions)",
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
    t = d.value.type
    where = user_location()

    def rdom_of(indices, predicates=()):
        return ReductionDomain(unique_name("rf"), [rdom.mins[i] for i in indices],
                               [rdom.extents[i] for i in indices], list(predicates))

    # The intermediate: the preserved RVars become its Vars V, the others its RDom's RVars.
    inner = rdom_of(kept)
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
