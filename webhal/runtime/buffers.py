"""halide_buffer_t for the host JIT: ctypes structures over numpy memory (no copies, unless x
is not dense in memory)."""

from __future__ import annotations

import ctypes
import functools
import struct
import weakref

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


# halide_buffer_t and halide_dimension_t as struct formats with C's alignment ("@").
_STRUCT_CHARS = {"uint8": "B", "uint16": "H", "int32": "i", "uint32": "I", "uint64": "Q",
                 "pointer": "P"}
_BUFFER_FORMAT = "".join(_STRUCT_CHARS[f.kind] for f in abi.HALIDE_BUFFER_T.fields)
_DIMENSION_FORMAT = "".join(_STRUCT_CHARS[f.kind] for f in abi.HALIDE_DIMENSION_T.fields)
_BUFFER_SIZE = ctypes.sizeof(HalideBuffer)
_DIMENSION_SIZE = ctypes.sizeof(HalideDimension)
assert struct.calcsize("@" + _BUFFER_FORMAT) == _BUFFER_SIZE
assert struct.calcsize("@" + _BUFFER_FORMAT + _DIMENSION_FORMAT) == \
    _BUFFER_SIZE + _DIMENSION_SIZE


@functools.cache
def _dtype_code(dtype: np.dtype) -> int | None:
    """The packed halide_type_t of arrays of `dtype`, or None for a dtype Buffers refuse."""
    from webhal.ir.types import type_of_dtype
    try:
        return type_code(type_of_dtype(dtype))
    except TypeError:
        return None


class BufferSlots:
    """The halide_buffer_ts of one call's buffer arguments in one block of memory, each
    followed by its dimensions, filled straight from numpy arrays (no hl.Buffer, no ctypes
    structure per call). A block is reused by later calls (one block per concurrent call, from
    a pool kept by the caller); a slot given the same array as last time is not rewritten.

    fill() takes what `HostBuffer` would describe without a copy: an array whose x is dense
    (or any strides where `keep_layout`), non-empty, of the declared dimensionality; for
    anything else it returns False and the caller takes the general path."""

    def __init__(self, dimensions: list[int], keep_layout: list[bool]):
        self.formats = [struct.Struct("@" + _BUFFER_FORMAT + _DIMENSION_FORMAT * d)
                        for d in dimensions]
        offsets, size = [], 0
        for f in self.formats:
            offsets.append(size)
            size += -(-f.size // 8) * 8
        self.offsets = offsets
        self.memory = (ctypes.c_char * max(size, 8))()
        base = ctypes.addressof(self.memory)
        self.pointers = [base + o for o in offsets]
        self.dimensions = dimensions
        self.keep_layout = keep_layout
        self.seen: list[tuple | None] = [None] * len(dimensions)

    def fill(self, i: int, array: np.ndarray, reverse: bool, mins: tuple = ()) -> bool:
        """Describe `array` in slot i: in numpy's axis order reversed (x last in numpy, as
        hl.Buffer(array) takes it) when `reverse`, else as it is (x first, hl.Buffer.data())."""
        shape, strides, dtype = array.shape, array.strides, array.dtype
        seen = self.seen[i]
        if (seen is not None and seen[0]() is array and seen[1] == shape
                and seen[2] == strides and seen[3] is dtype and seen[4] == mins):
            return True
        n = len(shape)
        code = _dtype_code(dtype)
        if n != self.dimensions[i] or code is None or array.size == 0:
            return False
        if reverse:
            shape, strides = shape[::-1], strides[::-1]
        item = dtype.itemsize
        if n and strides[0] != item and not self.keep_layout[i]:
            return False
        if any(s % item for s in strides):
            return False
        dims = []
        for d in range(n):
            dims += (mins[d] if mins else 0, shape[d], strides[d] // item, 0)
        pointer = self.pointers[i]
        self.formats[i].pack_into(self.memory, self.offsets[i], 0, 0, array.ctypes.data, 0, code,
                                  n, pointer + _BUFFER_SIZE, 0, *dims)
        self.seen[i] = (weakref.ref(array), array.shape, array.strides, dtype, mins)
        return True
