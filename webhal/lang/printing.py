"""hl.print and hl.print_when: print values while a pipeline runs, as Halide does."""

from __future__ import annotations

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import printing
from webhal.lang.expr import Expr, to_node


def _piece(a) -> ir.Expr:
    if isinstance(a, str):
        return ir.StringImm(a)
    return to_node(a)


def _printed(condition: ir.Expr, args) -> Expr:
    if not args:
        raise CompileError("hl.print needs at least one value to print", user_location())
    pieces = [_piece(a) for a in args]
    first = pieces[0]
    if isinstance(first, ir.StringImm):  # nothing to return but the printing itself
        return Expr(printing.print_call(condition, printing.spaced(pieces)))
    return Expr(printing.print_value(condition, printing.spaced(pieces)))

def print(*args) -> Expr:  # noqa: A001 - Halide's name
    """The first argument, printed with the others (Exprs, numbers, strings) on one line,
    separated by spaces, each time it is computed (stdout; in a static library through
    halide_print). Integers print in decimal, float32 as %f, float64 as %e, bools as
    true/false. In a vectorized loop each lane prints its own line."""
    return _printed(printing.always(), args)


def print_when(condition, *args) -> Expr:
    """The first of `args`, printed with the others as hl.print does where `condition` holds."""
    cond = to_node(condition)
    if not cond.type.is_bool():
        raise CompileError(f"the condition of hl.print_when must be a bool Expr, not "
                           f"{cond.type}", user_location())
    return _printed(cond, args)
