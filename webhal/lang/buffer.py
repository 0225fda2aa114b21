"""hl.Buffer: n-dimensional data shared with numpy, in Halide's axis order (x first)."""

from __future__ import annotations

import numpy as np

from webhal.errors import BufferError, CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir.types import Type, type_of_dtype
from webhal.lang.expr import ExprLike
from webhal.lang.names import unique_name


class BufferDim:
    """min, extent and stride (in elements) of one dimension of a Buffer."""

    def __init__(self, min: int, extent: int, stride: int):  # noqa: A002
        self._min, self._extent, self._stride = min, extent, stride

    def min(self) -> int:
        return self._min

    def extent(self) -> int:
        return self._extent

    def max(self) -> int:
        return self._min + self._extent - 1

    def stride(self) -> int:
        return self._stride


class Buffer:
    """Image data. `hl.Buffer(array)` wraps a numpy array without copying, reversing its axes so
    that an array of shape (height, width) is a buffer with x = width, y = height
    (`reverse_axes=False` keeps numpy's order). `hl.Buffer(type, sizes)` allocates zeros.
    `np.asarray(buf)` gives the data back in numpy's order. In definitions, `buf[x, y]` reads it
    like a Func; with integer coordinates it reads or writes one element."""

    def __init__(self, data=None, sizes=None, name: str | None = None, *,
                 reverse_axes: bool = True):
        if isinstance(data, Type):
            t = data
            if sizes is None:
                sizes = []
            sizes = [int(s) for s in (sizes if isinstance(sizes, (list, tuple)) else [sizes])]
            if any(s < 0 for s in sizes):
                raise BufferError(f"Buffer sizes must not be negative: {sizes}", user_location())
            # Allocated column-major so that x has stride 1, as in Halide.
            self._array = np.zeros(sizes, dtype=t.dtype, order="F")
            self._type = t
        elif data is None:
            self._array = np.zeros((), dtype=np.uint8)
            self._type = type_of_dtype(np.uint8)
        else:
            if isinstance(sizes, str) and name is None:
                name, sizes = sizes, None
            arr = np.asarray(data)
            try:
                self._type = type_of_dtype(arr.dtype)
            except TypeError as e:
                raise BufferError(f"cannot make a Buffer from an array of dtype {arr.dtype}: {e}",
                                  user_location()) from None
            self._array = arr.T if reverse_axes else arr
        self._mins = [0] * self._array.ndim
        self._name = name or unique_name("b")

    # -- shape ---------------------------------------------------------------------------------

    def name(self) -> str:
        return self._name

    def type(self) -> Type:
        return self._type

    def dimensions(self) -> int:
        return self._array.ndim

    def dim(self, i: int) -> BufferDim:
        if not 0 <= i < self.dimensions():
            raise BufferError(f"Buffer {self._name} has {self.dimensions()} dimensions; there is "
                              f"no dimension {i}", user_location())
        stride = self._array.strides[i] // self._array.itemsize
        return BufferDim(self._mins[i], self._array.shape[i], stride)

    def width(self) -> int:
        return self._array.shape[0] if self.dimensions() > 0 else 1

    def height(self) -> int:
        return self._array.shape[1] if self.dimensions() > 1 else 1

    def channels(self) -> int:
        return self._array.shape[2] if self.dimensions() > 2 else 1

    def min(self, i: int = 0) -> int:
        return self._mins[i]

    def extent(self, i: int) -> int:
        return self._array.shape[i]

    def left(self) -> int:
        return self._mins[0]

    def right(self) -> int:
        return self._mins[0] + self.width() - 1

    def top(self) -> int:
        return self._mins[1]

    def bottom(self) -> int:
        return self._mins[1] + self.height() - 1

    def mins(self) -> list[int]:
        return list(self._mins)

    def shape(self) -> tuple[int, ...]:
        """Extents in Halide's order (x first)."""
        return tuple(self._array.shape)

    def number_of_elements(self) -> int:
        return int(self._array.size)

    def set_min(self, *mins) -> Buffer:
        if len(mins) == 1 and isinstance(mins[0], (list, tuple)):
            mins = tuple(mins[0])
        if len(mins) > self.dimensions():
            raise BufferError(f"Buffer {self._name} has {self.dimensions()} dimensions but "
                              f"set_min got {len(mins)} values", user_location())
        self._mins[:len(mins)] = [int(m) for m in mins]
        return self

    def translate(self, deltas) -> Buffer:
        for i, d in enumerate(deltas):
            self._mins[i] += int(d)
        return self

    def defined(self) -> bool:
        return True

    # -- data ----------------------------------------------------------------------------------

    def data(self) -> np.ndarray:
        """The numpy view in Halide's axis order (x first)."""
        return self._array

    def __array__(self, dtype=None, copy=None):
        out = self._array.T
        return out if dtype is None else out.astype(dtype)

    def copy(self) -> Buffer:
        b = Buffer(self._array.copy(order="K"), name=self._name + "_copy", reverse_axes=False)
        b._mins = list(self._mins)
        return b

    def fill(self, value) -> Buffer:
        self._array[...] = value
        return self

    def __getitem__(self, args):
        args = args if isinstance(args, tuple) else (args,)
        if len(args) == 1 and isinstance(args[0], list):
            args = tuple(args[0])
        if all(isinstance(a, (int, np.integer)) for a in args):
            return self._array[self._index(args)].item()
        return BufferRef(self, args)

    def __setitem__(self, args, value):
        args = args if isinstance(args, tuple) else (args,)
        self._array[self._index(args)] = value

    def _index(self, coords) -> tuple[int, ...]:
        if len(coords) != self.dimensions():
            raise BufferError(f"Buffer {self._name} has {self.dimensions()} dimensions but was "
                              f"indexed with {len(coords)} coordinates", user_location())
        idx = []
        for d, c in enumerate(coords):
            i = int(c) - self._mins[d]
            if not 0 <= i < self._array.shape[d]:
                raise BufferError(f"Buffer {self._name} is accessed at {int(c)} in dimension {d}, "
                                  f"outside [{self._mins[d]}, "
                                  f"{self._mins[d] + self._array.shape[d] - 1}]", user_location())
            idx.append(i)
        return tuple(idx)

    def __repr__(self):
        return f"<webhal.Buffer '{self._name}' {self._type} {list(self._array.shape)}>"


class BufferRef(ExprLike):
    """`buf[x, y]` with Expr coordinates: a read of the buffer inside a definition."""

    __slots__ = ("_buffer", "_args")

    def __init__(self, source, args):
        from webhal.lang.func import call_args
        self._buffer = source
        self._args = call_args(tuple(args), f"{source.name()}")
        if len(self._args) != source.dimensions():
            raise CompileError(f"{type(source).__name__} {source.name()} has "
                               f"{source.dimensions()} dimensions but is called with "
                               f"{len(self._args)} arguments", user_location())

    def node(self) -> ir.Expr:
        return ir.Call(self._buffer.type(), self._buffer.name(), tuple(self._args),
                       ir.CallType.IMAGE, func=self._buffer)
