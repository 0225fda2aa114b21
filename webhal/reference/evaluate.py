"""Evaluate IR expressions on numpy arrays under a mask of active lanes.

Vars are bound to arrays that broadcast against each other; the result broadcasts to their common
shape. `mask` (None: all lanes) tells which lanes are really computed: a select evaluates each
branch only under its condition, so reads of Funcs and images happen only where a value is used,
as in compiled code.
"""

from __future__ import annotations

import sys

import numpy as np

from webhal import abi
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops, printing
from webhal.ir.printer import to_string
from webhal.reference import numeric

_ARITH = {ir.Add: np.add, ir.Sub: np.subtract, ir.Mul: np.multiply, ir.Min: numeric.minimum,
          ir.Max: numeric.maximum}
_COMPARE = {ir.EQ: np.equal, ir.NE: np.not_equal, ir.LT: np.less, ir.LE: np.less_equal,
            ir.GT: np.greater, ir.GE: np.greater_equal}


def and_masks(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a & b


class Evaluator:
    """Computes expressions; reads of Funcs and images are answered by `reader`."""

    def __init__(self, reader, env: dict[str, np.ndarray]):
        self.reader = reader
        self.env = env

    def eval(self, e: ir.Expr, mask=None) -> np.ndarray:
        t = type(e)
        if t in _ARITH:
            a, b = self.eval(e.a, mask), self.eval(e.b, mask)
            with np.errstate(all="ignore"):
                return np.asarray(_ARITH[t](a, b)).astype(e.type.dtype, copy=False)
        if t in _COMPARE:
            a, b = self.eval(e.a, mask), self.eval(e.b, mask)
            return np.asarray(_COMPARE[t](a, b))
        method = getattr(self, "_" + t.__name__, None)
        if method is None:
            raise CompileError(f"the reference evaluator cannot evaluate {to_string(e)}")
        with np.errstate(all="ignore"):
            return method(e, mask)

    # -- leaves --------------------------------------------------------------------------------

    def _IntImm(self, e, mask):
        return np.asarray(e.value, dtype=e.type.dtype)

    _UIntImm = _IntImm

    def _FloatImm(self, e, mask):
        return np.asarray(e.value, dtype=e.type.dtype)

    def _Variable(self, e, mask):
        if e.name in self.env:
            return self.env[e.name]
        if e.param is not None:
            return np.asarray(self.reader.param_value(e), dtype=e.type.dtype)
        raise CompileError(f"variable {e.name} is not defined here")

    # -- operators -----------------------------------------------------------------------------

    def _Div(self, e, mask):
        return numeric.div(self.eval(e.a, mask), self.eval(e.b, mask), e.type,
                           ops.as_const(e.b) if e.type.is_float() else None)

    def _Mod(self, e, mask):
        return numeric.mod(self.eval(e.a, mask), self.eval(e.b, mask), e.type)

    def _And(self, e, mask):
        return np.logical_and(self.eval(e.a, mask), self.eval(e.b, mask))

    def _Or(self, e, mask):
        return np.logical_or(self.eval(e.a, mask), self.eval(e.b, mask))

    def _Not(self, e, mask):
        return np.logical_not(self.eval(e.a, mask))

    def _Cast(self, e, mask):
        return numeric.cast(self.eval(e.value, mask), e.value.type, e.type)

    def _Reinterpret(self, e, mask):
        return np.ascontiguousarray(self.eval(e.value, mask)).view(e.type.dtype)

    def _Select(self, e, mask):
        c = self.eval(e.condition, mask)
        tv = self.eval(e.true_value, and_masks(mask, c))
        fv = self.eval(e.false_value, and_masks(mask, np.logical_not(c)))
        return np.where(c, tv, fv).astype(e.type.dtype, copy=False)

    def _Let(self, e, mask):
        value = self.eval(e.value, mask)
        inner = Evaluator(self.reader, {**self.env, e.name: value})
        return inner.eval(e.body, mask)

    def _Call(self, e, mask):
        if e.call_type is ir.CallType.HALIDE:
            args = [self.eval(a, mask) for a in e.args]
            values = self.reader.read_func(e.func, args, mask)
            # A Tuple's elements are the fields of one structured array.
            return values[f"v{e.value_index}"] if values.dtype.names else values
        if e.call_type is ir.CallType.IMAGE:
            args = [self.eval(a, mask) for a in e.args]
            return self.reader.read_image(e.func, args, mask)
        if e.call_type is ir.CallType.PURE_EXTERN:
            args = [self.eval(a, mask) for a in e.args]
            return np.asarray(numeric.MATH[e.name](*args)).astype(e.type.dtype, copy=False)
        if printing.is_print(e):
            return self._print(e, mask)
        if printing.is_print_value(e):
            name = f"print_value.{id(e)}"
            return self.eval(printing.lower_print_value(e, name), mask)
        if e.name == "return_second":
            self.eval(e.args[0], mask)
            return self.eval(e.args[1], mask)
        return self._intrinsic(e, mask)

    def _print(self, e, mask):
        """One line per active point, in storage order (x fastest)."""
        when = and_masks(mask, self.eval(e.args[0], mask))
        pieces = e.args[1:]
        values = [e_.value if isinstance(e_, ir.StringImm) else self.eval(e_, when)
                  for e_ in pieces]
        arrays = [np.asarray(v) for v, p in zip(values, pieces)
                  if not isinstance(p, ir.StringImm)]
        shape = np.broadcast_shapes(*(a.shape for a in arrays),
                                    *(() if when is None else (np.shape(when),)))
        active = np.ones(shape, dtype=bool) if when is None else np.broadcast_to(when, shape)
        kinds = "".join("s" if isinstance(p, ir.StringImm) else abi.print_kind(p.type)
                        for p in pieces)
        flat = [v if isinstance(p, ir.StringImm) else np.broadcast_to(v, shape).ravel(order="F")
                for v, p in zip(values, pieces)]
        lines = []
        for i in np.flatnonzero(active.ravel(order="F")):
            lines.append(abi.format_print(kinds, [v if isinstance(p, ir.StringImm) else v[i]
                                                  for v, p in zip(flat, pieces)]) + "\n")
        if lines:
            sys.stdout.write("".join(lines))
        return np.zeros(shape, dtype=np.int32)

    def _intrinsic(self, e, mask):
        name, t = e.name, e.type
        if name == "mux":
            idx = self.eval(e.args[0], mask)
            values = [self.eval(a, mask) for a in e.args[1:]]
            # Halide's mux is select(idx == 0, v0, idx == 1, v1, ..., last): out of range is last.
            idx = np.where((idx >= 0) & (idx < len(values)), idx, len(values) - 1)
            return np.choose(idx, np.broadcast_arrays(*values)).astype(t.dtype)
        args = [self.eval(a, mask) for a in e.args]
        src = e.args[0].type
        match name:
            case "bitwise_and":
                return np.bitwise_and(*args)
            case "bitwise_or":
                return np.bitwise_or(*args)
            case "bitwise_xor":
                return np.bitwise_xor(*args)
            case "bitwise_not":
                return np.invert(args[0])
            case "shift_left" | "shift_right":
                return numeric.shift(args[0], args[1], t, name == "shift_left")
            case "abs":
                return numeric.absolute(args[0], src, t)
            case "absd":
                return numeric.absd(args[0], args[1], src, t)
            case "saturating_cast":
                return numeric.saturating_cast(args[0], src, t)
            case "lerp":
                return numeric.lerp(*args, t, e.args[2].type)
            case "likely":
                return args[0]
            case "popcount":
                return numeric.popcount(args[0], t)
            case "count_leading_zeros":
                return numeric.count_leading_zeros(args[0], t)
            case "count_trailing_zeros":
                return numeric.count_trailing_zeros(args[0], t)
            case "floor" | "ceil" | "round" | "trunc":
                return numeric.ROUNDING[name](args[0]).astype(t.dtype)
            case "is_nan":
                return np.isnan(args[0])
            case "is_inf":
                return np.isinf(args[0])
            case "is_finite":
                return np.isfinite(args[0])
        raise CompileError(f"the reference evaluator has no rule for intrinsic {name}")
