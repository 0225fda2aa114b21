"""Checks at the pipeline's entry: each input and output buffer has the right type and
dimensions, meets its ImageParam's constraints (dim().set_min/set_extent/set_stride), and covers
every coordinate the pipeline reads (inputs) or writes (outputs). A failed check calls the
runtime's error function, whose result the pipeline returns. `no_asserts` drops the checks;
constrained fields take their constrained values in the body either way (as in Halide), so that
later passes can fold them."""

from __future__ import annotations

from webhal.analysis.boxes import boxes_provided, boxes_required, leading_lets
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.printer import to_string
from webhal.ir.types import Int, Type, TypeCode, UInt
from webhal.ir.visitor import substitute
from webhal.passes.context import LowerContext

I32 = Int(32)
_TYPE_CODES = {TypeCode.INT: 0, TypeCode.UINT: 1, TypeCode.FLOAT: 2, TypeCode.HANDLE: 3}


def type_code(t: Type) -> int:
    """halide_type_t packed in 32 bits: code | bits << 8 | lanes << 16."""
    return _TYPE_CODES[t.code] | (t.bits << 8) | (t.lanes << 16)


def runtime_call(name: str, *args) -> ir.Call:
    return ir.Call(I32, name, tuple(args), ir.CallType.RUNTIME)


def _buffer_checks(name: str, t: Type, dims: int, strided: bool = False) -> list[st.Stmt]:
    """Type, dimensions and, unless its dim(0) stride is constrained (`strided`: the
    constraint's own check stands), a dense dimension 0."""
    given_type = ops.var(f"{name}.type", UInt(32))
    given_dims = ops.var(f"{name}.dimensions")
    stride = ops.var(f"{name}.stride.0")
    dense = [] if dims == 0 or strided else [  # a zero-dimensional buffer has no dimension 0
        st.AssertStmt(ir.EQ(stride, ops.const(1)),
                      runtime_call("halide_error_constraint_violated",
                                   ir.StringImm(f"{name}.stride.0"), stride, ir.StringImm("1"),
                                   ops.const(1)))]
    return dense + [
        st.AssertStmt(ir.EQ(given_type, ops.const(type_code(t), UInt(32))),
                      runtime_call("halide_error_bad_type", ir.StringImm(name), given_type,
                                   ops.const(type_code(t), UInt(32)))),
        st.AssertStmt(ir.EQ(given_dims, ops.const(dims)),
                      runtime_call("halide_error_bad_dimensions", ir.StringImm(name), given_dims,
                                   ops.const(dims))),
    ]


def _region_checks(name: str, box, what: str) -> list[st.Stmt]:
    out = []
    for d, iv in enumerate(box):
        if not iv.is_bounded():
            side = "below" if iv.min is None else "above"
            raise CompileError(f"{what} {name} is accessed without a bound {side} in dimension "
                               f"{d}; clamp the coordinates (hl.clamp or BoundaryConditions)")
        lo = ops.var(f"{name}.min.{d}")
        hi = ops.sub(ops.add(lo, ops.var(f"{name}.extent.{d}")), ops.const(1))
        ok = ir.Or(ir.LT(iv.max, iv.min), ir.And(ir.GE(iv.min, lo), ir.LE(iv.max, hi)))
        out.append(st.AssertStmt(ok, runtime_call(
            "halide_error_access_out_of_bounds", ir.StringImm(f"{what} {name}"), ops.const(d),
            iv.min, iv.max, lo, hi)))
    return out


def _explicit_bounds_checks(fn) -> list[st.Stmt]:
    """An output's bound() must cover its buffer: its loops run over the bound only."""
    out = []
    for arg, (lo, extent) in fn.schedule.bounds.items():
        d = fn.pure_args.index(arg)
        lo = ops.cast(I32, lo)
        hi = ops.sub(ops.add(lo, ops.cast(I32, extent)), ops.const(1))
        need_lo = ops.var(f"{fn.name}.min.{d}")
        need_hi = ops.sub(ops.add(need_lo, ops.var(f"{fn.name}.extent.{d}")), ops.const(1))
        out.append(st.AssertStmt(ir.And(ir.LE(lo, need_lo), ir.GE(hi, need_hi)), runtime_call(
            "halide_error_explicit_bounds_too_small", ir.StringImm(fn.name), ir.StringImm(arg),
            lo, hi, need_lo, need_hi)))
    return out


def _constraints(ctx: LowerContext) -> dict[str, ir.Expr]:
    """'buffer.field.d' -> the value the user constrained it to, for every input and output."""
    found = {}
    for name, src in ctx.inputs.items():
        for (field, d), value in getattr(src, "_constraints", {}).items():
            found[f"{name}.{field}.{d}"] = value
    for fn in ctx.outputs:
        for (field, d), value in fn.output_constraints.items():
            found[f"{fn.name}.{field}.{d}"] = value
    # None: the default constraint removed with an undefined Expr (any stride in dim 0)
    return {k: v for k, v in found.items() if v is not None}


def strided_buffers(ctx: LowerContext) -> set[str]:
    """External buffers whose dimension 0 is not dense: its stride is constrained to a value
    other than 1 (an interleaved image), so addressing must use its stride."""
    return strided_arguments(ctx.inputs, ctx.outputs)


def strided_arguments(inputs: dict, outputs) -> set[str]:
    """strided_buffers of a pipeline's inputs (name -> ImageParam or Buffer) and outputs
    (Functions); the runners pass such buffers in their own layout rather than dense."""
    found = set()
    for name, src in [*inputs.items(), *((fn.name, fn) for fn in outputs)]:
        given = src.output_constraints if hasattr(src, "output_constraints") else \
            getattr(src, "_constraints", {})
        key = ("stride", 0)
        if key in given and (given[key] is None or not ops.is_const(given[key], 1)):
            found.add(name)
    return found


def _constraint_checks(constraints: dict[str, ir.Expr]) -> list[st.Stmt]:
    return [st.AssertStmt(ir.EQ(ops.var(field), value), runtime_call(
        "halide_error_constraint_violated", ir.StringImm(field), ops.var(field),
        ir.StringImm(to_string(value)), value)) for field, value in constraints.items()]


def run(s: st.Stmt, ctx: LowerContext) -> st.Stmt:
    constraints = _constraints(ctx)
    if ctx.target.has_feature("no_asserts"):
        return _with_lets(constraints.items(), s)
    # The checks go inside the lets at the top (the regions of Funcs computed at the root, each
    # naming its consumers'), so that the regions they check are written with those names: the
    # regions spelled out in full double with each level of a pyramid.
    # Those lets take the constrained fields' values, as the body does.
    known = {ops.var(f).name: v for f, v in constraints.items()}
    lets, s = leading_lets(s)
    lets = [(n, substitute(v, known)) for n, v in lets] if known else lets
    s = _with_lets(constraints.items(), s)
    checks: list[st.Stmt] = _constraint_checks(constraints)
    strided = strided_buffers(ctx)
    for name, src in ctx.inputs.items():
        checks += _buffer_checks(name, src.type(), src.dimensions(), name in strided)
    for fn in ctx.outputs:
        checks += _buffer_checks(fn.name, fn.type, fn.dimensions, fn.name in strided)
    required = boxes_required(s, set(ctx.inputs))
    for name in ctx.inputs:
        if name in required:
            checks += _region_checks(name, required[name], "Input buffer")
    for fn in ctx.outputs:
        checks += _explicit_bounds_checks(fn)
    provided = boxes_provided(s, {fn.name for fn in ctx.outputs})
    for fn in ctx.outputs:
        if fn.name in provided:
            checks += _region_checks(fn.name, provided[fn.name], "Output buffer")
    return _with_lets(lets, st.block(*checks, s))


def _with_lets(lets, s: st.Stmt) -> st.Stmt:
    for name, value in reversed(list(lets)):
        s = st.LetStmt(name, value, s)
    return s
