"""halide_buffer_t for the host JIT: ctypes structures over numpy memory (no copies, unless x
is not dense in memory)."""

from __future__ import annotations

import ctypes

import numpy as np

from webhal import abi

# Each ABI kind as ctypes stores it (a halide_type_t field is one uint32).
CTYPES = {"uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "int32": ctypes.c_int32,
          "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "pointer": ctypes.c_void_p,
          "string": ctypes.c_char_p}


def _fields(s: abi.Struct, **override) -> list:
    return [(f.name, override.get(f.name, CTYPES[f.kind])) for f in s.fields]


class HalideDimension(ctypes.Structure):
    _fields_ = _fields(abi.HALIDE_DIMENSION_T)


class HalideBuffer(ctypes.Structure):
    _fields_ = _fields(abi.HALIDE_BUFFER_T, dim=ctypes.POINTER(HalideDimension))


def type_code(t) -> int:
    """An ir Type as the packed halide_type_t."""
    return abi.pack_type(t.code.value, t.bits, t.lanes)


class HostBuffer:
    """A halide_buffer_t describing an hl.Buffer's memory; keeps what it points at alive."""

    def __init__(self, buf, keep_layout: bool = False):
        data = buf.data()
        self.source = None
        if data.ndim and data.strides[0] != data.itemsize and not keep_layout:
            # Compiled code wants x dense (Halide's default constraint): work on a dense copy,
            # as the wasm runner does with every buffer; copy_back() writes outputs back.
            self.source, data = data, np.asfortranarray(data)
        self.array = data
        self.dims = (HalideDimension * max(1, data.ndim))()
        for d in range(data.ndim):
            self.dims[d].min = buf.mins()[d]
            self.dims[d].extent = data.shape[d]
            self.dims[d].stride = data.strides[d] // data.itemsize
        self.struct = HalideBuffer()
        self.struct.host = data.ctypes.data if data.size else _EMPTY.ctypes.data
        self.struct.type = type_code(buf.type())
        self.struct.dimensions = data.ndim
        self.struct.dim = self.dims

    @property
    def pointer(self) -> int:
        return ctypes.addressof(self.struct)

    def copy_back(self) -> None:
        if self.source is not None:
            self.source[...] = self.array


_EMPTY = np.zeros(16, dtype=np.uint8)
