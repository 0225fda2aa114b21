"""`hl.Expr` and Halide's type rules for mixing types and Python constants.

Everything users combine with operators (Var, RVar, FuncRef, Param, Expr) derives from
`ExprLike`, whose `node()` is an IR expression. Operators build IR right away, applying the rules
Halide's C++ and Python front ends apply:
  - a Python int takes the type of the other operand, and must fit in it (one outside int32's
    range is an int64);
  - a Python float is a float32 (beside a float64 it is widened after rounding to float32);
  - of two floats the wider wins; a non-float meets a float by becoming that float;
  - two unsigned (or two signed) ints widen to the wider; mixed signedness gives a signed int
    of the wider width.
"""

from __future__ import annotations

import math
import os
import sys
import warnings

from webhal.errors import _PACKAGE_DIR, CompileError, TruthValueError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.ops import cast_node, make_const, wrap_int
from webhal.ir.printer import to_string
from webhal.ir.types import Bool, Float, Int, Type, TypeCode, type_of_dtype


class ExprLike:
    """Mixin with Python operators for anything that stands for an expression."""

    __slots__ = ()

    def node(self) -> ir.Expr:
        raise NotImplementedError

    def type(self) -> Type:
        return self.node().type

    def __bool__(self):
        raise TruthValueError(
            f"the expression {self} has no truth value in Python (it cannot be converted to a "
            "bool): use hl.select(cond, a, b) instead of `if`, and & | ~ instead of "
            "and/or/not", user_location())

    def __str__(self) -> str:
        return to_string(self.node())

    def __repr__(self) -> str:
        return f"<halide.Expr of type {self.type()}: {self}>"

    # Arithmetic
    def __add__(self, other): return binary(ir.Add, self, other)
    def __radd__(self, other): return binary(ir.Add, other, self)
    def __sub__(self, other): return binary(ir.Sub, self, other)
    def __rsub__(self, other): return binary(ir.Sub, other, self)
    def __mul__(self, other): return binary(ir.Mul, self, other)
    def __rmul__(self, other): return binary(ir.Mul, other, self)
    def __truediv__(self, other): return binary(ir.Div, self, other)
    def __rtruediv__(self, other): return binary(ir.Div, other, self)
    def __mod__(self, other): return binary(ir.Mod, self, other)
    def __rmod__(self, other): return binary(ir.Mod, other, self)

    def __floordiv__(self, other):
        return _floor_if_float(binary(ir.Div, self, other))

    def __rfloordiv__(self, other):
        return _floor_if_float(binary(ir.Div, other, self))

    def __pow__(self, other):
        from webhal.lang.functions import pow as hl_pow
        return hl_pow(self, other)

    def __rpow__(self, other):
        from webhal.lang.functions import pow as hl_pow
        return hl_pow(other, self)

    def __neg__(self):
        a = self.node()
        return Expr(ir.Sub(make_const(a.type, 0), a))

    def __pos__(self):
        return Expr(self.node())

    # Comparisons give Bool
    def __eq__(self, other): return binary(ir.EQ, self, other)  # type: ignore[override]
    def __ne__(self, other): return binary(ir.NE, self, other)  # type: ignore[override]
    def __lt__(self, other): return binary(ir.LT, self, other)
    def __le__(self, other): return binary(ir.LE, self, other)
    def __gt__(self, other): return binary(ir.GT, self, other)
    def __ge__(self, other): return binary(ir.GE, self, other)

    __hash__ = object.__hash__

    # Logical on bools, bitwise on integers
    def __and__(self, other): return logical_or_bitwise(ir.And, "bitwise_and", self, other)
    def __rand__(self, other): return logical_or_bitwise(ir.And, "bitwise_and", other, self)
    def __or__(self, other): return logical_or_bitwise(ir.Or, "bitwise_or", self, other)
    def __ror__(self, other): return logical_or_bitwise(ir.Or, "bitwise_or", other, self)
    def __xor__(self, other): return logical_or_bitwise(ir.NE, "bitwise_xor", self, other)
    def __rxor__(self, other): return logical_or_bitwise(ir.NE, "bitwise_xor", other, self)

    def __invert__(self):
        a = self.node()
        if a.type.is_bool():
            return Expr(ir.Not(a))
        _require_integer("~", a)
        return Expr(ir.Call(a.type, "bitwise_not", (a,), ir.CallType.INTRINSIC))

    def logical_not(self):
        """`!self`, for a bool; Halide refuses other types (use `~` for bitwise not)."""
        a = self.node()
        if not a.type.is_bool():
            raise CompileError(f"logical_not needs a bool, not {a.type}: {_show(a)} (use ~ "
                               "for a bitwise not, or compare with 0)", user_location())
        return Expr(ir.Not(a))

    def __lshift__(self, other): return shift("shift_left", self, other)
    def __rlshift__(self, other): return shift("shift_left", other, self)
    def __rshift__(self, other): return shift("shift_right", self, other)
    def __rrshift__(self, other): return shift("shift_right", other, self)


class Expr(ExprLike):
    """An expression: `hl.Expr(3)`, `hl.Expr(1.5)`, or the result of any operator. `hl.Expr()`
    is Halide's undefined Expr: it means "no value" where an API takes one (a dim() constraint
    removed) and cannot be computed with."""

    __slots__ = ("_node",)

    def __init__(self, *value):
        if len(value) > 1:
            raise CompileError(f"hl.Expr takes one value, not {len(value)}", user_location())
        self._node = to_node(value[0]) if value else None

    def defined(self) -> bool:
        return self._node is not None

    def node(self) -> ir.Expr:
        if self._node is None:
            raise CompileError("an undefined hl.Expr() (made without a value) cannot be used "
                               "in an expression; give it a value, e.g. hl.Expr(0)",
                               user_location())
        return self._node


def to_node(value, like: Type | None = None) -> ir.Expr:
    """The IR for a Python constant or an ExprLike; constants take the type `like` if given."""
    if isinstance(value, ir.Expr):
        return value
    if isinstance(value, ExprLike):
        return value.node()
    if isinstance(value, bool):
        return make_const(like if like is not None else Bool(), int(value))
    if isinstance(value, int):
        if like is None:
            like = Int(32) if Int(32).can_represent(value) else Int(64)
        elif like.is_int_or_uint() and not like.is_bool() and not like.can_represent(value):
            wrapped = wrap_int(value, like)
            raise CompileError(
                f"integer constant {value} would be converted to type {like} "
                f"(the other operand's), which changes its value to {wrapped}; "
                f"cast explicitly with hl.cast", user_location())
        return make_const(like, value)
    if isinstance(value, float):
        if like is None or not like.is_float():
            like = Float(32)
            if math.isfinite(value) and float(like.dtype.type(value)) != value:
                warnings.warn(f"the float constant {value!r} becomes float32 and loses precision; "
                              "use hl.f64() or hl.f32() to choose", RuntimeWarning,
                              stacklevel=_user_stacklevel())  # Halide's category
        return make_const(like, value)
    if hasattr(value, "dtype") and getattr(value, "shape", None) == ():  # numpy scalar
        return make_const(type_of_dtype(value.dtype), value.item())
    raise CompileError(f"cannot use {value!r} (a {type(value).__name__}) as a webhal Expr",
                       user_location())


def _user_stacklevel() -> int:
    """The stacklevel for warnings.warn, called from here, that names the user's line."""
    level, frame = 1, sys._getframe(2)  # the caller of our caller is level 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE_DIR + os.sep):
        frame, level = frame.f_back, level + 1
    return level + 1


def match_types(a: ir.Expr, b: ir.Expr) -> tuple[ir.Expr, ir.Expr]:
    """Bring two IR expressions to one type with Halide's rules."""
    ta, tb = a.type, b.type
    if ta == tb:
        return a, b
    if ta.is_handle() or tb.is_handle():
        raise CompileError(f"cannot combine {ta} and {tb}", user_location())
    if ta.is_float() or tb.is_float():
        bits = max(t.bits for t in (ta, tb) if t.is_float())
        t = Float(bits)
    elif ta.code == tb.code:
        t = Type(ta.code, max(ta.bits, tb.bits))
    else:
        t = Int(max(ta.bits, tb.bits))
    return cast_node(t, a), cast_node(t, b)


def _operands(a, b) -> tuple[ir.Expr, ir.Expr]:
    a_const = not isinstance(a, ExprLike | ir.Expr)
    b_const = not isinstance(b, ExprLike | ir.Expr)
    if a_const and b_const:
        return match_types(to_node(a), to_node(b))
    if a_const:
        bn = to_node(b)
        return _constant_beside(a, bn), bn
    an = to_node(a)
    if b_const:
        return an, _constant_beside(b, an)
    return match_types(an, to_node(b))


def _constant_beside(value, other: ir.Expr) -> ir.Expr:
    # As Halide's Python bindings: a float is a float32 even beside a float64 (match_types then
    # widens it), and an int outside int32's range is an int64 rather than the other's type.
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool) and
                                    not Int(32).can_represent(value)):
        return to_node(value)
    return to_node(value, like=other.type.element_of())


_EXACT = {ir.Add: lambda p, q: p + q, ir.Sub: lambda p, q: p - q, ir.Mul: lambda p, q: p * q}


def binary(op: type, a, b) -> Expr:
    an, bn = _operands(a, b)
    an, bn = match_types(an, bn)
    p, q = ops.as_const(an), ops.as_const(bn)
    if op in _EXACT and p is not None and q is not None and an.type.is_int() and \
            an.type.bits >= 32 and not an.type.can_represent(_EXACT[op](p, q)):
        # Halide refuses it too: signed overflow of 32 and 64 bits is undefined behaviour there
        raise CompileError(f"{_show(an)} {_SYMBOL[op]} {_show(bn)} overflows {an.type} (it is "
                           f"{_EXACT[op](p, q)}); signed 32- and 64-bit overflow is undefined, "
                           "as in Halide: use a wider or an unsigned type", user_location())
    if op in (ir.Div, ir.Mod) and an.type.is_bool():
        raise CompileError(f"cannot divide booleans: {_show(an)} {'/' if op is ir.Div else '%'} "
                           f"{_show(bn)}", user_location())
    return Expr(op(an, bn))


_SYMBOL = {ir.Add: "+", ir.Sub: "-", ir.Mul: "*"}


def logical_or_bitwise(logical: type, intrinsic: str, a, b) -> Expr:
    if isinstance(a, ExprLike | ir.Expr) and isinstance(b, ExprLike | ir.Expr):
        an, bn = to_node(a), to_node(b)
    else:
        an, bn = _operands(a, b)
    if an.type.is_bool() and bn.type.is_bool():
        return Expr(logical(an, bn))
    _require_integer(intrinsic, an)
    _require_integer(intrinsic, bn)
    if an.type.is_int() != bn.type.is_int():
        # Halide refuses it: which signedness the bits mean would be a guess
        raise CompileError(f"{intrinsic} needs both operands signed or both unsigned, but "
                           f"{_show(an)} is {an.type} and {_show(bn)} is {bn.type}; cast one "
                           "with hl.cast", user_location())
    an, bn = match_types(an, bn)
    return Expr(ir.Call(an.type, intrinsic, (an, bn), ir.CallType.INTRINSIC))


def shift(name: str, a, b) -> Expr:
    """a << b or a >> b with Halide's rules: the narrower operand widens to the other's width,
    each keeping its signedness, and the result has a's type. A Python int `a` is an int32; a
    Python int `b` takes a's width, and a negative one shifts the other way."""
    an = to_node(a)
    _require_integer(name, an)
    if isinstance(b, ExprLike | ir.Expr):
        bn = to_node(b)
    else:
        if b < 0:
            name = "shift_right" if name == "shift_left" else "shift_left"
            b = -b
        bn = to_node(b, like=an.type.with_code(TypeCode.UINT))
    _require_integer(name, bn)
    bits = max(an.type.bits, bn.type.bits)
    an = cast_node(an.type.with_bits(bits), an)
    bn = cast_node(bn.type.with_bits(bits), bn)
    return Expr(ir.Call(an.type, name, (an, bn), ir.CallType.INTRINSIC))


def _require_integer(what: str, e: ir.Expr) -> None:
    if not e.type.is_int_or_uint() or e.type.is_bool():
        raise CompileError(f"{what} needs integer operands, but {_show(e)} has type {e.type}",
                           user_location())


def _floor_if_float(e: Expr) -> Expr:
    if e.type().is_float():
        from webhal.lang.functions import floor
        return floor(e)
    return e


def _show(e: ir.Expr) -> str:
    return to_string(e)
