"""halide_buffer_t for the host JIT: ctypes structures over numpy memory (no copies, unless x
is not dense in memory)."""

from __future__ import annotations

import ctypes

import numpy as np

from webhal.passes.add_buffer_checks import type_code


class HalideDimension(ctypes.Structure):
    _fields_ = [("min", ctypes.c_int32), ("extent", ctypes.c_int32),
                ("stride", ctypes.c_int32), ("flags", ctypes.c_uint32)]


class HalideBuffer(ctypes.Structure):
    _fields_ = [("device", ctypes.c_uint64), ("device_interface", ctypes.c_void_p),
                ("host", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("type", ctypes.c_uint32), ("dimensions", ctypes.c_int32),
                ("dim", ctypes.POINTER(HalideDimension)), ("padding", ctypes.c_void_p)]


class HostBuffer:
    """A halide_buffer_t describing an hl.Buffer's memory; keeps what it points at alive."""

    def __init__(self, buf):
        data = buf.data()
        self.source = None
        if data.ndim and data.strides[0] != data.itemsize:
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
