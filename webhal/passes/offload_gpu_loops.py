"""Offload GPU loops: each outermost gpu_block loop nest becomes a kernel of the pipeline's GPU
module, launched from the host code. The host keeps each buffer's device copy in step the way
Halide's buffers do (host/device dirty state, in the runtime): buffers are registered where they
come to exist, CPU writes mark the host copy newer, and CPU reads and the pipeline's end copy
device results back only when the device copy is newer.

On WebGPU and Vulkan a kernel whose buffers can be read and written as whole vectors gets a
variant that does so (passes/vector_buffers.py), with the kernel ids after all others; the host
launches it where the run-time alignment test it comes with holds, the scalar kernel elsewhere.

Applies only when the target has a GPU feature; otherwise GPU loops run as serial CPU loops.
"""

from __future__ import annotations

import dataclasses
import functools

from webhal.analysis.intervals import Interval, Scope, bounds_of
from webhal.analysis.linear import linear_form
from webhal.errors import CompileError, ScheduleError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.module import GPULoop, Kernel
from webhal.ir.printer import to_string
from webhal.ir.schedule import DeviceAPI, ForType
from webhal.ir.types import Handle, Int, Type, UInt
from webhal.ir.visitor import children, free_variables, rebuild, substitute, walk
from webhal.passes.add_buffer_checks import runtime_call
from webhal.passes.context import LowerContext
from webhal.passes.simplify import simplify_expr
from webhal.passes.vector_buffers import vector_variant

I32 = Int(32)


def _defined_inside(body: st.Stmt) -> set[str]:
    names = set()
    for n in walk(body):
        if isinstance(n, st.For | st.LetStmt | ir.Let | st.Allocate):
            names.add(n.name)
    return names


def thread_nest(loop: st.For) -> list[st.For]:
    """The chain of directly nested GPU thread loops starting at loop, outermost first."""
    chain = []
    s: st.Stmt = loop
    while isinstance(s, st.For) and s.for_type is ForType.GPUThread:
        chain.append(s)
        s = s.body
    return chain


def _from_linear(terms: dict, const: int) -> ir.Expr:
    e = ops.const(const)
    for t in sorted((t for t, k in terms.items() if k), key=to_string):
        e = ir.Add(e, ir.Mul(t, ops.const(terms[t])))
    return e


def _replaced(terms: dict, const: int, *changes) -> ir.Expr:
    """The linear form with each (atom, by, k) change: k * atom taken out, k * by put in."""
    new = dict(terms)
    for atom, by, k in changes:
        new[atom] -= k
        by_terms, by_const = linear_form(by)
        for t, coef in by_terms.items():
            new[t] = new.get(t, 0) + k * coef
        const += k * by_const
    return _from_linear(new, const)


@functools.lru_cache(maxsize=4096)
def const_bound(e: ir.Expr, upper: bool) -> int | None:
    """A constant bound of the int32 expression e from above (upper) or below, or None.

    e is taken as a linear form over atoms (common atoms cancel) and bounded with what the
    simplifier does not see in the extents of tiles shifted inwards or guarded: a min with a
    positive coefficient is at most either of its arms (so is the negative of a max; mirrored
    for lower bounds), and min(p1, p2) - min(q1, q2) lies between the smaller and the larger of
    the p_i - q_j over a pairing of the arms (so does the difference of two maxes)."""
    c = ops.as_const(simplify_expr(e))
    if c is not None:
        return int(c)
    terms, const = linear_form(e)
    if not terms:
        return const
    found: list = []
    for t, k in terms.items():
        if isinstance(t, ir.Min | ir.Max) and isinstance(t, ir.Min) == ((k > 0) == upper):
            found += [const_bound(_replaced(terms, const, (t, arm, k)), upper)
                      for arm in (t.a, t.b)]
    for t1, k1 in terms.items():
        for t2, k2 in terms.items():
            if k1 > 0 and k2 == -k1 and isinstance(t1, ir.Min | ir.Max) and \
                    type(t1) is type(t2):
                for pairing in (((t1.a, t2.a), (t1.b, t2.b)), ((t1.a, t2.b), (t1.b, t2.a))):
                    values = [const_bound(_replaced(terms, const, (t1, p, k1), (t2, q, k2)),
                                          upper) for p, q in pairing]
                    if None not in values:
                        found.append(max(values) if upper else min(values))
    total = const
    for t, k in terms.items():
        b = _atom_bound(t, upper == (k > 0))
        if b is None:
            break
        total += k * b
    else:
        found.append(total)
    found = [v for v in found if v is not None]
    return (min(found) if upper else max(found)) if found else None


def _atom_bound(t: ir.Expr, upper: bool) -> int | None:
    """A constant bound of a term that is not linear."""
    match t:
        case ir.Min() | ir.Max():
            x, y = const_bound(t.a, upper), const_bound(t.b, upper)
            if upper == isinstance(t, ir.Min):  # the upper bound of a min: either side's
                known = [v for v in (x, y) if v is not None]
                return (min(known) if upper else max(known)) if known else None
            return None if x is None or y is None else (max(x, y) if upper else min(x, y))
        case ir.Div():
            k = ops.as_const(t.b)
            if isinstance(k, int) and k > 0:  # rounds down: monotonic in t.a
                v = const_bound(t.a, upper)
                return None if v is None else v // k
        case ir.Mul():
            lows = [const_bound(t.a, False), const_bound(t.b, False)]
            if None not in lows and min(lows) >= 0:
                if not upper:
                    return lows[0] * lows[1]
                highs = [const_bound(t.a, True), const_bound(t.b, True)]
                return None if None in highs else highs[0] * highs[1]
    # Any other term (x % 8, a select, a cast, a bit operation): interval analysis.
    return _interval_bound(t, {}, upper)


def _interval_bound(e: ir.Expr, scope: Scope, upper: bool) -> int | None:
    """A constant bound of e from interval analysis, variables ranging over scope (those not
    in it over every value, so that k % 8 lies in [0, 7] whatever k is)."""
    free = {v.name: Interval(None, None) for v in free_variables(e)}
    iv = bounds_of(e, {**free, **scope})
    end = iv.max if upper else iv.min
    if end is None:
        return None
    c = ops.as_const(simplify_expr(end))
    if isinstance(c, int):
        return c
    return None if ops.as_const(end) is not None or end == e else const_bound(end, upper)


def _size_factors(size: ir.Expr) -> list[ir.Expr]:
    """The factors of an allocation's size (a product of extents)."""
    factors: list[ir.Expr] = []

    def split(f):
        if isinstance(f, ir.Mul):
            split(f.a)
            split(f.b)
        else:
            factors.append(f)
    split(size)
    return factors


def _extent_bound(extent: ir.Expr, loops: Scope) -> int | None:
    """A constant upper bound of an extent: from its linear form (const_bound), else with the
    enclosing loops' variables over their ranges (a footprint that follows a thread index)."""
    bound = const_bound(extent, upper=True)
    return bound if bound is not None or not loops else _interval_bound(extent, loops, True)


def _size_bound(size: ir.Expr, lets: dict[str, ir.Expr],
                loops: Scope) -> tuple[int | None, ir.Expr | None]:
    """A constant bound of an allocation's size (with the lets around it substituted), or None
    and the first factor of the size as written (`f.extent.0`) that has none. A factor that may
    be zero or negative (a footprint entirely beyond a guarded edge) means nothing is stored,
    so each factor counts for at least 0 and at most its upper bound."""
    total = 1
    for written in _size_factors(size):
        for f in _size_factors(simplify_expr(substitute(written, lets))):
            bound = _extent_bound(f, loops)
            if bound is None:
                return None, written
            total *= max(bound, 0)
    return max(total, 1), None


def _block_level(s: st.Stmt, sizes: list[int], lets: dict[str, ir.Expr]) -> st.Stmt:
    """Check what runs once per workgroup (it must be uniform: lets, shared allocations and
    GPU thread nests) and give each thread loop its constant extent, found by substituting the
    lets around it. Records each nest's extents (innermost first) as maxima in `sizes`."""
    match s:
        case st.For() if s.for_type is ForType.GPUThread:
            sunk = _sink_thread_loop(s)
            if sunk is not None:
                return _block_level(sunk, sizes, lets)
            chain = thread_nest(s)
            if len(chain) > 3:
                raise ScheduleError("a GPU kernel has at most 3 thread dimensions")
            extents, guards = [], []
            for loop in chain:
                exact = simplify_expr(substitute(loop.extent, lets))
                extent = ops.as_const(exact)
                if extent is None:
                    # A footprint that varies between blocks (tiles shifted inwards at an
                    # edge): as many threads as it can need, the extra ones idle.
                    extent = const_bound(exact, upper=True)
                    if extent is not None:
                        guards.append(ir.LT(ir.Variable(I32, loop.name),
                                            ops.add(loop.min, loop.extent)))
                if extent is None or extent < 1:
                    raise ScheduleError(
                        f"GPU thread loop {loop.name} has extent {to_string(loop.extent)}, "
                        "which is not a constant; thread loops need one (gpu_tile with a "
                        "constant size, or a bound() on the Func computed at the block)")
                extents.append(extent)
            for axis, extent in enumerate(reversed(extents)):
                sizes[axis] = max(sizes[axis], extent)
            for n in walk(chain[-1].body):
                if isinstance(n, st.For) and n.for_type in (ForType.GPUBlock, ForType.GPUThread):
                    raise ScheduleError(f"GPU loop {n.name} is not directly inside the GPU "
                                        "loops around it; put GPU block loops outermost, then "
                                        "thread loops, with nothing between them")
            body = _serial(chain[-1].body)
            if guards:
                cond = guards[0]
                for g in guards[1:]:
                    cond = ir.And(cond, g)
                body = st.IfThenElse(cond, body)
            for loop, extent in zip(reversed(chain), reversed(extents)):
                body = st.For(loop.name, loop.min, ops.const(extent), loop.for_type, body,
                              loop.device_api)
            return body
        case st.Block():
            return st.block(*(_block_level(x, sizes, lets) for x in s.stmts))
        case st.LetStmt():
            inner = {**lets, s.name: substitute(s.value, lets)}
            return st.LetStmt(s.name, s.value, _block_level(s.body, sizes, inner))
        case st.ProducerConsumer():
            return st.ProducerConsumer(s.name, s.is_producer, _block_level(s.body, sizes, lets))
        case st.Allocate():
            size = simplify_expr(substitute(s.size, lets))
            return st.Allocate(s.name, s.type, size, _block_level(s.body, sizes, lets),
                               s.memory_type)
        case st.Evaluate() if ops.as_const(s.value) is not None:
            return s
        case st.For() if not any(isinstance(n, st.For) and n.for_type is ForType.GPUThread
                                 for n in walk(s.body)):
            # Serial work of the block (a Func computed at the block loop without gpu_threads):
            # one invocation does it, in a thread nest of extent 1 on every axis, and the
            # barrier after it lets the block's thread nests read what it stored (as Halide).
            single = s
            for axis in "zyx":
                single = st.For(f"{s.name}.one_thread_{axis}", ops.const(0), ops.const(1),
                                ForType.GPUThread, single, s.device_api)
            return _block_level(single, sizes, lets)
        case st.For():
            raise ScheduleError(
                f"loop {s.name} runs inside GPU block loops but outside GPU thread loops, "
                "around GPU thread loops; put the thread loops directly inside the block "
                "loops (e.g. f.compute_at(g, xo).gpu_threads(x, y))")
    raise ScheduleError(f"{type(s).__name__} at GPU block level: work inside a GPU kernel "
                        "must be in GPU thread loops")


def _allocations(s: st.Stmt, lets: dict[str, ir.Expr], in_threads: bool, kernel: Kernel,
                 loops: Scope, args: dict[str, tuple[str, ...]]) -> None:
    """Funcs computed at a GPU block loop live in workgroup memory (`shared`); those computed
    inside GPU thread loops in each invocation's own array (`local`). Either needs a constant
    size, or a constant bound of a size that varies (tiles shifted inwards, a footprint with
    min/max or modulo bounds): the bound is allocated, as Halide does. `loops` holds the range
    of each enclosing loop's variable, `args` each Func's pure Vars (for the error)."""
    match s:
        case st.LetStmt():
            _allocations(s.body, {**lets, s.name: substitute(s.value, lets)}, in_threads,
                         kernel, loops, args)
            return
        case st.For():
            in_threads = in_threads or s.for_type is ForType.GPUThread
            _allocations(s.body, lets, in_threads, kernel,
                         {**loops, s.name: _loop_range(s.min, s.extent, lets, loops)}, args)
            return
        case st.Allocate():
            exact = simplify_expr(substitute(s.size, lets))
            size = ops.as_const(exact)
            if size is None:
                size, unbounded = _size_bound(s.size, lets, loops)
                if size is None:
                    raise _unbounded_storage(s.name, in_threads, unbounded,
                                             args.get(s.name, ()))
            (kernel.local if in_threads else kernel.shared)[s.name] = (s.type, size)
    for k in children(s):
        if isinstance(k, st.Stmt):
            _allocations(k, lets, in_threads, kernel, loops, args)


def _loop_range(min_: ir.Expr, extent: ir.Expr, lets: dict[str, ir.Expr],
                loops: Scope) -> Interval:
    """The values a loop's variable takes, over the ranges of the loops around it (so that the
    scope's bounds never name another loop's variable)."""
    lo = substitute(min_, lets)
    hi = ops.sub(ops.add(lo, substitute(extent, lets)), ops.const(1))
    lo, hi = bounds_of(lo, loops).min, bounds_of(hi, loops).max
    return Interval(None if lo is None else simplify_expr(lo),
                    None if hi is None else simplify_expr(hi))


def _unbounded_storage(name: str, in_threads: bool, extent: ir.Expr,
                       pure_args: tuple[str, ...]) -> ScheduleError:
    """The error for storage on the GPU whose extent has no constant bound: which Func and
    dimension, and the schedules that give it one."""
    where = "inside GPU thread loops" if in_threads else "in GPU shared memory"
    dims = [d for d in range(len(pure_args)) if f"{name}.extent.{d}" in to_string(extent)]
    var = f" (Var {pure_args[dims[0]]})" if dims else ""
    return ScheduleError(
        f"Func {name} is stored {where}, which needs a constant size, but its extent "
        f"{to_string(extent)}{var} has no constant upper bound that webhal can find; clamp "
        f"the coordinates {name} is read at to a constant range (hl.clamp(i, lo, hi)), compute "
        f"it at a loop whose footprint is constant (gpu_tile or split by a constant factor), "
        "or compute it at root, in global memory, which takes any size")


def _sink_thread_loop(loop: st.For) -> st.For | None:
    """A Func computed at a GPU thread loop with another thread loop inside
    (`p.compute_at(out, yi)` under gpu_tile's xi): the inner thread loop is moved around the
    work between them, so each invocation computes that Func itself, in its own memory (the
    work is repeated across the inner loop's invocations, with the same values, as in Halide).
    None unless the inner loop is the only GPU loop there, its bounds use nothing bound in
    between, and the work between writes only storage allocated there."""
    chain = thread_nest(loop)
    inner_loops = [n for n in walk(chain[-1].body)
                   if isinstance(n, st.For) and n.for_type in (ForType.GPUBlock, ForType.GPUThread)]
    if len(inner_loops) != 1 or inner_loops[0].for_type is not ForType.GPUThread:
        return None
    inner = inner_loops[0]
    between = chain[-1].body
    bound = {n.name for n in walk(between) if isinstance(n, st.LetStmt | st.For)}
    allocated = {n.name for n in walk(between) if isinstance(n, st.Allocate | st.Realize)}
    used = {v.name for e in (inner.min, inner.extent) for v in free_variables(e)}
    writes = {n.name for n in walk(_without(between, inner)) if isinstance(n, st.Store)}
    if used & bound or not writes <= allocated:
        return None
    rest = _replace_loop(between, inner, inner.body)
    moved = st.For(inner.name, inner.min, inner.extent, inner.for_type, rest, inner.device_api)
    for outer in reversed(chain):
        moved = st.For(outer.name, outer.min, outer.extent, outer.for_type, moved,
                       outer.device_api)
    return moved


def _without(s, loop: st.For):
    """s with `loop` left out (an empty Evaluate in its place)."""
    return _replace_loop(s, loop, st.Evaluate(ops.const(0)))


def _replace_loop(s, loop: st.For, by: st.Stmt):
    if s is loop:
        return by
    return rebuild(s, lambda c: _replace_loop(c, loop, by) if isinstance(c, st.Stmt) else c)


def _serial(s):
    """s with its parallel loops serial: inside a kernel each invocation runs its own loops
    (Halide accepts parallel there and does the same)."""
    if isinstance(s, st.For) and s.for_type is ForType.Parallel:
        return dataclasses.replace(s, for_type=ForType.Serial, body=_serial(s.body))
    return rebuild(s, _serial) if isinstance(s, st.Stmt) else s


def _make_kernel(loop: st.For, index: int, types: dict[str, Type],
                 args: dict[str, tuple[str, ...]]) -> Kernel:
    blocks = []
    s: st.Stmt = loop
    while isinstance(s, st.For) and s.for_type is ForType.GPUBlock:
        blocks.append(GPULoop(s.name, s.min, s.extent))
        s = s.body
    if len(blocks) > 3:
        raise ScheduleError("a GPU kernel has at most 3 block dimensions")
    name = f"kernel_{index}_{loop.name.split('.')[0]}"
    sizes = [1, 1, 1]
    threads = any(isinstance(n, st.For) and n.for_type is ForType.GPUThread for n in walk(s))
    if threads:
        s = _block_level(s, sizes, {})
    else:  # gpu_blocks alone: one invocation per workgroup runs the body as it is
        for n in walk(s):
            if isinstance(n, st.For) and n.for_type is ForType.GPUBlock:
                raise ScheduleError(f"GPU loop {n.name} is not directly inside the GPU block "
                                    "loops around it; put GPU block loops outermost")
        s = _serial(s)
    kernel = Kernel(name, tuple(reversed(blocks)), s, tuple(sizes))
    # A block loop that runs once (a serial stage given one workgroup) is its min: the size of
    # a Func computed inside it may depend on it.
    once = {g.name: g.min for g in blocks if ops.as_const(simplify_expr(g.extent)) == 1}
    scope: Scope = {}
    for g in blocks:  # outermost first
        scope[g.name] = _loop_range(g.min, g.extent, {}, scope)
    _allocations(s, once, not threads, kernel, scope, args)
    inside = _defined_inside(s) | {g.name for g in blocks}
    scalars: dict[str, Type] = {}
    memory = kernel.shared.keys() | kernel.local.keys()
    for n in walk(st.block(*(st.Evaluate(g.min) for g in blocks), s)):
        if isinstance(n, ir.Variable) and n.name not in inside:
            scalars.setdefault(n.name, n.type)
        elif isinstance(n, ir.Load) and n.name not in memory:
            t, r, w = kernel.buffers.get(n.name, (n.type.element_of(), False, False))
            kernel.buffers[n.name] = (t, True, w)
        elif isinstance(n, st.Store) and n.name not in memory:
            t, r, w = kernel.buffers.get(n.name, (n.value.type.element_of(), False, False))
            kernel.buffers[n.name] = (t, r, True)
    for bname, (t, _, _) in kernel.buffers.items():
        types[bname] = t
    return dataclasses.replace(kernel, scalars=tuple(sorted(scalars.items())))


def _check_types(kernel: Kernel, target) -> None:
    """Refuse the types the kernel's GPU API cannot hold, naming what to change: booleans in
    buffers (webhal keeps them off the GPU), 64-bit types on WebGPU, and on Vulkan without the
    vk_int64 / vk_float64 target feature, and 64-bit scalar arguments (passed as 4-byte
    words)."""
    vulkan = target.has_feature("vulkan")

    def check(what: str, t: Type) -> None:
        if t.bits != 64:
            return
        feature = "vk_float64" if t.is_float() else "vk_int64"
        if not vulkan:
            raise ScheduleError(f"{what} has type {t} in a GPU kernel, and WebGPU has no 64-bit "
                                "types; use 32-bit or narrower types there (or a -vulkan-"
                                f"{feature} target)")
        if not target.has_feature(feature):
            raise ScheduleError(f"{what} has type {t} in a GPU kernel, which on Vulkan needs "
                                f"the target feature {feature}: add -{feature} to {target}")

    for name, (t, _, _) in kernel.buffers.items():
        if t.is_bool():
            raise ScheduleError(f"buffer {name} has type bool in a GPU kernel; webhal keeps "
                                "booleans off the GPU: use uint8 there")
        check(f"buffer {name}", t)
    for name, (t, _) in [*kernel.shared.items(), *kernel.local.items()]:
        check(f"Func {name}", t)
    for name, t in kernel.scalars:
        if t.bits == 64:
            raise ScheduleError(f"{name} is a 64-bit value used in a GPU kernel; kernel "
                                "arguments are 32-bit words: cast it to 32 bits on the CPU")


def _launch_arg(name: str, t: Type) -> ir.Expr:
    """A kernel's scalar as the host passes it (4 bytes, narrower values zero-extended): a
    float16 as its bits, which the kernel reads back from the low half of a u32."""
    v = ir.Variable(t, name)
    return ir.Reinterpret(UInt(16), v) if t.is_float() and t.bits == 16 else v


def _host_uses(s: st.Stmt, names: set[str]) -> tuple[set[str], set[str]]:
    """Buffers of `names` that host code (outside launches) reads and writes in s."""
    reads, writes = set(), set()
    for n in walk(s):
        if isinstance(n, ir.Load) and n.name in names:
            reads.add(n.name)
        elif isinstance(n, st.Store) and n.name in names:
            writes.add(n.name)
    return reads, writes


def target_device_api(target) -> DeviceAPI:
    """The GPU API the target's gpu_* loops go to (None_ without a GPU feature). webhal has a
    backend for WebGPU (WGSL) and Vulkan (SPIR-V); a target names one of them."""
    apis = [a for f, a in (("webgpu", DeviceAPI.WebGPU), ("vulkan", DeviceAPI.Vulkan))
            if target.has_feature(f)]
    if len(apis) > 1:
        raise CompileError(f"target {target} has both webgpu and vulkan; webhal compiles a "
                           "pipeline's GPU loops for one GPU API: keep one of them",
                           user_location())
    return apis[0] if apis else DeviceAPI.None_


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    if not ctx.target.has_gpu_feature():
        return s
    kernels: list[Kernel] = []
    variants: list[Kernel] = []  # kernels with vector accesses, launched after `kernels`' ids
    types: dict[str, Type] = {}
    args = {f.name: tuple(f.pure_args) for f in ctx.functions}
    vectors = target_device_api(ctx.target) in (DeviceAPI.WebGPU, DeviceAPI.Vulkan)

    def offload(n):
        if isinstance(n, st.For) and n.for_type is ForType.GPUBlock:
            k = _make_kernel(n, len(kernels), types, args)
            _check_types(k, ctx.target)
            kernels.append(k)
            grid = [g.extent for g in k.blocks] + [ops.const(1)] * (3 - len(k.blocks))
            launch_args = tuple(_launch_arg(name, t) for name, t in k.scalars)
            launch = st.GPULaunch(len(kernels) - 1, tuple(grid), launch_args)
            found = vector_variant(k) if vectors else None
            if found is None:
                return launch
            variant, condition = found
            if condition is None:  # always aligned: the vector kernel replaces it
                kernels[-1] = dataclasses.replace(variant, name=k.name)
                return launch
            variants.append(variant)
            # Negative ids until every kernel is known: variants take the ids after them.
            vector = st.GPULaunch(-len(variants), tuple(grid), launch_args)
            return st.IfThenElse(simplify_expr(condition), vector, launch)
        if isinstance(n, st.For) and n.for_type is ForType.GPUThread:
            raise ScheduleError(f"GPU thread loop {n.name} has no GPU block loop around it")
        if isinstance(n, ir.Expr):
            return n
        return rebuild(n, offload)

    s = offload(s)
    if not kernels:
        return s
    ids = {name: i for i, name in enumerate(sorted(types))}
    # Each launch carries its kernel, so the kernels travel in the host statement.
    api = target_device_api(ctx.target)
    first_variant = len(kernels)
    kernels = [dataclasses.replace(k, buffer_ids={b: ids[b] for b in k.buffers}, device_api=api)
               for k in kernels + variants]

    def attach(n):
        if isinstance(n, st.GPULaunch):
            kid = n.kernel_id if n.kernel_id >= 0 else first_variant - n.kernel_id - 1
            return dataclasses.replace(n, kernel_id=kid, kernel=kernels[kid])
        return n if isinstance(n, ir.Expr) else rebuild(n, attach)
    return _sync(attach(s), ctx, ids, types)


def _bytes(name: str, t: Type, dims: int) -> ir.Expr:
    """Bytes spanned by an external buffer: (sum of (extent - 1) * stride) + 1 elements (the
    stride of dimension 0 is 1 unless constrained otherwise: an interleaved image)."""
    last = ops.const(0)
    for d in range(dims):
        stride = ops.var(f"{name}.stride.{d}")
        last = ops.add(last, ops.mul(ops.sub(ops.var(f"{name}.extent.{d}"), ops.const(1)),
                                     stride))
    return ops.mul(ops.add(last, ops.const(1)), ops.const(t.bytes))


def _register(name: str, ids, size: ir.Expr, host_current: bool) -> st.Stmt:
    return st.Evaluate(runtime_call("webhal_gpu_buffer", ops.const(ids[name]),
                                    ir.Variable(Handle(), name), size,
                                    ops.const(int(host_current))))


def _sync(s: st.Stmt, ctx: LowerContext, ids, types) -> st.Stmt:
    """Around each largest piece of host code between launches: copy back what it reads
    before it, mark what it writes as newer on the host after it. (Per piece, not per
    Func: a Func's pure stage may run on the CPU and its update on the GPU, or the reverse.)"""
    names = set(ids)
    launches: dict[int, bool] = {}

    def has_launch(n) -> bool:
        key = id(n)
        if key not in launches:
            launches[key] = isinstance(n, st.GPULaunch) or any(
                has_launch(k) for k in children(n) if isinstance(k, st.Stmt))
        return launches[key]

    def calls(name: str, what: str) -> st.Stmt:
        return st.Evaluate(runtime_call(what, ops.const(ids[name])))

    def go(n):
        if isinstance(n, ir.Expr):
            return n
        if isinstance(n, st.Allocate) and n.name in names:
            body = go(n.body)
            size = ops.mul(n.size, ops.const(types[n.name].bytes))
            return st.Allocate(n.name, n.type, n.size,
                               st.block(_register(n.name, ids, size, False), body),
                               n.memory_type)
        if not has_launch(n):
            reads, writes = _host_uses(n, names)
            before = [calls(b, "webhal_gpu_copy_to_host") for b in sorted(reads)]
            after = [calls(b, "webhal_gpu_host_dirty") for b in sorted(writes)]
            return st.block(*before, n, *after)
        # Launches inside: the statement's own expressions (loop bounds, let values,
        # conditions) run on the host first.
        own = st.block(*(st.Evaluate(k) for k in children(n) if isinstance(k, ir.Expr)))
        reads, _ = _host_uses(own, names)
        return st.block(*(calls(b, "webhal_gpu_copy_to_host") for b in sorted(reads)),
                        rebuild(n, go))

    s = go(s)
    externals = [(name, src.type(), src.dimensions(), True) for name, src in ctx.inputs.items()
                 if name in names]
    externals += [(fn.name, fn.type, fn.dimensions, False) for fn in ctx.outputs
                  if fn.name in names]
    head = [_register(name, ids, _bytes(name, t, dims), is_input)
            for name, t, dims, is_input in externals]
    tail = [calls(fn.name, "webhal_gpu_copy_to_host") for fn in ctx.outputs if fn.name in names]
    return _after_checks(s, head, tail)


def _after_checks(s: st.Stmt, head, tail) -> st.Stmt:
    """Put head after the entry checks (which must run before buffers are touched)."""
    stmts = list(s.stmts) if isinstance(s, st.Block) else [s]
    i = 0
    while i < len(stmts) and isinstance(stmts[i], st.AssertStmt):
        i += 1
    return st.block(*stmts[:i], *head, *stmts[i:], *tail)

