"""Random expression trees for the hypothesis tests of random pipelines (tests/correctness on the
CPU targets, tests/gpu on the WebGPU ones): one generator, with the GPU's extra operations and
its guard against float division by zero as options."""

from __future__ import annotations

import hypothesis.strategies as st

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")
BASE_OPS = ["+", "-", "*", "/", "%", "min", "max", "select", "absd", "clamp", "cast"]


@st.composite
def expressions(draw, t: hl.Type, sources: list, depth: int = 3, *, types: list[hl.Type],
                bit_ops: bool = False, nonzero_float_divisors: bool = False):
    """An Expr of type t over `sources` (Funcs of two dimensions), x, y and constants.

    types: what "cast" and "sat" go through and back. bit_ops: also saturating casts and, for
    integers, bitwise operations and shifts. nonzero_float_divisors: float divisors are |b| + 1
    (WGSL lets drivers assume that no infinity or NaN arises)."""
    def leaf():
        kind = draw(st.sampled_from(["source", "source", "coordinate", "constant"]))
        if kind == "source":
            src = draw(st.sampled_from(sources))
            dx, dy = draw(st.integers(-2, 2)), draw(st.integers(-2, 2))
            return hl.cast(t, src[x + dx, y + dy])
        if kind == "coordinate":
            return hl.cast(t, draw(st.sampled_from([x, y, x - y, x * y])))
        if t.is_float():
            return hl.cast(t, draw(st.sampled_from([0.0, 0.5, -1.25, 3.0, 100.0])))
        return hl.cast(t, draw(st.integers(-3, 40)))

    def sub(d: int):
        return expressions(t, sources, d, types=types, bit_ops=bit_ops,
                           nonzero_float_divisors=nonzero_float_divisors)

    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return leaf()
    a = draw(sub(depth - 1))
    b = draw(sub(depth - 1))
    ops = list(BASE_OPS)
    if bit_ops:
        ops.append("sat")
        if not t.is_float():
            ops += ["&", "|", "^", "<<", ">>"]
    op = draw(st.sampled_from(ops))
    if nonzero_float_divisors and t.is_float() and op in ("/", "%"):
        b = hl.abs(b) + hl.cast(t, 1.0)
    match op:
        case "+":
            return a + b
        case "-":
            return a - b
        case "*":
            return a * b
        case "/":
            return a / b  # zero divisors too: x / 0 is 0 for integers
        case "%":
            return a % b
        case "min":
            return hl.min(a, b)
        case "max":
            return hl.max(a, b)
        case "select":
            return hl.select(a < b, draw(sub(depth - 1)), a)
        case "absd":
            return hl.cast(t, hl.absd(a, b))
        case "clamp":
            return hl.clamp(a, hl.cast(t, 0), hl.cast(t, 50))
        case "cast":  # through another type and back
            other = draw(st.sampled_from(types))
            return hl.cast(t, hl.cast(other, a) + hl.cast(other, b))
        case "sat":  # through another type, saturating
            other = draw(st.sampled_from(types))
            return hl.saturating_cast(t, hl.saturating_cast(other, a) +
                                      hl.saturating_cast(other, b))
        case "&":
            return a & b
        case "|":
            return a | b
        case "^":
            return a ^ b
        case "<<" | ">>":
            amount = hl.cast(t, draw(st.integers(0, t.bits - 1)))
            return a << amount if op == "<<" else a >> amount
    raise AssertionError(op)
