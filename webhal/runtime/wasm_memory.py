"""Memory of a standalone wasm pipeline, managed from Python: a heap above `__heap_base` that
grows the wasm memory on demand. Allocations made for one call are released together after it;
within a call, blocks freed in reverse order of allocation (the pattern of allocations inside
loops) are reused."""

from __future__ import annotations

import struct

import numpy as np

from webhal import abi
from webhal.runtime.buffers import type_code

PAGE = 65536
ALIGN = 64


class _Memory:
    """wasmtime's Memory and SharedMemory behind one interface (the shared one takes no store)."""

    def __init__(self, store, memory):
        import wasmtime
        self.store, self.memory = store, memory
        self.shared = isinstance(memory, wasmtime.SharedMemory)

    def _args(self):
        return () if self.shared else (self.store,)

    def size(self) -> int:
        if self.shared:  # wasmtime-py's SharedMemory.size() passes a wrong pointer type
            return self.data_len() // PAGE
        return self.memory.size(*self._args())

    def grow(self, pages: int) -> None:
        self.memory.grow(*self._args(), pages)

    def data_ptr(self):
        return self.memory.data_ptr(*self._args())

    def data_len(self) -> int:
        return self.memory.data_len(*self._args())


class WasmHeap:
    def __init__(self, store, memory, heap_base: int):
        self.store, self.memory = store, _Memory(store, memory)
        self.base = (heap_base + ALIGN - 1) // ALIGN * ALIGN
        self.top = self.base
        self.blocks: list[tuple[int, int]] = []  # (address, end), in allocation order

    def reset(self) -> None:
        self.top = self.base
        self.blocks.clear()

    def malloc(self, size: int) -> int:
        addr = self.top
        end = (addr + max(size, 1) + ALIGN - 1) // ALIGN * ALIGN
        have = self.memory.size() * PAGE
        if end > have:
            self.memory.grow((end - have + PAGE - 1) // PAGE)
        self.top = end
        self.blocks.append((addr, end))
        return addr

    def free(self, addr: int) -> None:
        if self.blocks and self.blocks[-1][0] == addr:
            self.blocks.pop()
            self.top = self.blocks[-1][1] if self.blocks else self.base

    def view(self) -> np.ndarray:
        """All of memory as bytes (re-take after anything that may grow it)."""
        ptr = self.memory.data_ptr()
        size = self.memory.data_len()
        return np.ctypeslib.as_array(ptr, shape=(size,))

    def write(self, addr: int, data: bytes | np.ndarray) -> None:
        raw = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else \
            np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        self.view()[addr:addr + raw.size] = raw

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        return self.view()[addr:addr + nbytes].copy()

    def string(self, addr: int) -> str:
        mem = self.view()
        end = addr
        while end < mem.size and mem[end] != 0:
            end += 1
        return bytes(mem[addr:end]).decode(errors="replace")


# Each ABI kind as Python's struct module packs it, on wasm32.
_STRUCT_CODES = {"uint8": "B", "uint16": "H", "int32": "i", "uint32": "I", "uint64": "Q",
                 "pointer": "I", "string": "I"}


def struct_layout(s: abi.Struct) -> struct.Struct:
    """A little-endian struct.Struct of `s` as laid out in wasm32 memory (padding included)."""
    def pad(n: int) -> str:
        return f"{n}x" if n else ""
    fmt, at, offsets = "<", 0, s.offsets(4)
    for f in s.fields:
        fmt += pad(offsets[f.name] - at) + _STRUCT_CODES[f.kind]
        at = offsets[f.name] + abi.size_of(f.kind, 4)
    return struct.Struct(fmt + pad(s.size(4) - at))


class WasmBuffer:
    """An hl.Buffer copied into wasm memory (dense, x-first) with a 32-bit halide_buffer_t."""

    LAYOUT = struct_layout(abi.HALIDE_BUFFER_T)
    DIMENSION = struct_layout(abi.HALIDE_DIMENSION_T)

    def __init__(self, heap: WasmHeap, buf, copy_in: bool, keep_layout: bool = False):
        """`keep_layout`: lay the elements out in the order of the Buffer's own strides (an
        interleaved image stays interleaved), rather than x first."""
        self.buffer = buf
        data = buf.data()
        self.shape = data.shape
        self.dtype = data.dtype
        self.nbytes = data.size * data.itemsize
        # Dimensions from innermost to outermost in wasm memory.
        self.order = sorted(range(data.ndim), key=lambda d: data.strides[d]) if keep_layout \
            else list(range(data.ndim))
        self.host = heap.malloc(self.nbytes)
        if copy_in and self.nbytes:
            heap.write(self.host, np.ascontiguousarray(data.transpose(self.order[::-1])))
        dims = data.ndim
        self.dim = heap.malloc(self.DIMENSION.size * max(dims, 1))
        strides, stride = [0] * dims, 1
        for d in self.order:
            strides[d] = stride
            stride *= data.shape[d]
        packed = b"".join(self.DIMENSION.pack(buf.mins()[d], data.shape[d], strides[d], 0)
                          for d in range(dims))
        heap.write(self.dim, packed or b"\0" * self.DIMENSION.size)
        self.address = heap.malloc(self.LAYOUT.size)
        fields = {"host": self.host, "type": type_code(buf.type()), "dimensions": dims,
                  "dim": self.dim}
        values = [fields.get(f.name, 0) for f in abi.HALIDE_BUFFER_T.fields]
        heap.write(self.address, self.LAYOUT.pack(*values))

    def copy_out(self, heap: WasmHeap) -> None:
        raw = heap.read(self.host, self.nbytes)
        # Memory holds self.order[0] fastest: read it as C order of the dimensions from the
        # outermost, then put them back in place.
        outer_first = self.order[::-1]
        values = raw.view(self.dtype).reshape(tuple(self.shape[d] for d in outer_first))
        self.buffer.data()[...] = values.transpose(np.argsort(outer_first))
