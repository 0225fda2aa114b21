"""Scalar parameters (hl.Param) and input images (hl.ImageParam) of a pipeline."""

from __future__ import annotations

from webhal.errors import BufferError, CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir.types import Int, Type
from webhal.lang.buffer import Buffer, BufferRef
from webhal.lang.expr import Expr, ExprLike, cast_node, to_node
from webhal.lang.names import check_name, unique_name


def estimate_node(value, what: str):
    """An estimate's min or extent as int32 IR (None stays None: not given). Estimates are
    Exprs as in Halide, usually constants; a float or bool is refused."""
    if value is None or isinstance(value, Expr) and not value.defined():
        return None
    n = to_node(value)
    if not n.type.is_int_or_uint() or n.type.is_bool():
        raise CompileError(f"{what}: an estimate must be an integer, not {value!r} of type "
                           f"{n.type}", user_location())
    return cast_node(Int(32), n)


def region_pairs(region, count: int, what: str) -> list[tuple]:
    """A region ([(min, extent), ...] or hl.Range objects) as one (min, extent) pair per
    dimension, checked to have `count` of them."""
    from webhal.lang.var import Range
    pairs = [(r.min, r.extent) if isinstance(r, Range) else tuple(r) for r in region]
    if len(pairs) != count or any(len(p) != 2 for p in pairs):
        raise CompileError(f"{what} has {count} dimensions, but the estimates passed to "
                           f"set_estimates contain {len(pairs)} (min, extent) pairs",
                           user_location())
    return pairs


class Param(ExprLike):
    """A scalar argument of a pipeline: `hl.Param(hl.Float(32), "gain", 1.5)`."""

    __slots__ = ("_type", "_name", "_value", "_min", "_max", "_estimate", "allow_nonfinite")

    def __init__(self, type: Type, name: str | None = None, value=0, min=None, max=None,  # noqa: A002
                 *, allow_nonfinite: bool = False):
        """allow_nonfinite (webhal's, for float Params): the pipeline means to take NaN and
        infinities, which an npm package's run() otherwise refuses with a RangeError."""
        if not isinstance(type, Type):
            hint = " (Python's bool, int and float are taken only by a generator's Inputs and " \
                "Outputs, as in Halide: write hl.Bool(), hl.Int(32), hl.Float(32))" \
                if type in (bool, int, float) else ""
            raise CompileError(f"Param needs an hl type first, not {type!r}{hint}",
                               user_location())
        self._type = type
        self._name = check_name(name, "Param") if name else unique_name("p")
        self._min = None if min is None else to_node(min, like=type)
        self._max = None if max is None else to_node(max, like=type)
        self._estimate = None
        self.allow_nonfinite = bool(allow_nonfinite)
        self.set(value)

    def name(self) -> str:
        return self._name

    def type(self) -> Type:
        return self._type

    def node(self) -> ir.Expr:
        return ir.Variable(self._type, self._name, param=self)

    def set(self, value) -> None:
        n = to_node(value, like=self._type) if not isinstance(value, float) or \
            self._type.is_float() else None
        if n is None or not isinstance(n, ir.IntImm | ir.UIntImm | ir.FloatImm):
            raise CompileError(f"Param {self._name} of type {self._type} cannot hold {value!r}",
                               user_location())
        self._value = n.value

    def get(self):
        return self._value

    def set_range(self, min, max) -> None:  # noqa: A002
        self._min, self._max = to_node(min, like=self._type), to_node(max, like=self._type)

    def set_min_value(self, min) -> None:  # noqa: A002
        self._min = to_node(min, like=self._type)

    def set_max_value(self, max) -> None:  # noqa: A002
        self._max = to_node(max, like=self._type)

    def min_value(self):
        return None if self._min is None else Expr(self._min)

    def max_value(self):
        return None if self._max is None else Expr(self._max)

    def set_estimate(self, value) -> None:
        """A typical value, for autoschedulers (Halide's); it changes no compiled code. Read
        it back with estimate(): an IR constant of the Param's type, or None."""
        self._estimate = to_node(value, like=self._type)

    def estimate(self):
        """The estimate given by set_estimate (IR of the Param's type), or None."""
        return self._estimate

    def parameter(self) -> Param:
        """The Param itself, where Halide's bindings hand out its Parameter (what
        deserialize_pipeline's user_params take)."""
        return self

    def __repr__(self):
        return f"<halide.Param '{self._name}' type {self._type}>"  # Halide's words

    __hash__ = object.__hash__


class _ImageDim:
    """min, extent, stride of one dimension of an ImageParam, as Exprs known at run time."""

    def __init__(self, image: ImageParam, i: int):
        self._image, self._i = image, i

    def _var(self, field: str) -> Expr:
        # An output's fields are its Func's symbols, known inside the pipeline.
        param = self._image if isinstance(self._image, ImageParam) else None
        return Expr(ir.Variable(Int(32), f"{self._image.name()}.{field}.{self._i}",
                                param=param))

    def min(self) -> Expr:
        return self._var("min")

    def extent(self) -> Expr:
        return self._var("extent")

    def stride(self) -> Expr:
        return self._var("stride")

    def max(self) -> Expr:
        return self.min() + self.extent() - 1

    def _constrain(self, field: str, value) -> None:
        """The compiled pipeline checks on entry that the buffer has this value (a constant or
        an expression of Params and other dimensions) and uses it in place of the field. An
        undefined hl.Expr() removes the constraint; for the stride of dimension 0 it also
        removes the default one (dense x), so any stride is taken (None records that)."""
        key = (field, self._i)
        if isinstance(value, Expr) and not value.defined():
            if key == ("stride", 0):
                self._image._constraints[key] = None
            else:
                self._image._constraints.pop(key, None)
            return
        self._image._constraints[key] = cast_node(Int(32), to_node(value))

    def set_bounds(self, min, extent) -> _ImageDim:  # noqa: A002
        self._constrain("min", min)
        self._constrain("extent", extent)
        return self

    def set_min(self, min) -> _ImageDim:  # noqa: A002
        self._constrain("min", min)
        return self

    def set_extent(self, extent) -> _ImageDim:
        self._constrain("extent", extent)
        return self

    def set_stride(self, stride) -> _ImageDim:
        self._constrain("stride", stride)
        return self

    def set_estimate(self, min, extent) -> _ImageDim:  # noqa: A002
        """The usual (min, extent) of this dimension, for autoschedulers; it changes no
        compiled code (Halide's). On an output buffer it is its Func's set_estimate."""
        self._image._set_estimate(self._i, min, extent)
        return self

    def dim(self, i: int) -> _ImageDim:
        """Dimension i of the same image, to chain from one dimension to the next
        (`input.dim(0).set_stride(3).dim(2).set_stride(1)`)."""
        return self._image.dim(i)


class ImageParam:
    """An input image of a pipeline: `hl.ImageParam(hl.UInt(8), 2, "input")`; bind data with
    `set(buffer)`. Read it like a Func: `input[x, y]`. `hl.ImageParam()` is an undefined one,
    a placeholder to assign later (`defined()` is False, and using it is an error)."""

    def __init__(self, type: Type | None = None, dimensions: int | None = None,  # noqa: A002
                 name: str | None = None):
        self._defined = type is not None or dimensions is not None
        if not self._defined:
            self._type, self._dims, self._name = Type(), 0, "ImageParam()"
            self._buffer, self._constraints = None, {}
            return
        if not isinstance(type, Type) or dimensions is None:
            hint = "; Python's bool, int and float are taken only by a generator's Inputs and " \
                "Outputs, as in Halide" if type in (bool, int, float) else ""
            raise CompileError(f"ImageParam needs an hl type and a number of dimensions "
                               f"(hl.ImageParam(hl.UInt(8), 2, 'input')), not {type!r}, "
                               f"{dimensions!r}{hint}", user_location())
        self._type = type
        self._dims = int(dimensions)
        self._name = check_name(name, "ImageParam") if name else unique_name("p")
        self._buffer: Buffer | None = None
        self._constraints: dict[tuple[str, int], object] = {}
        # dim(d).set_estimate / set_estimates: (min, extent) per dimension, None where not
        # given (either part may be None too); int32 IR, for autoschedulers only.
        self._estimates: list[tuple | None] = [None] * self._dims

    def set_estimates(self, region) -> ImageParam:
        """The usual (min, extent) of every dimension, for autoschedulers (Halide's); it
        changes no compiled code. Read back with estimates()."""
        self._require_defined()
        for d, (lo, ext) in enumerate(region_pairs(region, self._dims,
                                                    f"ImageParam {self._name}")):
            self._set_estimate(d, lo, ext)
        return self

    def _set_estimate(self, d: int, lo, ext) -> None:
        what = f"ImageParam {self._name}.dim({d}).set_estimate"
        self._estimates[d] = (estimate_node(lo, what), estimate_node(ext, what))

    def estimates(self) -> list[tuple | None]:
        """(min, extent) per dimension as given by the estimates (int32 IR, or None)."""
        self._require_defined()
        return list(self._estimates)

    def defined(self) -> bool:
        return self._defined

    def in_(self, consumer):
        """A wrapper Func of this image (`img_in_blur[_0, _1] = img[_0, _1]`, pure Vars
        _0, _1, ...) that `consumer` (a Func, or a list of them) reads instead of the image,
        scheduled on its own: to stage tiles of the input, as Func.in_ does for a Func."""
        from webhal.lang.func import Func
        from webhal.lang.var import Var
        from webhal.lang.wrappers import redirect_definitions
        self._require_defined()
        if consumer is None:
            raise CompileError(f"ImageParam {self._name}.in_() needs the consumer(s) that "
                               "should read the wrapper (webhal has no global image "
                               "wrapper): in_(f) or in_([f, g])", user_location())
        consumers = list(consumer) if isinstance(consumer, (list, tuple)) else [consumer]
        key = tuple(id(c.function()) for c in consumers)
        wrappers = self.__dict__.setdefault("_wrappers", {})
        if key not in wrappers:
            wrapper = Func(f"{self._name}_in_{consumers[0].name()}")
            args = [Var.implicit(i) for i in range(self._dims)]
            wrapper[args] = self[args]
            for c in consumers:
                redirect_definitions(c.function(), self, wrapper.function())
            wrappers[key] = wrapper
        return wrappers[key]

    def parameter(self) -> ImageParam:
        """The ImageParam itself, where Halide's bindings hand out its Parameter (what
        deserialize_pipeline's user_params take)."""
        return self

    def __getstate__(self) -> dict:
        # A serialized pipeline keeps what the input is, not the data bound to it now (nor
        # the wrapper Funcs made for it, which the pipeline's Functions already hold).
        state = {k: v for k, v in self.__dict__.items() if k != "_wrappers"}
        return {**state, "_buffer": None}

    def _require_defined(self) -> None:
        if not self._defined:
            raise CompileError("this ImageParam is undefined (made by hl.ImageParam() without "
                               "a type and dimensions); give it hl.ImageParam(type, dimensions, "
                               "name)", user_location())

    def name(self) -> str:
        self._require_defined()
        return self._name

    def type(self) -> Type:
        self._require_defined()
        return self._type

    def dimensions(self) -> int:
        self._require_defined()
        return self._dims

    def dim(self, i: int) -> _ImageDim:
        self._require_defined()
        if not 0 <= i < self._dims:
            raise CompileError(f"ImageParam {self._name} has {self._dims} dimensions; there is "
                               f"no dimension {i}", user_location())
        return _ImageDim(self, i)

    def width(self) -> Expr:
        return self.dim(0).extent()

    def height(self) -> Expr:
        return self.dim(1).extent()

    def channels(self) -> Expr:
        return self.dim(2).extent()

    def left(self) -> Expr:
        return self.dim(0).min()

    def right(self) -> Expr:
        return self.dim(0).max()

    def top(self) -> Expr:
        return self.dim(1).min()

    def bottom(self) -> Expr:
        return self.dim(1).max()

    def set(self, buffer) -> None:
        """Bind the data this ImageParam reads; the type and dimensions must match."""
        self._require_defined()
        if not isinstance(buffer, Buffer):
            buffer = Buffer(buffer)
        if buffer.type() != self._type:
            raise BufferError(f"ImageParam {self._name} has type {self._type}, but the Buffer "
                              f"{buffer.name()} bound to it has type {buffer.type()}",
                              user_location())
        if buffer.dimensions() != self._dims:
            raise BufferError(f"ImageParam {self._name} has {self._dims} dimensions, but the "
                              f"Buffer {buffer.name()} bound to it has {buffer.dimensions()}",
                              user_location())
        self._buffer = buffer

    def get(self) -> Buffer | None:
        return self._buffer

    def reset(self) -> None:
        self._buffer = None

    def __getitem__(self, args) -> Expr:
        return Expr(BufferRef(self, args if isinstance(args, tuple) else (args,)).node())

    def __call__(self, *args) -> Expr:
        return self[args]

    def __repr__(self):
        if not self._defined:
            return "<halide.ImageParam ImageParam()>"  # Halide's words
        return f"<halide.ImageParam '{self._name}', dims: {self._dims}, type: {self._type}>"
