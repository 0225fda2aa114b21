"""Which of a GPU kernel's buffers can be read and written as whole vectors (vec2/vec4 of 32-bit
elements, or whole 32-bit words of 8/16-bit elements), and under what run-time condition.

A buffer qualifies when every access to it in the kernel is a vector at a dense index
(`ramp(base, 1, n)`), all with a lane count that is a multiple of one width w (for 32-bit
elements 4, else 2; for 8- and 16-bit ones the elements in a word, 4 or 2), and every base is a
multiple of w wherever the kernel's scalar arguments (buffer mins and strides, loop bounds) make
some sums of them multiples of w. The kernel's variant that binds such buffers as arrays of
w-wide vectors or of words (one access where the scalar kernel makes w) runs only when those
sums are multiples of w; the host tests them before each launch and runs the scalar kernel
otherwise. Device buffers start at offset 0 of their binding on every runtime, so an element
index that is a multiple of w is a vector's (a word's).

The base is taken apart as a linear form over the kernel's lets: terms in scalar arguments
alone are summed into one condition; a thread or block index must come with a coefficient that
is a multiple of w; min, max and select need it of both operands, a product of one of its
factors. Anything else (a load, a division of thread indices) leaves the buffer scalar."""

from __future__ import annotations

import dataclasses
import math

from webhal.analysis.linear import linear_form
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.module import Kernel
from webhal.ir.visitor import walk

WIDTHS = (4, 2)

# A requirement: uniform expression e must be a multiple of m.
Requirement = tuple[ir.Expr, int]


def vector_variant(kernel: Kernel) -> tuple[Kernel, ir.Expr | None] | None:
    """The kernel with its qualifying buffers in `vector_buffers`, and the host condition under
    which it may run in place of `kernel` (None: always); None when no buffer qualifies."""
    analysis = _Analysis(kernel)
    widths: dict[str, int] = {}
    needs: list[Requirement] = []
    for name, accesses in analysis.accesses().items():
        found = analysis.buffer(name, accesses)
        if found is not None:
            widths[name], reqs = found
            needs += reqs
    if not widths:
        return None
    conditions: list[ir.Expr] = []
    for e, m in needs:
        c = ir.EQ(ops.mod(e, ops.const(m)), ops.const(0))
        if c not in conditions:
            conditions.append(c)
    cond = None
    for c in conditions:
        cond = c if cond is None else ir.And(cond, c)
    return dataclasses.replace(kernel, name=f"{kernel.name}_vec", vector_buffers=widths), cond


class _Analysis:
    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.uniform_names = {n for n, _ in kernel.scalars}
        # Let-bound names with one value in the whole body (lowering names them uniquely;
        # a name bound twice is left unknown).
        self.lets: dict[str, ir.Expr | None] = {}
        for n in walk(kernel.body):
            if isinstance(n, st.LetStmt | ir.Let):
                self.lets[n.name] = n.value if n.name not in self.lets else None
        self.forms: dict[str, tuple[dict, int] | None] = {}

    def accesses(self) -> dict[str, list[tuple[int, ir.Expr]]]:
        """Each device buffer's accesses: (lanes, index); buffers with a predicated access are
        left out."""
        out: dict[str, list] = {n: [] for n in self.kernel.buffers}
        bad: set[str] = set()
        for n in walk(self.kernel.body):
            if isinstance(n, ir.Load) and n.name in out:
                out[n.name].append((n.type, n.index))
                if n.predicate is not None:
                    bad.add(n.name)
            elif isinstance(n, st.Store) and n.name in out:
                out[n.name].append((n.value.type, n.index))
                if n.predicate is not None:
                    bad.add(n.name)
        return {k: v for k, v in out.items() if v and k not in bad}

    def buffer(self, name: str, accesses) -> tuple[int, list[Requirement]] | None:
        t = self.kernel.buffers[name][0]
        lanes = [a[0].lanes for a in accesses]
        if t.is_int_or_uint() and not t.is_bool() and t.bits in (8, 16):
            # Packed 4 or 2 to a 32-bit word: whole words, read and written plainly.
            width = 32 // t.bits if all(n % (32 // t.bits) == 0 for n in lanes) else None
        elif t.bits == 32 and (t.is_float() or t.is_int_or_uint()):
            width = next((w for w in WIDTHS if all(n % w == 0 for n in lanes)), None)
        else:
            return None
        if width is None:
            return None
        reqs: list[Requirement] = []
        for _, index in accesses:
            base = self.dense_base(index)
            if base is None:
                return None
            r = self.multiple(base, width)
            if r is None:
                return None
            reqs += r
        for i, (a, m) in enumerate(reqs):  # e and e + 1 both multiples of m: never
            for b, _ in reqs[:i]:
                terms, const = linear_form(ops.sub(a, b))
                if not terms and const % m:
                    return None
        return width, reqs

    def dense_base(self, index: ir.Expr) -> ir.Expr | None:
        """The base of a dense ramp index (through lets), else None."""
        seen = 0
        while isinstance(index, ir.Variable) and self.lets.get(index.name) is not None:
            index = self.lets[index.name]
            seen += 1
            if seen > 64:
                return None
        if isinstance(index, ir.Ramp) and index.base.type.lanes == 1 \
                and ops.as_const(index.stride) == 1:
            return index.base
        return None

    # -- multiples -----------------------------------------------------------------------------

    def is_uniform(self, e: ir.Expr) -> bool:
        return all(not isinstance(n, ir.Load | ir.Call | ir.Let)
                   and (not isinstance(n, ir.Variable) or n.name in self.uniform_names)
                   for n in walk(e))

    def form(self, e: ir.Expr, depth: int = 0) -> tuple[dict, int] | None:
        """e as ({atom: coefficient}, constant), expanding let-bound variables."""
        if depth > 200:
            return None
        c = ops.as_const(e)
        if isinstance(c, int):
            return {}, c
        match e:
            case ir.Add() | ir.Sub():
                a, b = self.form(e.a, depth + 1), self.form(e.b, depth + 1)
                if a is None or b is None:
                    return None
                sign = 1 if isinstance(e, ir.Add) else -1
                terms = dict(a[0])
                for t, k in b[0].items():
                    terms[t] = terms.get(t, 0) + sign * k
                return {t: k for t, k in terms.items() if k}, a[1] + sign * b[1]
            case ir.Mul():
                for x, y in ((e.a, e.b), (e.b, e.a)):
                    factor = ops.as_const(y)
                    if isinstance(factor, int):
                        f = self.form(x, depth + 1)
                        if f is None:
                            return None
                        return ({t: k * factor for t, k in f[0].items() if k * factor},
                                f[1] * factor)
            case ir.Variable() if e.name not in self.uniform_names and e.name in self.lets:
                if e.name not in self.forms:
                    value = self.lets[e.name]
                    self.forms[e.name] = None if value is None else self.form(value, depth + 1)
                return self.forms[e.name]
        if not (e.type.is_int_or_uint() and e.type.lanes == 1):
            return None
        return {e: 1}, 0

    def multiple(self, e: ir.Expr, m: int, depth: int = 0) -> list[Requirement] | None:
        """What makes e a multiple of m: uniform expressions that must be multiples (none when
        it always is), or None when nothing known does."""
        if m == 1:
            return []
        if depth > 20:
            return None
        f = self.form(e)
        if f is None:
            return None
        terms, const = f
        reqs: list[Requirement] = []
        uniform: ir.Expr | None = None
        for atom, k in terms.items():
            if self.is_uniform(atom):
                part = ops.mul(atom, ops.const(k)) if k != 1 else atom
                uniform = part if uniform is None else ops.add(uniform, part)
                continue
            r = self.atom_multiple(atom, m // math.gcd(k, m), depth)
            if r is None:
                return None
            reqs += r
        if uniform is not None:
            reqs.append((ops.add(uniform, ops.const(const)) if const else uniform, m))
        elif const % m:
            return None
        return reqs

    def atom_multiple(self, a: ir.Expr, m: int, depth: int) -> list[Requirement] | None:
        if m == 1:
            return []
        match a:
            case ir.Min() | ir.Max():
                ra = self.multiple(a.a, m, depth + 1)
                rb = None if ra is None else self.multiple(a.b, m, depth + 1)
                return None if rb is None else ra + rb
            case ir.Select():
                ra = self.multiple(a.true_value, m, depth + 1)
                rb = None if ra is None else self.multiple(a.false_value, m, depth + 1)
                return None if rb is None else ra + rb
            case ir.Mul():
                options = [r for r in (self.multiple(a.a, m, depth + 1),
                                       self.multiple(a.b, m, depth + 1)) if r is not None]
                return min(options, key=len) if options else None
        return None
