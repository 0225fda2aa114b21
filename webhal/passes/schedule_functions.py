"""Build the loop nest the schedule describes: one nest per stage, placed at each Func's compute
level, storage (Realize) at its store level, inlined Funcs substituted into their callers.

Loop variables are named `f.s<stage>.<dim>`; a Func's pure Vars range over `f.<var>.min` ..
`f.<var>.max`, which bounds inference defines. Split and fused variables are defined by lets
around the innermost statement, in terms of the loops.
"""

from __future__ import annotations

import dataclasses

from webhal.errors import ScheduleError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.function import Definition, Function
from webhal.ir.schedule import DeviceAPI, ForType, Fuse, Split, TailStrategy
from webhal.ir.types import Bool, Int
from webhal.ir.visitor import rebuild, substitute
from webhal.passes.context import LowerContext, stages_reading

I32 = Int(32)


def loop_var(fn: Function, stage: int, dim: str) -> str:
    return f"{fn.name}.s{stage}.{dim}"


def region_min(fn: Function, arg: str) -> str:
    return f"{fn.name}.{arg}.min"


def region_max(fn: Function, arg: str) -> str:
    return f"{fn.name}.{arg}.max"


def inline_calls(e: ir.Expr, ctx: LowerContext) -> ir.Expr:
    """Replace calls of inlined Funcs by their definitions."""
    def go(n):
        n = rebuild(n, go)
        if isinstance(n, ir.Call) and n.call_type is ir.CallType.HALIDE and \
                ctx.is_inlined(n.func):
            d = n.func.definitions[0]
            return go(substitute(d.values[n.value_index], dict(zip(n.func.pure_args, n.args))))
        return n
    return go(e)


def qualified_names(d: Definition) -> dict[str, str]:
    """Each loop's unique name within its stage: a split's new loops are named after the loop
    they split (`y` split into `y` and `yi` gives `y.y` and `y.yi`), so no name is reused."""
    qual = {dim.name: dim.name for dim in d.schedule.dims}
    for a in d.args:
        if isinstance(a, ir.Variable):
            qual.setdefault(a.name, a.name)
    if d.rdom is not None:
        for i in range(len(d.rdom.mins)):
            qual.setdefault(d.rdom.var_name(i), d.rdom.var_name(i))
    names = dict(qual)
    for s in d.schedule.splits:
        if isinstance(s, Split):
            q = names[s.old]
            names[s.outer], names[s.inner] = f"{q}.{s.outer}", f"{q}.{s.inner}"
        else:
            names[s.fused] = f"{names[s.inner]}.{s.fused}"
    return names


def _stage_nest(fn: Function, si: int, d: Definition, ctx: LowerContext) -> st.Stmt:
    sched = d.schedule
    prefix = f"{fn.name}.s{si}."
    names = {n: n for n in fn.pure_args}
    if d.rdom is not None:
        for i in range(len(d.rdom.mins)):
            names[d.rdom.var_name(i)] = d.rdom.var_name(i)
    # Where each loop's values come from (min, extent), by unique name.
    ranges: dict[str, tuple[ir.Expr, ir.Expr]] = {}
    last: dict[str, ir.Expr] = {}  # each loop's last value, written as simply as it can be
    one = ops.const(1)
    for name in fn.pure_args:
        lo = ops.var(region_min(fn, name))
        last[name] = ops.var(region_max(fn, name))
        ranges[name] = (lo, ops.add(ops.sub(last[name], lo), one))
    if d.rdom is not None:
        for i, (m, e) in enumerate(zip(d.rdom.mins, d.rdom.extents)):
            m, e = inline_calls(m, ctx), inline_calls(e, ctx)
            ranges[d.rdom.var_name(i)] = (m, e)
            last[d.rdom.var_name(i)] = ops.sub(ops.add(m, e), one)
    lets: list[tuple[str, ir.Expr]] = []
    guards: dict[int, list[ir.Expr]] = {}  # by the index of the let they test
    for s in sched.splits:
        if isinstance(s, Split):
            q_old = names[s.old]
            q_outer, q_inner = f"{q_old}.{s.outer}", f"{q_old}.{s.inner}"
            names[s.outer], names[s.inner] = q_outer, q_inner
            old_min, old_ext = ranges[q_old]
            factor = ops.cast(I32, s.factor)
            outer, inner = ops.var(prefix + q_outer), ops.var(prefix + q_inner)
            tail = _tail(fn, si, d, s, ctx.is_output(fn))
            ranges[q_inner] = (ops.const(0), factor)
            ranges[q_outer] = (ops.const(0), ops.div(ops.add(old_ext, ops.sub(factor,
                                                                              ops.const(1))),
                                                     factor))
            last[q_inner], last[q_outer] = ops.sub(factor, one), ops.sub(ranges[q_outer][1], one)
            base = ops.mul(outer, factor)
            if tail is TailStrategy.ShiftInwards:
                base = ops.minimum(base, ops.sub(old_ext, factor))
            lets.append((prefix + q_old, ops.add(ops.add(base, inner), old_min)))
            if tail is TailStrategy.GuardWithIf:
                guards.setdefault(len(lets) - 1, []).append(
                    ir.LE(ops.var(prefix + q_old), ops.sub(ops.add(old_min, old_ext),
                                                           ops.const(1))))
        elif isinstance(s, Fuse):
            q_in, q_out = names[s.inner], names[s.outer]
            q_fused = f"{q_in}.{s.fused}"
            names[s.fused] = q_fused
            (imin, iext), (omin, oext) = ranges[q_in], ranges[q_out]
            fused = ops.var(prefix + q_fused)
            ranges[q_fused] = (ops.const(0), ops.mul(iext, oext))
            last[q_fused] = ops.sub(ranges[q_fused][1], one)
            # The halves of a fused loop stay within their loops' ranges, which bounds inference
            # cannot see through the % and / by an extent that varies with an outer loop (a
            # producer of a fused Func computed in a GuardWithIf tile): promised to it.
            lets.append((prefix + q_in, ops.promise_clamped(ops.add(ops.mod(fused, iext), imin),
                                                            imin, last[q_in])))
            lets.append((prefix + q_out, ops.promise_clamped(ops.add(ops.div(fused, iext), omin),
                                                             omin, last[q_out])))
    # The innermost statement, with pure Vars and RVars renamed to this stage's loop names.
    rename = {n: ops.var(prefix + n) for n in fn.pure_args}
    if d.rdom is not None:
        for i in range(len(d.rdom.mins)):
            n = d.rdom.var_name(i)
            rename[n] = ops.var(prefix + n)
    args = tuple(substitute(inline_calls(a, ctx), rename) for a in d.args)
    if si == 0:
        args = tuple(ops.var(prefix + n) for n in fn.pure_args)
    values = [substitute(inline_calls(v, ctx), rename) for v in d.values]
    body: st.Stmt = st.Provide(fn.name, values[0], args)
    if len(values) > 1:
        # Every element is computed before any is stored: an update may read the old values
        # of the others (argmax's index reads the running maximum).
        temps = [f"{prefix}value.{i}" for i in range(len(values))]
        body = st.block(*(st.Provide(fn.name, ops.var(n, v.type), args, i)
                          for i, (n, v) in enumerate(zip(temps, values))))
        for n, v in reversed(list(zip(temps, values))):
            body = st.LetStmt(n, v, body)
    if d.rdom is not None and d.rdom.predicates:
        cond = None
        for p in d.rdom.predicates:
            p = substitute(inline_calls(p, ctx), rename)
            cond = p if cond is None else ir.And(cond, p)
        body = st.IfThenElse(cond, body)
    # Each guard sits just inside the let it tests, so that the variables defined from the
    # guarded one (the halves of a fused loop) are bounded by it too.
    for k, (name, value) in enumerate(lets):
        for g in reversed(guards.get(k, [])):
            body = st.IfThenElse(ir.Call(Bool(), "likely", (g,), ir.CallType.INTRINSIC), body)
        body = st.LetStmt(name, value, body)
    for dim in sched.dims:  # innermost first
        q = names[dim.name]
        lo, ext = ranges[q]
        for_type = dim.for_type
        if sched.atomic and dim.is_rvar and for_type in (ForType.Parallel, ForType.Vectorized):
            # An atomic() stage's RVar loops run in order: no iteration's read-modify-write
            # can meet another's (webhal has no atomic operations on the CPU yet).
            for_type = ForType.Serial
        body = st.For(prefix + q, lo, ext, for_type, body,
                      dim.device_api if dim.for_type in (ForType.GPUBlock, ForType.GPUThread)
                      else DeviceAPI.None_)
    return body


def _tail(fn: Function, si: int, d: Definition, s: Split, is_output: bool) -> TailStrategy:
    """The tail strategy a split uses; Auto picks as Halide does: shift inwards for pure
    definitions; in updates, whose points may not be computed twice, guard with if, except
    the outermost split of a pure Var of an output, which rounds up (the output is written
    beyond the region asked for, so its inputs are read further, as in Halide). Halide rounds
    up in other Funcs' updates too, reading inputs past the region it checks; webhal guards
    those, which gives the same values of every point consumed (docs/semantics.md)."""
    if s.tail is not TailStrategy.Auto:
        if si > 0 and s.tail is TailStrategy.ShiftInwards:
            raise ScheduleError(f"split of {s.old} in an update of Func {fn.name} cannot shift "
                                "inwards: points of an update may not be computed twice; use "
                                "GuardWithIf or RoundUp", s.where)
        if s.tail in (TailStrategy.RoundUp, TailStrategy.GuardWithIf, TailStrategy.ShiftInwards):
            return s.tail
        return TailStrategy.GuardWithIf
    if si == 0:
        return TailStrategy.ShiftInwards
    if is_output and _outermost_pure_split(d, s):
        return TailStrategy.RoundUp
    return TailStrategy.GuardWithIf


def _outermost_pure_split(d: Definition, split: Split) -> bool:
    """Whether `split` splits a pure Var, or the outer part of one, of an update (not an RVar
    nor a Var made by an inner part of an earlier split): where Halide's Auto rounds up."""
    rvars = {d.rdom.var_name(i) for i in range(len(d.rdom.mins))} if d.rdom is not None \
        else set()
    inner: set[str] = set()
    for s in d.schedule.splits:
        if s is split:
            return split.old not in rvars and split.old not in inner
        if isinstance(s, Split):
            if s.old in rvars:
                rvars |= {s.outer, s.inner}
            if s.old in inner:
                inner.add(s.outer)
            inner.add(s.inner)
        elif isinstance(s, Fuse):
            if s.inner in rvars or s.outer in rvars:
                rvars.add(s.fused)
            if s.inner in inner or s.outer in inner:
                inner.add(s.fused)
    return False


def produce(fn: Function, ctx: LowerContext) -> st.Stmt:
    return st.block(*(_specialized(fn, i, d, ctx) for i, d in enumerate(fn.definitions)))


def _specialized(fn: Function, si: int, d: Definition, ctx: LowerContext) -> st.Stmt:
    """The stage's loop nest; with specializations, an if/else chain of one nest per
    specialized schedule, the stage's own schedule (or its specialize_fail) last."""
    if d.specialize_fail is None:
        nest = _stage_nest(fn, si, d, ctx)
    else:
        fail = ir.Call(Int(32), "halide_error_specialize_fail",
                       (ir.StringImm(d.specialize_fail),), ir.CallType.RUNTIME)
        nest = st.AssertStmt(ops.const(0, Bool()), fail)
    for s in reversed(d.specializations):
        nest = st.IfThenElse(s.condition,
                             _stage_nest(fn, si, dataclasses.replace(d, schedule=s.schedule),
                                         ctx), nest)
    return nest


def compute_stages(host: Function, level, fn: Function, outputs) -> list[int]:
    """The stages of host whose loop `level` names: the one given, or with none given, each
    stage that reads fn and has that loop (fn is then computed once in each, as in Halide);
    else the last stage that has the loop."""
    if level.stage_index >= 0:
        return [level.stage_index]
    having = [si for si, d in enumerate(host.definitions)
              if level.var_name() in d.schedule.dim_names()]
    stages = [si for si in stages_reading(host, fn, outputs) if si in having]
    return stages or having[-1:] or [len(host.definitions) - 1]


def _wrap_loop(s: st.Stmt, loop: str, wrap) -> tuple[st.Stmt, bool]:
    """Apply wrap to the body of the For named loop; report whether it was found."""
    found = False

    def go(n):
        nonlocal found
        if isinstance(n, st.For) and n.name == loop:
            found = True
            return st.For(n.name, n.min, n.extent, n.for_type, wrap(n.body), n.device_api)
        if isinstance(n, ir.Expr):
            return n
        return rebuild(n, go)
    return go(s), found


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    """The loop nest of the whole pipeline (no bounds yet), around `s` (the empty statement
    lowering starts from)."""
    body: st.Stmt = s
    for fn in reversed(ctx.functions):  # consumers first; producers wrap around them
        if ctx.is_inlined(fn):
            continue
        level, store = ctx.compute_level(fn), ctx.store_level(fn)
        realize_here = not ctx.is_output(fn)

        def site(inner: st.Stmt, fn=fn) -> st.Stmt:
            return st.block(st.ProducerConsumer(fn.name, True, produce(fn, ctx)),
                            st.ProducerConsumer(fn.name, False, inner))

        def storage(inner: st.Stmt, fn=fn) -> st.Stmt:
            return st.Realize(fn.name, fn.type, (), inner, fn.schedule.memory_type)

        if level.is_root():
            body = site(body)
            if realize_here:
                body = storage(body)
            continue
        host = level.function()
        same = store.kind == "at" and store.function() is host and \
            store.var_name() == level.var_name()
        found = False
        for stage in compute_stages(host, level, fn, ctx.outputs):
            loop = loop_var(host, stage,
                            qualified_names(host.definitions[stage])[level.var_name()])
            body, here = _wrap_loop(body, loop, lambda b, s=site, r=storage, same=same:
                                    r(s(b)) if same else s(b))
            found = found or here
        if not found:
            raise ScheduleError(f"Func {fn.name} is computed at {level}, but {host.name} is "
                                "not computed anywhere (it is inlined); give it a compute_root "
                                "or compute_at schedule first", fn.schedule.where)
        if not same:
            if store.is_root():
                body = storage(body)
            else:
                sh = store.function()
                sstage = store.stage_index if store.stage_index >= 0 else \
                    len(sh.definitions) - 1
                sd = sh.definitions[sstage]
                body, found = _wrap_loop(body, loop_var(sh, sstage,
                                                        qualified_names(sd)[store.var_name()]),
                                         storage)
                if not found:
                    raise ScheduleError(f"Func {fn.name} is stored at {store}, which is not a "
                                        "loop around where it is computed", fn.schedule.where)
    return body
