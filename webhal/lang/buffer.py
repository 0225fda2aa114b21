"""hl.Buffer: n-dimensional data shared with numpy, in Halide's axis order (x first)."""

from __future__ import annotations

import itertools

import numpy as np

from webhal.errors import (
    ArgumentError,
    ArgumentValueError,
    BufferDimensionsError,
    BufferError,
    BufferIndexError,
    CompileError,
    user_location,
)
from webhal.ir import nodes as ir
from webhal.ir.types import Type, type_of_dtype
from webhal.lang.expr import Expr, ExprLike
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
    """Image data, in Halide's axis order (x first). The constructor takes Halide's forms:

      hl.Buffer(array, name="", reverse_axes=True)   wraps a numpy array (or anything numpy can
          view) without copying; its axes are reversed, so an array of shape (height, width) is
          a buffer with x = width, y = height (`reverse_axes=False` keeps numpy's order);
      hl.Buffer(type, sizes, name="")                 allocates zeros, x innermost;
      hl.Buffer(type, sizes, storage_order, name="")  allocates zeros with the dimensions laid
          out innermost first as `storage_order` lists them (`[2, 0, 1]`: interleaved);
      hl.Buffer(buffer)                               another Buffer over the same data;
      hl.Buffer()                                     an undefined Buffer.

    Each may be given by keyword (`hl.Buffer(type=hl.UInt(8), sizes=[4, 4])`). `np.asarray(buf)`
    gives the data back in numpy's order without copying; `np.array(buf)` copies. In
    definitions `buf[x, y]` reads it like a Func; with integer coordinates it reads or writes
    one element, and a coordinate outside the buffer raises an IndexError (an hl.BufferError
    too), so iterating over a one-dimensional Buffer stops at its end."""

    def __init__(self, *args, **kwargs):
        self._defined = True
        if not args and not kwargs:
            self._defined = False
            self._adopt(np.zeros((), dtype=np.uint8), None)
        elif isinstance(args[0] if args else kwargs.get("type"), Type):
            names = ("type", "sizes", "name") if len(args) > 2 and isinstance(args[2], str) \
                else ("type", "sizes", "storage_order", "name")
            a = _bind("hl.Buffer(type, sizes[, storage_order][, name])", names, args, kwargs)
            if "sizes" not in a:
                raise ArgumentError("hl.Buffer(type, sizes) needs the sizes, a list with one "
                                    "extent per dimension (x first)", user_location())
            self._adopt(_allocate(a["type"], a["sizes"], a.get("storage_order")),
                        a.get("name"))
        else:
            a = _bind("hl.Buffer(array[, name][, reverse_axes])",
                      ("buffer", "name", "reverse_axes"), args, kwargs)
            data, name = a.get("buffer"), a.get("name")
            if isinstance(data, Buffer):
                self._adopt(data._array, name or data._name, list(data._mins))
                return
            if name is not None and not isinstance(name, str):
                raise ArgumentError(f"the name of a Buffer must be a string, not {name!r}; "
                                    "Halide's order is (array, name, reverse_axes)",
                                    user_location())
            arr = np.asarray(data)
            try:
                type_of_dtype(arr.dtype)
            except TypeError as e:
                raise BufferError(f"cannot make a Buffer from an array of dtype {arr.dtype}: {e}",
                                  user_location()) from None
            self._adopt(arr.T if a.get("reverse_axes", True) else arr, name)

    _bounds_query = False

    def _adopt(self, array: np.ndarray, name: str | None, mins: list[int] | None = None) -> None:
        self._array = array
        self._type = type_of_dtype(array.dtype)
        self._mins = mins if mins is not None else [0] * array.ndim
        self._name = name or unique_name("b")

    def _view(self, array: np.ndarray, mins: list[int]) -> Buffer:
        """A new Buffer of the same name over `array` (a view of this one's data)."""
        b = Buffer.__new__(Buffer)
        b._defined = True
        b._adopt(array, self._name, mins)
        return b

    @staticmethod
    def make_bounds_query(type: Type, sizes, name: str = "") -> Buffer:  # noqa: A002
        """A Buffer with a shape but no data, for a bounds query (Halide's): pass it to
        `infer_input_bounds` and it is given the region the pipeline needs (its constraints
        applied). Reading, writing or realizing into it is an error until then."""
        where = user_location()
        if not isinstance(type, Type):
            raise ArgumentError(f"make_bounds_query needs an hl.Type, not {type!r}", where)
        sizes = [int(s) for s in sizes]
        if any(s < 0 for s in sizes):
            raise ArgumentValueError(f"make_bounds_query: sizes {sizes} must not be negative")
        b = Buffer.__new__(Buffer)
        b._defined = True
        b._adopt(_no_data(type, sizes), name or None)
        b._bounds_query = True
        return b

    def is_bounds_query(self) -> bool:
        """Whether this Buffer has a shape but no data (Buffer.make_bounds_query)."""
        return self._bounds_query

    def _set_region(self, region: list[tuple[int, int]]) -> None:
        """A bounds query's answer: this Buffer's (min, extent) per dimension."""
        self._array = _no_data(self._type, [e for _, e in region])
        self._mins = [m for m, _ in region]

    def _require_data(self, what: str) -> None:
        if self._bounds_query:
            raise BufferError(f"Buffer {self._name} is a bounds query (make_bounds_query): it has "
                              f"a shape but no data, so it cannot be {what}; give it to "
                              "infer_input_bounds, or use hl.Buffer(type, sizes) for data",
                              user_location())

    @staticmethod
    def make_interleaved(type: Type, width: int, height: int, channels: int,  # noqa: A002
                         name: str = "") -> Buffer:
        """A width x height x channels Buffer whose channels are adjacent in memory (stride 1),
        as an RGB image stored pixel by pixel."""
        return Buffer(type, [width, height, channels], [2, 0, 1], name)

    @staticmethod
    def make_scalar(type: Type, name: str = "") -> Buffer:  # noqa: A002
        """A zero-dimensional Buffer holding one value, read and written as `buf[()]`."""
        return Buffer(type, [], name)

    # -- shape ---------------------------------------------------------------------------------

    def name(self) -> str:
        return self._name

    def set_name(self, name: str) -> Buffer:
        """Rename this Buffer (a crop or translation renamed leaves the original's name)."""
        self._name = name
        return self

    def type(self) -> Type:
        return self._type

    def dimensions(self) -> int:
        return self._array.ndim

    def dim(self, i: int) -> BufferDim:
        if not 0 <= i < self.dimensions():
            raise BufferError(f"Buffer {self._name} has {self.dimensions()} dimensions; there is "
                              f"no dimension {i}", user_location())
        stride = self._array.strides[i] // self._array.itemsize
        if self._bounds_query:  # no memory behind it: the strides it would have, dense
            stride = int(np.prod(self._array.shape[:i], dtype=np.int64))
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

    def translate(self, *args) -> Buffer:
        """Shift the coordinates: translate(dimension, dx) or translate([dx, dy, ...])."""
        for d, delta in enumerate(self._deltas(args, "translate")):
            self._mins[d] += delta
        return self

    def translated(self, *args) -> Buffer:
        """A Buffer over the same data with shifted coordinates: translated(dimension, dx) or
        translated([dx, dy, ...]); this one is unchanged."""
        deltas = self._deltas(args, "translated")
        return self._view(self._array, [m + d for m, d in zip(self._mins, deltas)])

    def _deltas(self, args, what: str) -> list[int]:
        if len(args) == 2:
            d = self._check_dimension(args[0], what)
            deltas = [0] * self.dimensions()
            deltas[d] = int(args[1])
            return deltas
        if len(args) == 1 and isinstance(args[0], (list, tuple)) and \
                len(args[0]) <= self.dimensions():
            return [int(x) for x in args[0]] + [0] * (self.dimensions() - len(args[0]))
        raise ArgumentError(f"{what} takes (dimension, delta) or a list of at most "
                            f"{self.dimensions()} deltas, not {args!r}", user_location())

    def crop(self, *args, **kwargs) -> Buffer:
        """Restrict this Buffer to a sub-box, keeping coordinates: crop(dimension, min, extent)
        or crop([(min, extent), ...])."""
        view = self.cropped(*args, **kwargs)
        self._array, self._mins = view._array, view._mins
        return self

    def cropped(self, *args, **kwargs) -> Buffer:
        """A Buffer over part of this one's data, with the same coordinates:
        cropped(dimension, min, extent) or cropped([(min, extent), ...])."""
        if kwargs:
            args = (*args, *(kwargs.pop(k) for k in ("dimension", "min", "extent")
                             if k in kwargs))
            if kwargs:
                raise ArgumentError(f"cropped has no argument {next(iter(kwargs))}=",
                                    user_location())
        if len(args) == 3:
            boxes = {self._check_dimension(args[0], "cropped"): (int(args[1]), int(args[2]))}
        elif len(args) == 1 and isinstance(args[0], (list, tuple)) and \
                len(args[0]) <= self.dimensions():
            boxes = {d: (int(lo), int(ext)) for d, (lo, ext) in enumerate(args[0])}
        else:
            raise ArgumentError("cropped takes (dimension, min, extent) or a list of "
                                f"(min, extent) pairs, not {args!r}", user_location())
        index, mins = [slice(None)] * self.dimensions(), list(self._mins)
        for d, (lo, extent) in boxes.items():
            start, hi = lo - self._mins[d], self._mins[d] + self._array.shape[d] - 1
            if extent < 0 or start < 0 or start + extent > self._array.shape[d]:
                raise BufferError(f"cannot crop Buffer {self._name} to [{lo}, {lo + extent - 1}]"
                                  f" in dimension {d}: it holds [{self._mins[d]}, {hi}] there",
                                  user_location())
            index[d], mins[d] = slice(start, start + extent), lo
        return self._view(self._array[tuple(index)], mins)

    def reverse_axes(self) -> Buffer:
        """A Buffer over the same data with the dimensions in the opposite order."""
        return self._view(self._array.T, self._mins[::-1])

    def transpose(self, *order) -> Buffer:
        """Reorder the dimensions in place: transpose(d1, d2) swaps two, transpose([...]) makes
        dimension i the old dimension order[i]."""
        n = self.dimensions()
        if len(order) == 2 and all(isinstance(d, int) for d in order):
            perm = list(range(n))
            a, b = (self._check_dimension(d, "transpose") for d in order)
            perm[a], perm[b] = perm[b], perm[a]
        elif len(order) == 1 and sorted(order[0]) == list(range(n)):
            perm = list(order[0])
        else:
            raise ArgumentError(f"transpose takes two dimensions or a permutation of "
                                f"0..{n - 1}, not {order!r}", user_location())
        self._array = self._array.transpose(perm)
        self._mins = [self._mins[d] for d in perm]
        return self

    def _check_dimension(self, d, what: str) -> int:
        if not isinstance(d, (int, np.integer)) or not 0 <= d < self.dimensions():
            raise BufferIndexError(f"{what}: Buffer {self._name} has {self.dimensions()} "
                                   f"dimensions; there is no dimension {d!r}", user_location())
        return int(d)

    def defined(self) -> bool:
        return self._defined

    # -- data ----------------------------------------------------------------------------------

    def data(self) -> np.ndarray:
        """The numpy view in Halide's axis order (x first)."""
        return self._array

    def __array__(self, dtype=None, copy=None):
        """numpy's protocol: the data in numpy's order; a view unless `copy` is True (or a
        dtype other than the Buffer's is asked for, which copy=False refuses)."""
        self._require_data("read as an array")
        out = self._array.T
        if dtype is not None and np.dtype(dtype) != out.dtype:
            if copy is False:
                raise ArgumentValueError(f"Buffer {self._name} holds {out.dtype}; a {dtype} "
                                         "array of it needs a copy (copy=False forbids one)")
            return out.astype(dtype)
        return out.copy() if copy else out

    def copy_to_host(self) -> int:
        """Halide's device-to-host copy. A webhal Buffer's host memory is always current (a
        pipeline copies GPU results back before returning), so there is nothing to do: 0."""
        return 0

    def device_sync(self) -> int:
        """Halide's wait for device work on this Buffer; none is pending after a realize: 0."""
        return 0

    def copy(self) -> Buffer:
        b = Buffer(self._array.copy(order="K"), name=self._name + "_copy", reverse_axes=False)
        b._mins = list(self._mins)
        return b

    def fill(self, value) -> Buffer:
        self._require_data("filled")
        self._array[...] = value
        return self

    def all_equal(self, value) -> bool:
        """Whether every element equals value."""
        return bool(np.all(self._array == value))

    def for_each_element(self, f) -> None:
        """Call f(coordinates) for each element, x varying fastest; coordinates is a list
        (empty for a zero-dimensional Buffer) and starts at the Buffer's mins."""
        ranges = [range(m, m + e) for m, e in zip(self._mins, self._array.shape)]
        for point in itertools.product(*reversed(ranges)):
            f(list(reversed(point)))

    def __getitem__(self, args):
        args = args if isinstance(args, tuple) else (args,)
        if len(args) == 1 and isinstance(args[0], list):
            args = tuple(args[0])
        if all(isinstance(a, (int, np.integer)) for a in args):
            self._require_data("read")
            return self._array[self._index(args)].item()
        return Expr(BufferRef(self, args).node())  # an Expr, as in Halide's bindings

    def __setitem__(self, args, value):
        args = args if isinstance(args, tuple) else (args,)
        if len(args) == 1 and isinstance(args[0], list):
            args = tuple(args[0])
        self._require_data("written")
        self._array[self._index(args)] = value

    def _index(self, coords) -> tuple[int, ...]:
        if len(coords) != self.dimensions():
            raise BufferDimensionsError(f"Buffer {self._name} has {self.dimensions()} dimensions "
                                        f"but was indexed with {len(coords)} coordinates",
                                        user_location())
        idx = []
        for d, c in enumerate(coords):
            i = int(c) - self._mins[d]
            if not 0 <= i < self._array.shape[d]:
                lo, extent = self._mins[d], self._array.shape[d]
                raise BufferIndexError(f"Buffer {self._name}: index {int(c)} is out of bounds for"
                                       f" axis {d} with min={lo}, extent={extent} (outside "
                                       f"[{lo}, {lo + extent - 1}])", user_location())
            idx.append(i)
        return tuple(idx)

    def __str__(self):
        # Halide's text, word for word: code written for Halide compares it.
        if not self._defined:
            return "<undefined halide.Buffer>"
        shape = ",".join(f"[{d.min()},{d.extent()},{d.stride()}]"
                         for d in map(self.dim, range(self.dimensions())))
        return f"<halide.Buffer of type {self._type} shape:[{shape}]>"

    __repr__ = __str__


def _bind(form: str, names: tuple[str, ...], args: tuple, kwargs: dict) -> dict:
    """Positional and keyword arguments matched to `names`, as Python would for a signature."""
    if len(args) > len(names):
        raise ArgumentError(f"{form} takes at most {len(names)} arguments, got {len(args)}",
                            user_location())
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise ArgumentError(f"{form} has no argument {key}= (its arguments are "
                                f"{', '.join(names)})", user_location())
        if key in bound:
            raise ArgumentError(f"{form} got {key} twice, by position and by keyword",
                                user_location())
        bound[key] = value
    return bound


def _no_data(t: Type, sizes: list[int]) -> np.ndarray:
    """An array of that shape over one element (all strides 0): a bounds query's shape."""
    one = np.zeros(1, dtype=t.dtype)
    return np.lib.stride_tricks.as_strided(one, shape=tuple(sizes), strides=(0,) * len(sizes),
                                           writeable=False)


def _allocate(t: Type, sizes, storage_order) -> np.ndarray:
    """Zeros of type t with the given extents (x first), laid out innermost first in
    storage_order (by default x innermost, as in Halide)."""
    sizes = [int(s) for s in (sizes if isinstance(sizes, (list, tuple)) else [sizes])]
    if any(s < 0 for s in sizes):
        raise BufferError(f"Buffer sizes must not be negative: {sizes}", user_location())
    n = len(sizes)
    order = list(range(n)) if storage_order is None else [int(d) for d in storage_order]
    if sorted(order) != list(range(n)):
        raise ArgumentValueError(f"storage_order {order} must list each of the {n} dimensions "
                                 "once, innermost first", user_location())
    outer_first = np.zeros([sizes[d] for d in reversed(order)], dtype=t.dtype)
    return outer_first.transpose([n - 1 - order.index(d) for d in range(n)])


class BufferRef(ExprLike):
    """`buf[x, y]` with Expr coordinates: a read of the buffer inside a definition."""

    __slots__ = ("_buffer", "_args")

    def __init__(self, source, args):
        from webhal.lang.func import call_args
        self._buffer = source
        self._args = call_args(tuple(args), f"{source.name()}", source.dimensions())
        if len(self._args) != source.dimensions():
            raise CompileError(f"{type(source).__name__} {source.name()} has "
                               f"{source.dimensions()} dimensions but is called with "
                               f"{len(self._args)} arguments", user_location())

    def node(self) -> ir.Expr:
        return ir.Call(self._buffer.type(), self._buffer.name(), tuple(self._args),
                       ir.CallType.IMAGE, func=self._buffer)
