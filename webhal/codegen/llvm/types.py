"""webhal types as LLVM types, and the halide_buffer_t layout of webhal/abi.py as LLVM structs."""

from __future__ import annotations

from llvmlite import ir as ll

from webhal import abi
from webhal.ir.types import Type

I1, I8, I16, I32, I64 = (ll.IntType(n) for n in (1, 8, 16, 32, 64))
PTR = ll.PointerType()  # opaque pointer

# Each ABI kind as LLVM stores it (a halide_type_t field is one i32).
_KINDS = {"uint8": I8, "uint16": I16, "int32": I32, "uint32": I32, "uint64": I64,
          "pointer": PTR, "string": PTR}


def abi_type(kind: str) -> ll.Type:
    return _KINDS[kind]


def _struct(s: abi.Struct) -> ll.LiteralStructType:
    return ll.LiteralStructType([_KINDS[f.kind] for f in s.fields])


DIMENSION_T = _struct(abi.HALIDE_DIMENSION_T)
BUFFER_T = _struct(abi.HALIDE_BUFFER_T)
BUFFER_HOST, BUFFER_FLAGS, BUFFER_TYPE, BUFFER_DIMENSIONS, BUFFER_DIM = (
    abi.HALIDE_BUFFER_T.index(f) for f in ("host", "flags", "type", "dimensions", "dim"))
HOST_DIRTY = abi.BUFFER_FLAGS["host_dirty"]


def scalar(t: Type) -> ll.Type:
    if t.is_float():
        return {16: ll.HalfType(), 32: ll.FloatType(), 64: ll.DoubleType()}[t.bits]
    if t.is_handle():
        return PTR
    return ll.IntType(t.bits)


def llvm_type(t: Type) -> ll.Type:
    s = scalar(t)
    return s if t.lanes == 1 else ll.VectorType(s, t.lanes)


def memory_type(t: Type) -> ll.Type:
    """How an element is stored: bools take a byte, as in Halide's buffers."""
    if t.is_bool():
        return I8 if t.lanes == 1 else ll.VectorType(I8, t.lanes)
    return llvm_type(t)
