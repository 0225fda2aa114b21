"""Linear forms of integer expressions.

A linear form writes an integer expression as a constant plus integer multiples of atoms:
`c + k1 * a1 + k2 * a2 + ...`. Only `+`, `-` and multiplication by an integer constant are looked
through; every other node (a variable, a load, a min, a division, a product of two non-constant
factors) is an atom, and atoms are compared by value, so `x * 2 - x` is the form `1 * x`. The
constant and the coefficients are Python integers: the form is exact where the expression does
not overflow its type, and agrees with it modulo 2**bits everywhere, since +, - and * wrap alike.

Passes use it to cancel common terms: the distance between two vector loads' bases, a constant
bound of a GPU loop's extent, a clamp's argument solved for a loop variable.
"""

from __future__ import annotations

from webhal.ir import nodes as ir
from webhal.ir import ops

Terms = dict[ir.Expr, int]


def linear_form(e: ir.Expr) -> tuple[Terms, int]:
    """e as ({atom: coefficient}, constant). Atoms whose coefficients cancel are left out, so
    two expressions differ by a constant exactly when the form of their difference has no
    terms. Constants are integer immediates (a Broadcast of one counts too); float constants
    are atoms."""
    terms: Terms = {}
    const = _add_scaled(e, 1, terms)
    return {t: k for t, k in terms.items() if k}, const


def _add_scaled(e: ir.Expr, k: int, terms: Terms) -> int:
    """Add k * e's terms to `terms`; return k * e's constant."""
    c = ops.as_const(e)
    if isinstance(c, int):
        return k * c
    match e:
        case ir.Add():
            return _add_scaled(e.a, k, terms) + _add_scaled(e.b, k, terms)
        case ir.Sub():
            return _add_scaled(e.a, k, terms) + _add_scaled(e.b, -k, terms)
        case ir.Mul():
            for x, y in ((e.a, e.b), (e.b, e.a)):
                factor = ops.as_const(y)
                if isinstance(factor, int):
                    return _add_scaled(x, k * factor, terms)
    terms[e] = terms.get(e, 0) + k
    return 0
