"""webhal types as LLVM types, and the halide_buffer_t layout (Halide's public runtime ABI)."""

from __future__ import annotations

from llvmlite import ir as ll

from webhal.ir.types import Type

I1, I8, I16, I32, I64 = (ll.IntType(n) for n in (1, 8, 16, 32, 64))
PTR = ll.PointerType()  # opaque pointer

# struct halide_dimension_t { int32_t min, extent, stride; uint32_t flags; }
DIMENSION_T = ll.LiteralStructType([I32, I32, I32, I32])

# struct halide_buffer_t {
#   uint64_t device; const halide_device_interface_t *device_interface; uint8_t *host;
#   uint64_t flags; halide_type_t type (uint8 code, uint8 bits, uint16 lanes);
#   int32_t dimensions; halide_dimension_t *dim; void *padding; }
BUFFER_T = ll.LiteralStructType([I64, PTR, PTR, I64, I32, I32, PTR, PTR])
BUFFER_HOST, BUFFER_FLAGS, BUFFER_TYPE, BUFFER_DIMENSIONS, BUFFER_DIM = 2, 3, 4, 5, 6
HOST_DIRTY = 1  # halide_buffer_flag_host_dirty


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
