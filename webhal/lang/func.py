"""hl.Func: defined by assignment, scheduled by directives, run by realize."""

from __future__ import annotations

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir.function import Function
from webhal.ir.printer import to_string
from webhal.ir.schedule import LoopLevel, MemoryType
from webhal.ir.types import Int, Type
from webhal.lang.expr import Expr, ExprLike, binary, to_node
from webhal.lang.names import check_name, unique_name
from webhal.lang.random import lower_random
from webhal.lang.stage import Stage, loop_name
from webhal.lang.tuple import elements, is_tuple_value
from webhal.lang.var import Var

PLACEHOLDER_NAME = "_"  # hl._, Halide's stand-in for the implicit Vars _0, _1, ...


def _is_placeholder(n: ir.Expr) -> bool:
    return isinstance(n, ir.Variable) and n.name == PLACEHOLDER_NAME and n.param is None \
        and n.rdom is None


def expand_placeholder(nodes: list[ir.Expr], dimensions: int) -> list[ir.Expr]:
    """A call's arguments with hl._ replaced by the implicit Vars _0, _1, ... that make up
    `dimensions` arguments, as Halide expands `f[x, _]` of a 3-D f to f[x, _0, _1]."""
    at = next((i for i, n in enumerate(nodes) if _is_placeholder(n)), -1)
    if at < 0:
        return nodes
    rest = nodes[:at] + nodes[at + 1:]
    fill = [Var.implicit(i).node() for i in range(max(0, dimensions - len(rest)))]
    return rest[:at] + fill + rest[at:]


def implicit_count(values) -> int:
    """How many implicit Vars (_0, _1, ...) the values use: one more than the highest index."""
    from webhal.ir.visitor import free_variables
    top = -1
    for v in values:
        for n in free_variables(v):
            if n.param is None and n.rdom is None and len(n.name) > 1 and n.name[0] == "_" \
                    and n.name[1:].isdigit():
                top = max(top, int(n.name[1:]))
    return top + 1


def expand_definition_args(name: str, args: list[ir.Expr], values) -> list[ir.Expr]:
    """The left side of a definition with hl._ replaced by as many implicit Vars as the right
    side uses (none: the placeholder is dropped), each of them then required on the left."""
    count = implicit_count(values)
    at = next((i for i, n in enumerate(args) if _is_placeholder(n)), -1)
    if at >= 0:
        args = args[:at] + [Var.implicit(i).node() for i in range(count)] + args[at + 1:]
    on_left = {n.name for n in args if isinstance(n, ir.Variable)}
    if any(f"_{i}" not in on_left for i in range(count)):
        used = ", ".join(f"_{i}" for i in range(count))
        raise CompileError(f"the right side of the definition of {name} uses implicit Vars "
                           f"({used}, from hl._ in a call), but the left side does "
                           "not contain the placeholder hl._ (write "
                           f"{name}[x, ..., hl._] = ...)", user_location())
    return args


def call_args(args, what: str, dimensions: int | None = None) -> list[ir.Expr]:
    """Index arguments as int32 IR (Python ints allowed); floats are an error. Given the
    callee's `dimensions`, hl._ becomes the implicit Vars that fill them."""
    if not isinstance(args, tuple):
        args = (args,)
    if len(args) == 1 and isinstance(args[0], list):
        args = tuple(args[0])
    nodes = []
    for i, a in enumerate(args):
        n = to_node(a)
        if not n.type.is_int_or_uint() or n.type.is_bool():
            raise CompileError(f"Implicit cast from {n.type} to int is not allowed: argument "
                               f"{i} of {what} is {to_string(n)} of type {n.type}; coordinates "
                               "must be integers (use hl.cast or hl.i32)", user_location())
        nodes.append(n if n.type == Int(32) else ir.Cast(Int(32), n))
    return nodes if dimensions is None else expand_placeholder(nodes, dimensions)


class FuncRef(ExprLike):
    """`f[x, y]`: a call of f when read, the left side of a definition when assigned."""

    __slots__ = ("_func", "_args")

    def __init__(self, func: Func, args: list[ir.Expr]):
        self._func = func
        self._args = args

    def node(self) -> ir.Expr:
        fn = self._func._function
        if fn.defined and fn.is_tuple:
            raise CompileError(f"Func {fn.name} computes a Tuple of {len(fn.types)} values, "
                               f"so {fn.name}[...] is not one Expr: take an element with "
                               f"{fn.name}[...][i]", user_location())
        return self._call(0)

    def _call(self, value_index: int) -> ir.Expr:
        fn = self._func._function
        if not fn.defined:
            raise CompileError(f"Func {fn.name} is called before it is defined; define it "
                               f"(`{fn.name}[x, ...] = ...`) before using it", user_location())
        if len(self._args) != fn.dimensions:
            raise CompileError(f"Func {fn.name} is defined with {fn.dimensions} arguments "
                               f"({', '.join(fn.pure_args)}) but called with "
                               f"{len(self._args)}", user_location())
        return ir.Call(fn.types[value_index], fn.name, tuple(self._args), ir.CallType.HALIDE,
                       func=fn, value_index=value_index)

    def __getitem__(self, i) -> FuncTupleElementRef:
        """Element i of a Tuple-valued Func's values here (`f[x, y][1]`); IndexError past the
        last, so `a, b = f[x]` unpacks a pair."""
        fn = self._func._function
        count = len(fn.types) if fn.defined else 1
        if not isinstance(i, int) or isinstance(i, bool):
            raise CompileError(f"a Tuple element index must be an int, not {i!r}",
                               user_location())
        if not -count <= i < count:
            raise IndexError(f"Func {fn.name} computes {count} value(s); there is no element "
                             f"{i}")
        return FuncTupleElementRef(self._call(i % count))

    def _update(self, op, value, identity):
        fn = self._func._function
        if any(_is_placeholder(a) for a in self._args):
            parts = elements(value) if is_tuple_value(value) else [value]
            self._args = expand_definition_args(
                fn.name, self._args, [to_node(v) for v in parts if isinstance(v, ExprLike)])
        if not fn.defined:
            # Halide defines the pure definition implicitly as the identity of the operator.
            v = to_node(value)
            ident = to_node(identity, like=v.type)
            # Its Vars are those on the left where a pure Var stands alone, implicit ones elsewhere.
            pure, seen = [], set()
            for i, a in enumerate(self._args):
                alone = isinstance(a, ir.Variable) and a.rdom is None and a.param is None
                if alone and a.name not in seen:
                    seen.add(a.name)
                    pure.append(a)
                else:
                    pure.append(Var.implicit(i).node())
            fn.define_pure(pure, ident, user_location())
            lower_random(fn, 0)
        self._func._define(self._args, op(self, value))
        return _Updated(self._func, self._args)

    def __iadd__(self, value): return self._update(lambda a, b: binary(ir.Add, a, b), value, 0)
    def __isub__(self, value): return self._update(lambda a, b: binary(ir.Sub, a, b), value, 0)
    def __imul__(self, value): return self._update(lambda a, b: binary(ir.Mul, a, b), value, 1)
    def __itruediv__(self, value):
        return self._update(lambda a, b: binary(ir.Div, a, b), value, 1)


class FuncTupleElementRef(Expr):
    """`f[x, y][i]`: element i of a Tuple-valued Func read at a point, an Expr (Halide's name
    for its type)."""

    __slots__ = ()

    def __init__(self, node: ir.Expr):
        self._node = node


class OutputImageParam:
    """The output buffer of a Func, as `Func.output_buffer()` gives it: `dim(i)` reads and
    constrains its min, extent and stride as an ImageParam's do (an interleaved output:
    `dim(0).set_stride(3)`, `dim(2).set_stride(1)`)."""

    def __init__(self, name: str | None = None, type: Type | None = None,  # noqa: A002
                 dimensions: int = 0, function: Function | None = None):
        """Made by Func.output_buffer(); hl.OutputImageParam() alone is undefined, as in
        Halide."""
        self._name, self._type, self._dims = name, type, dimensions
        self._function = function

    def name(self) -> str:
        return self._name

    def type(self) -> Type:
        return self._type

    def dimensions(self) -> int:
        return self._dims

    def defined(self) -> bool:
        return self._name is not None

    def dim(self, i: int):
        from webhal.lang.param import _ImageDim
        if self._name is None:
            raise CompileError("this OutputImageParam is undefined; Func.output_buffer() gives "
                               "a Func's", user_location())
        if self._function is None or self._function.is_tuple:
            raise CompileError(f"the dimensions of output buffer {self._name} of a Tuple are "
                               "not supported by webhal yet", user_location())
        if not -self._dims <= i < self._dims:
            raise CompileError(f"output buffer {self._name} has {self._dims} dimensions; there "
                               f"is no dim({i})", user_location())
        return _ImageDim(self, i % self._dims)

    @property
    def _constraints(self) -> dict:
        return self._function.output_constraints

    def _set_estimate(self, d: int, lo, ext) -> None:
        Func._of(self._function).set_estimate(Var(self._function.pure_args[d]), lo, ext)

    def set_estimates(self, region) -> OutputImageParam:
        """Its Func's set_estimates, as Halide's."""
        Func._of(self._function).set_estimates(region)
        return self

    def __repr__(self):
        if self._name is None:
            return "<halide.OutputImageParam OutputImageParam()>"
        return f"<halide.OutputImageParam '{self._name}', dims: {self._dims}, type: " \
               f"{self._type}>"


class _Updated(FuncRef):
    """What `f[...] += e` hands back: the same reference, its update already made. Python then
    runs `f[...] = ` with it, which does nothing more; a name bound to the reference
    (`left = f[x]; left += 1; left += 2`) keeps updating f."""

    __slots__ = ()


class Func(Stage):
    """A pipeline stage: `f = hl.Func("f"); f[x, y] = x + y`. Also `hl.Func(type, dims, name)`
    declares the type and dimensions up front."""

    def __init__(self, *args):
        name, declared, dims = None, None, None
        if args and (isinstance(args[0], Type) or isinstance(args[0], (list, tuple)) and
                     args[0] and all(isinstance(t, Type) for t in args[0])):
            types, dims, *rest = args
            declared = (types,) if isinstance(types, Type) else tuple(types)
            name = rest[0] if rest else None
        elif args and isinstance(args[0], str):
            name = args[0]
        elif args and isinstance(args[0], ExprLike | int | float):
            name = None
        name = check_name(name, "Func") if name else unique_name("f")
        self._function = Function(name, declared_types=declared, declared_dims=dims)
        super().__init__(self._function, 0)
        if args and isinstance(args[0], ExprLike | int | float):  # Func(expr): zero-dimensional
            self._define([], args[0])

    # -- definitions ---------------------------------------------------------------------------

    def __getitem__(self, args) -> FuncRef:
        # hl._ is expanded for a Func with dimensions; before its definition it stays, for
        # the definition to expand from its right side.
        fn = self._function
        dims = fn.dimensions if fn.defined else fn.declared_dims
        return FuncRef(self, call_args(args, f"Func {self.name()}", dims))

    def __setitem__(self, args, value) -> None:
        args = call_args(args, f"Func {self.name()}")
        if isinstance(value, _Updated) and value._func is self:
            if value._args == args or any(_is_placeholder(a) for a in args):
                return  # the second half of `f[...] += e`
        self._define(args, value)

    def __call__(self, *args) -> FuncRef:
        return self[args]

    def _define(self, args: list[ir.Expr], value) -> None:
        fn = self._function
        where = user_location()
        parts = elements(value) if is_tuple_value(value) else [value]
        if any(_is_placeholder(a) for a in args) or implicit_count(
                [to_node(v) for v in parts if isinstance(v, ExprLike)]):
            args = expand_definition_args(
                fn.name, args, [to_node(v) for v in parts if isinstance(v, ExprLike)])
        if not fn.defined:
            fn.define_pure(args, [to_node(v) for v in parts], where)
        else:
            likes = fn.types if len(parts) == len(fn.types) else [fn.type] * len(parts)
            fn.define_update(args, [to_node(v) if isinstance(v, ExprLike) else
                                    to_node(v, like=t) for v, t in zip(parts, likes)], where)
        lower_random(fn, len(fn.definitions) - 1)

    # -- queries -------------------------------------------------------------------------------

    def name(self) -> str:
        return self._function.name

    def defined(self) -> bool:
        return self._function.defined

    def _require_defined(self, what: str) -> Function:
        if not self._function.defined:
            raise CompileError(f"Func {self.name()} is not defined yet (it is undefined): "
                               f"{what} needs a definition; define it first "
                               f"({self.name()}[x, ...] = ...)", user_location())
        return self._function

    def type(self) -> Type:
        """The type of its values: the definition's, or the one declared by
        hl.Func(type, dimensions, name) before any definition."""
        fn = self._function
        types = fn.declared_types if not fn.defined and fn.declared_types else \
            self._require_defined("its type").types
        if len(types) > 1:
            raise CompileError(f"Func {fn.name} has no one type because it returns a Tuple of "
                               f"{len(types)} values; use types() for their types",
                               user_location())
        return types[0]

    def types(self) -> list[Type]:
        """The type of each value it computes (one, or one per element of a Tuple)."""
        if not self._function.defined and self._function.declared_types is not None:
            return list(self._function.declared_types)
        return list(self._require_defined("its types").types)

    def outputs(self) -> int:
        """How many values it computes at each point: 1, or the size of its Tuple."""
        if not self._function.defined and self._function.declared_types is not None:
            return len(self._function.declared_types)
        return len(self._require_defined("outputs()").types)

    def dimensions(self) -> int:
        """Its number of dimensions, defined or declared."""
        if not self._function.defined and self._function.declared_dims is not None:
            return self._function.declared_dims
        return self._require_defined("its dimensions").dimensions

    def output_buffer(self) -> OutputImageParam:
        """The buffer this Func writes when it is a pipeline's output: its name, type and
        dimensions (Halide's OutputImageParam)."""
        fn = self._require_defined("output_buffer()")
        if fn.is_tuple:
            raise CompileError(f"Func {fn.name} computes a Tuple and writes one buffer per "
                               "element: use output_buffers()", user_location())
        return OutputImageParam(fn.name, fn.type, fn.dimensions, fn)

    def output_buffers(self) -> list[OutputImageParam]:
        """The buffers it writes as a pipeline's output: one, or one per Tuple element
        (`f.0`, `f.1`, ...)."""
        fn = self._require_defined("output_buffers()")
        return [OutputImageParam(fn.element_name(i), t, fn.dimensions)
                for i, t in enumerate(fn.types)]

    def args(self) -> list[Var]:
        return [Var(n) for n in self._require_defined("args()").pure_args]

    def value(self):
        """The right side of its pure definition (see values() for a Tuple's)."""
        fn = self._require_defined("value()")
        if fn.is_tuple:
            raise CompileError(f"Func {fn.name} computes a Tuple: use values()",
                               user_location())
        return Expr(fn.definitions[0].value)

    def values(self) -> tuple:
        """The values of its pure definition, one per Tuple element."""
        return tuple(Expr(v) for v in self._require_defined("values()").definitions[0].values)

    def has_update_definition(self) -> bool:
        return len(self._function.definitions) > 1

    def num_update_definitions(self) -> int:
        return max(0, len(self._function.definitions) - 1)

    def function(self) -> Function:
        return self._function

    def update(self, i: int = 0) -> Stage:
        """The i-th update stage, for scheduling it."""
        n = self.num_update_definitions()
        if not 0 <= i < n:
            raise CompileError(f"Func {self.name()} has {n} update definitions; there is no "
                               f"update({i})", user_location())
        return Stage(self._function, i + 1)

    def __repr__(self):
        return f"<halide.Func '{self.name()}'>"

    __hash__ = object.__hash__

    # -- where it is computed and stored -------------------------------------------------------

    def _set_levels(self, compute: LoopLevel | None, store: LoopLevel | None):
        self._require_defined("a schedule")
        s = self._function.schedule
        if compute is not None:
            s.compute_level = compute
        if store is not None:
            s.store_level = store
        s.where = user_location()
        return self

    def compute_root(self):
        """Compute all of this Func before its consumers run, at the top of the pipeline."""
        return self._set_levels(LoopLevel.root(), LoopLevel.root())

    def compute_inline(self):
        """Inline this Func into every use (the default)."""
        if self.has_update_definition():
            raise CompileError(f"Func {self.name()} has update definitions and cannot be "
                               "inlined; use compute_root or compute_at", user_location())
        return self._set_levels(LoopLevel.inlined(), LoopLevel.inlined())

    def compute_at(self, f, var=None):
        """Compute this Func inside loop `var` of Func (or Stage) `f`, as much as one
        iteration of that loop needs. `compute_at(LoopLevel)` works too."""
        level = _level(f, var)
        s = self._function.schedule
        store = level if s.store_level.is_inlined() else None
        return self._set_levels(level, store)

    def store_at(self, f, var=None):
        """Allocate this Func's storage at loop `var` of `f` (outside where it is computed)."""
        return self._set_levels(None, _level(f, var))

    def hoist_storage(self, f, var=None):
        """Halide's hoisting of this Func's allocation out to loop `var` of `f` (or
        Var.outermost()); webhal stores it there as store_at does (the same values)."""
        return self.store_at(f, var)

    def hoist_storage_root(self):
        return self.store_root()

    def fold_storage(self, var, extent, fold_forward: bool = True):
        """Accepted as in Halide; webhal folds storage itself where a sliding window allows
        (passes/sliding_window.py) and otherwise keeps the whole region (the same values)."""
        fn = self._require_defined("fold_storage")
        if loop_name(var) not in fn.pure_args:
            raise CompileError(f"fold_storage: Func {self.name()} has no pure Var "
                               f"{loop_name(var)}; its Vars are {', '.join(fn.pure_args)}",
                               user_location())
        return self

    def ring_buffer(self, extent):
        """Accepted as in Halide: with async_() producers that run ahead; webhal computes in
        order (as if not async), so one buffer suffices and the values are the same."""
        self._require_defined("ring_buffer")
        return self

    def store_root(self):
        return self._set_levels(None, LoopLevel.root())

    def store_in(self, memory_type: MemoryType):
        if not isinstance(memory_type, MemoryType):
            raise CompileError(f"store_in needs an hl.MemoryType, not {memory_type!r}",
                               user_location())
        self._function.schedule.memory_type = memory_type
        return self

    def bound(self, var, min, extent):  # noqa: A002
        """Promise that this Func is only needed for var in [min, min + extent)."""
        name = loop_name(var)
        fn = self._require_defined("bound")
        if name not in fn.pure_args:
            raise CompileError(f"bound: Func {self.name()} has no pure Var {name}; its Vars are "
                               f"{', '.join(fn.pure_args)}", user_location())
        fn.schedule.bounds[name] = (to_node(min), to_node(extent))
        return self

    def set_estimate(self, var, min, extent):  # noqa: A002
        """The usual range [min, min + extent) of pure Var `var`, for autoschedulers (Halide's);
        it changes no compiled code. Kept in `function().schedule.estimates` as (var name, min,
        extent) and, for this Func's output buffer, in `function().output_estimates`."""
        from webhal.lang.param import estimate_node
        name = loop_name(var)
        fn = self._require_defined("set_estimate")
        if name not in fn.pure_args:
            raise CompileError(f"Can't provide an estimate on variable {name} of function "
                               f"{self.name()} because {name} is not one of its pure variables "
                               f"({', '.join(fn.pure_args)})", user_location())
        what = f"Func {self.name()}.set_estimate({name})"
        entry = (name, estimate_node(min, what), estimate_node(extent, what))
        ests = fn.schedule.estimates
        at = next((i for i, e in enumerate(ests) if e[0] == name), len(ests))
        ests[at:at + 1] = [entry]
        d = fn.pure_args.index(name)
        old = fn.output_estimates.get(d, (None, None))
        fn.output_estimates[d] = (entry[1] if entry[1] is not None else old[0],
                                  entry[2] if entry[2] is not None else old[1])
        return self

    def set_estimates(self, region):
        """set_estimate for each pure Var in order: `f.set_estimates([(0, 1536), (0, 2560)])`
        (pairs or hl.Range)."""
        from webhal.lang.param import region_pairs
        fn = self._require_defined("set_estimates")
        for name, (lo, ext) in zip(fn.pure_args, region_pairs(region, fn.dimensions,
                                                             f"Func {self.name()}")):
            self.set_estimate(Var(name), lo, ext)
        return self

    def reorder_storage(self, *vars):
        fn = self._require_defined("reorder_storage")
        names = [loop_name(v) for v in vars]
        if sorted(names) != sorted(fn.pure_args):
            raise CompileError(f"reorder_storage of Func {self.name()} must name each of its "
                               f"Vars ({', '.join(fn.pure_args)}) once", user_location())
        fn.schedule.storage_order = names
        return self

    # -- wrappers, clones and other directives ---------------------------------------------------

    def in_(self, consumer=None) -> Func:
        """A wrapper of this Func: a Func that only reads it, `f_in_g(x, ...) = f(x, ...)`,
        read by `consumer` (a Func, or a list of them) instead of this Func, or by every
        consumer when none is given (`f_global_wrapper`). Schedule the wrapper on its own, e.g.
        to copy a tile of f into a small buffer. Asking twice gives the same wrapper."""
        from webhal.lang.wrappers import redirect_definitions
        fn = self._require_defined("in_")
        consumers = None if consumer is None else \
            list(consumer) if isinstance(consumer, (list, tuple)) else [consumer]
        if consumers is not None and any(c.function() is fn for c in consumers):
            raise CompileError(f"Func {self.name()} cannot be wrapped in itself",
                               user_location())
        keys = [None] if consumers is None else [id(c.function()) for c in consumers]
        made = {id(w): w for k in keys if (w := fn.schedule.wrappers.get(k)) is not None}
        if made:
            w = next(iter(made.values()))
            sharing = {k for k, v in fn.schedule.wrappers.items() if v is w}
            if len(made) == 1 and sharing == set(keys):
                return Func._of(w)
            raise CompileError(f"in_: these consumers of Func {self.name()} would not read "
                               "one wrapper: a wrapper of it is already shared by another set "
                               "of consumers; ask for it with that same list (f.in_([g, h]))",
                               user_location())
        name = f"{fn.name}_global_wrapper" if consumers is None else \
            f"{fn.name}_in_{consumers[0].name()}" if len(consumers) == 1 else \
            f"{fn.name}_wrapper"
        wrapper = Func(name)
        vars_ = [Var(a) for a in fn.pure_args]
        wrapper[vars_] = self[vars_]
        for k in keys:
            fn.schedule.wrappers[k] = wrapper.function()
        for c in consumers or ():  # one wrapper, read by each of them (Halide's in_(list))
            redirect_definitions(c.function(), fn, wrapper.function())
        return wrapper

    def clone_in(self, consumer) -> Func:
        """A copy of this Func (definitions and schedule as they are now) that `consumer` (a
        Func or a list of them) reads instead of this one, scheduled on its own from then on."""
        from webhal.lang.wrappers import clone_definitions, redirect_definitions
        fn = self._require_defined("clone_in")
        consumers = list(consumer) if isinstance(consumer, (list, tuple)) else [consumer]
        clone = Func(f"{fn.name}_clone_in_{consumers[0].name()}")
        clone_definitions(fn, clone.function())
        for c in consumers:
            redirect_definitions(c.function(), fn, clone.function())
        return clone

    @staticmethod
    def _of(function: Function) -> Func:
        f = Func.__new__(Func)
        f._function = function
        Stage.__init__(f, function, 0)
        return f

    def memoize(self, eviction_key=None) -> Func:
        """Accepted as in Halide; webhal keeps no cache between runs, so a memoized Func is
        computed every time (the results are the same)."""
        self._require_defined("memoize").schedule.memoized = True
        return self

    def async_(self) -> Func:
        """Accepted as in Halide; webhal computes the Func in order, as if it were not async
        (the results are the same)."""
        self._require_defined("async_").schedule.is_async = True
        return self

    # -- tracing -------------------------------------------------------------------------------

    def _trace(self, what: str):
        self._require_defined(f"trace_{what}").schedule.trace.add(what)
        return self

    def trace_stores(self):
        """Print `Store f.0(x, y) = value` for every value computed (Halide's format)."""
        return self._trace("stores")

    def trace_loads(self):
        """Print `Load f.0(x, y) = value` wherever another Func reads this one."""
        return self._trace("loads")

    def trace_realizations(self):
        """Print where this Func's storage begins and ends and where it is produced and
        consumed, with its region as (min, extent) per dimension."""
        return self._trace("realizations")

    # -- running -------------------------------------------------------------------------------

    def realize(self, sizes=None, target=None):
        """Compute this Func over [0, size) in each dimension (or into a given Buffer) and
        return the result as an hl.Buffer."""
        return _pipeline(self).realize(sizes, target)

    def infer_input_bounds(self, sizes, target=None):
        """Bind a Buffer just large enough for realizing over `sizes` (or into output Buffers,
        which may be bounds queries) to each unbound ImageParam (Halide's bounds query; see
        Pipeline.infer_input_bounds)."""
        _pipeline(self).infer_input_bounds(sizes, target)

    def compile_jit(self, target=None):
        _pipeline(self).compile_jit(target)

    def compile_to_static_library(self, filename_prefix, arguments, fn_name=None, target=None):
        _pipeline(self).compile_to_static_library(filename_prefix, arguments, fn_name, target)

    def compile_to_object(self, filename, arguments, fn_name, target=None):
        _pipeline(self).compile_to_object(filename, arguments, fn_name, target)

    def compile_to_header(self, filename, arguments, fn_name, target=None):
        _pipeline(self).compile_to_header(filename, arguments, fn_name, target)

    def compile_to_assembly(self, filename, arguments, fn_name, target=None):
        _pipeline(self).compile_to_assembly(filename, arguments, fn_name, target)

    def compile_to_llvm_assembly(self, filename, arguments, fn_name, target=None):
        _pipeline(self).compile_to_llvm_assembly(filename, arguments, fn_name, target)

    def compile_to_lowered_stmt(self, filename, arguments, fmt=None, target=None,
                                fn_name="pipeline"):
        _pipeline(self).compile_to_lowered_stmt(filename, arguments, fmt, target, fn_name)

    def compile_to(self, outputs, arguments, fn_name, target=None):
        _pipeline(self).compile_to(outputs, arguments, fn_name, target)

    def compile_to_file(self, filename_prefix, arguments, fn_name=None, target=None):
        _pipeline(self).compile_to_file(filename_prefix, arguments, fn_name, target)

    def compile_to_bitcode(self, filename, arguments, fn_name=None, target=None):
        _pipeline(self).compile_to_bitcode(filename, arguments, fn_name, target)

    def compile_to_callable(self, arguments, target=None):
        return _pipeline(self).compile_to_callable(arguments, target)

    def compile_to_c(self, filename, arguments, fn_name=None, target=None):
        """Halide's C backend, which webhal does not have: an error saying what to use."""
        _pipeline(self).compile_to_c(filename, arguments, fn_name, target)

    def print_loop_nest(self) -> None:
        _pipeline(self).print_loop_nest()


def lambda_func(*args) -> Func:
    """A Func defined on the spot: `hl.lambda_func(x, y, x + y)` is f with f[x, y] = x + y (the
    Vars first, then the value; Halide's `lambda`)."""
    if not args:
        raise CompileError("lambda_func needs the value (and the Vars before it)",
                           user_location())
    f = Func(unique_name("lambda"))
    f[tuple(args[:-1])] = args[-1]
    return f


def funcs(names: str) -> tuple[Func, ...]:
    """One Func per name in a string of names separated by spaces: `f, g = hl.funcs("f g")`."""
    return tuple(Func(n) for n in names.split())


def _pipeline(f: Func):
    """hl.Pipeline(f): lang.pipeline imports this module, so it is found when first called."""
    from webhal.lang.pipeline import Pipeline
    return Pipeline(f)


def _level(f, var) -> LoopLevel:
    if isinstance(f, LoopLevel):
        return f
    if var is None:
        raise CompileError("compute_at/store_at need (Func, Var) or a LoopLevel", user_location())
    if isinstance(f, Func):
        return LoopLevel(f, loop_name(var), -1)
    if isinstance(f, Stage):
        return LoopLevel(f, loop_name(var), f._index)
    raise CompileError(f"compute_at/store_at need a Func, not {f!r}", user_location())
