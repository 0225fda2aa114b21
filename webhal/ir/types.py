"""Scalar and vector types of the IR, with Halide's names and limits."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np


class TypeCode(enum.Enum):
    """What kind of number a type holds. Halide's Python names (`hl.TypeCode.Int`) are aliases,
    and calling a member gives it back, so Halide's `t.code()` works beside webhal's `t.code`."""

    INT = "int"
    UINT = "uint"
    FLOAT = "float"
    HANDLE = "handle"
    Int = "int"
    UInt = "uint"
    Float = "float"
    Handle = "handle"

    def __call__(self) -> TypeCode:
        return self


class _Count(int):
    """An int that can also be called, so `t.bits` (webhal's code) and `t.bits()` (Halide's
    Python bindings, where bits, lanes and bytes are methods) both work."""

    __slots__ = ()

    def __call__(self) -> int:
        return int(self)


@dataclass(frozen=True, slots=True)
class Type:
    """A Halide type: code, bits per lane and lane count (1 unless given). Bool is UInt(1).
    `Type()` is Halide's default type, a handle of 0 bits and 0 lanes, which no value has."""

    code: TypeCode = TypeCode.HANDLE
    bits: int = 0
    lanes: int | None = None

    def __post_init__(self):
        if self.lanes is None:
            no_type = self.code is TypeCode.HANDLE and self.bits == 0
            object.__setattr__(self, "lanes", 0 if no_type else 1)
        object.__setattr__(self, "bits", _Count(self.bits))
        object.__setattr__(self, "lanes", _Count(self.lanes))

    def is_int(self) -> bool:
        return self.code is TypeCode.INT

    def is_uint(self) -> bool:
        return self.code is TypeCode.UINT

    def is_float(self) -> bool:
        return self.code is TypeCode.FLOAT

    def is_bool(self) -> bool:
        return self.code is TypeCode.UINT and self.bits == 1

    def is_handle(self) -> bool:
        return self.code is TypeCode.HANDLE

    def is_int_or_uint(self) -> bool:
        return self.code in (TypeCode.INT, TypeCode.UINT)

    def is_scalar(self) -> bool:
        return self.lanes == 1

    def is_vector(self) -> bool:
        return self.lanes > 1

    def with_lanes(self, lanes: int) -> Type:
        return Type(self.code, self.bits, lanes)

    def with_bits(self, bits: int) -> Type:
        return Type(self.code, bits, self.lanes)

    def with_code(self, code: TypeCode) -> Type:
        return Type(code, self.bits, self.lanes)

    def element_of(self) -> Type:
        return Type(self.code, self.bits, 1)

    @property
    def bytes(self) -> int:
        return _Count((self.bits + 7) // 8)

    def max(self) -> int | float:
        if self.is_bool():
            return 1
        if self.is_int():
            return (1 << (self.bits - 1)) - 1
        if self.is_uint():
            return (1 << self.bits) - 1
        return float(np.finfo(self.dtype).max)

    def min(self) -> int | float:
        if self.is_bool() or self.is_uint():
            return 0
        if self.is_int():
            return -(1 << (self.bits - 1))
        return float(np.finfo(self.dtype).min)

    def can_represent(self, value) -> bool:
        """Whether a Python constant, or every value of another Type, survives conversion to
        this type unchanged."""
        if isinstance(value, Type):
            return self._holds(value)
        if self.is_float():
            return bool(np.isnan(value)) or float(self.dtype.type(value)) == value or \
                abs(value) <= self.max()
        if isinstance(value, float) and not float(value).is_integer():
            return False
        return self.min() <= value <= self.max()

    def _holds(self, other: Type) -> bool:
        if self.lanes != other.lanes or self.is_handle() or other.is_handle():
            return self == other
        if other.is_float():
            return self.is_float() and self.bits >= other.bits
        if self.is_float():  # every integer of other fits the mantissa
            mantissa = {16: 11, 32: 24, 64: 53}[self.bits]
            return other.bits - (1 if other.is_int() else 0) <= mantissa
        return self.min() <= other.min() and other.max() <= self.max()

    def is_max(self, value) -> bool:
        """Whether value is this type's largest (integer types only, as in Halide)."""
        return not self.is_float() and value == self.max()

    def is_min(self, value) -> bool:
        """Whether value is this type's smallest (integer types only, as in Halide)."""
        return not self.is_float() and value == self.min()

    def same_handle_type(self, other: Type) -> bool:
        """Whether both are handles (webhal's handles carry no C++ type to compare)."""
        return self.is_handle() and other.is_handle()

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of one lane."""
        if self.is_bool():
            return np.dtype(np.bool_)
        if self.is_handle():
            return np.dtype(np.uint64)
        return np.dtype(f"{_NUMPY_KIND[self.code]}{self.bytes}")

    def __str__(self) -> str:
        base = "bool" if self.is_bool() else f"{self.code.value}{self.bits}"
        return base if self.lanes <= 1 else f"{base}x{self.lanes}"

    def __repr__(self) -> str:
        return f"<halide.Type {self}>"  # Halide's words: code written for it compares them


_NUMPY_KIND = {TypeCode.INT: "i", TypeCode.UINT: "u", TypeCode.FLOAT: "f"}


def Int(bits: int, lanes: int = 1) -> Type:  # noqa: N802 - Halide's name
    """Signed integer type of 8, 16, 32 or 64 bits."""
    return Type(TypeCode.INT, bits, lanes)


def UInt(bits: int, lanes: int = 1) -> Type:  # noqa: N802
    """Unsigned integer type of 1 (bool), 8, 16, 32 or 64 bits."""
    return Type(TypeCode.UINT, bits, lanes)


def Float(bits: int, lanes: int = 1) -> Type:  # noqa: N802
    """Floating-point type of 16, 32 or 64 bits."""
    return Type(TypeCode.FLOAT, bits, lanes)


def Bool(lanes: int = 1) -> Type:  # noqa: N802
    """The boolean type, UInt(1)."""
    return Type(TypeCode.UINT, 1, lanes)


def Handle(bits: int = 64) -> Type:  # noqa: N802
    return Type(TypeCode.HANDLE, bits)


def type_of_dtype(dtype) -> Type:
    """The Halide type of a numpy dtype (bool, int8..64, uint8..64, float16..64)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return Bool()
    kinds = {"i": TypeCode.INT, "u": TypeCode.UINT, "f": TypeCode.FLOAT}
    if dt.kind not in kinds:
        raise TypeError(f"numpy dtype {dt} has no Halide type (use bool, int, uint or float)")
    return Type(kinds[dt.kind], dt.itemsize * 8)
