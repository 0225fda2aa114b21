"""Storage flattening: multi-dimensional Realize/Provide/Call become one-dimensional
Allocate/Store/Load. Every buffer, internal or external, is addressed the same way:
index = sum over d of (coordinate_d - <name>.min.d) * <name>.stride.d."""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.visitor import rebuild
from webhal.passes.add_buffer_checks import strided_buffers
from webhal.passes.context import LowerContext


def flat_index(name: str, args, fold: tuple[int, int] | None = None,
               dense_x: bool = True) -> ir.Expr:
    """The element index; the stride of dimension 0 is 1 (checked at entry for external
    buffers, as Halide constrains them by default), which keeps vector loads dense, unless
    `dense_x` is false (a reorder_storage put another dimension innermost). A folded dimension
    (a circular buffer of `factor` entries, a power of two) is indexed by the coordinate
    modulo the factor."""
    index = ops.const(0)
    for d, a in enumerate(args):
        if fold is not None and fold[0] == d:
            mask = ops.const(fold[1] - 1)
            offset = ir.Call(a.type, "bitwise_and", (a, mask), ir.CallType.INTRINSIC)
        else:
            offset = ops.sub(a, ops.var(f"{name}.min.{d}"))
        stride = ops.const(1) if d == 0 and dense_x else ops.var(f"{name}.stride.{d}")
        index = ops.add(index, ops.mul(offset, stride))
    return index


def _allocation(r: st.Realize, ctx: LowerContext, body: st.Stmt) -> st.Stmt:
    fn = ctx.function(r.name)
    dims = len(r.bounds)
    order = [fn.pure_args.index(v) for v in fn.schedule.storage_order] \
        if fn.schedule.storage_order else list(range(dims))
    size = ops.const(1)
    strides = {}
    for d in order:
        strides[d] = size
        size = ops.mul(size, ops.var(f"{r.name}.extent.{d}"))
    out = body
    for i, t in reversed(list(enumerate(fn.types))):  # a Tuple's elements: one buffer each
        out = st.Allocate(fn.element_name(i), t, size, out, r.memory_type)
    for d in reversed(range(dims)):
        out = st.LetStmt(f"{r.name}.stride.{d}", strides[d], out)
    for d in reversed(range(dims)):
        lo, extent = r.bounds[d]
        out = st.LetStmt(f"{r.name}.min.{d}", lo,
                         st.LetStmt(f"{r.name}.extent.{d}", extent, out))
    return out


def _element(name: str, index: int, ctx: LowerContext) -> str:
    """The buffer of element `index` of Func `name` (`name.index` for a Tuple)."""
    return ctx.function(name).element_name(index)


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    reordered = strided_buffers(ctx) | {f.name for f in ctx.functions if not ctx.is_output(f) and
                 f.schedule.storage_order and f.schedule.storage_order[0] != f.pure_args[0]}

    folds: dict[str, tuple[int, int]] = {}  # of the Realize nodes around

    def go(n):
        if isinstance(n, st.Realize):
            if n.fold is not None:
                folds[n.name] = n.fold
            return _allocation(n, ctx, go(n.body))
        n = rebuild(n, go)
        if isinstance(n, st.Provide):
            return st.Store(_element(n.name, n.value_index, ctx), n.value,
                            flat_index(n.name, n.args, folds.get(n.name),
                                       n.name not in reordered))
        if isinstance(n, ir.Call) and n.call_type in (ir.CallType.HALIDE, ir.CallType.IMAGE):
            name = n.func.element_name(n.value_index) if n.call_type is ir.CallType.HALIDE \
                else n.name
            return ir.Load(n.type, name, flat_index(n.name, n.args, folds.get(n.name),
                                                    n.name not in reordered))
        return n
    return go(s)
