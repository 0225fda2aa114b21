"""The state behind a Func: its definitions, checked when given, and its schedule."""

from __future__ import annotations

from dataclasses import dataclass, field

from webhal.errors import CompileError, SourceLocation
from webhal.ir import nodes as ir
from webhal.ir.printer import to_string
from webhal.ir.schedule import Dim, FuncSchedule, StageSchedule
from webhal.ir.types import Type
from webhal.ir.visitor import calls, free_variables, walk


@dataclass(eq=False)
class ReductionDomain:
    """The shared state of an RDom: its name, (min, extent) per dimension, predicates.
    `names` gives each dimension's RVar its own name (rfactor's intermediate keeps the names
    of the RVars a split made); by default they are name$x, name$y, ..."""

    name: str
    mins: list[ir.Expr]
    extents: list[ir.Expr]
    predicates: list[ir.Expr] = field(default_factory=list)
    names: list[str] | None = None

    def var_name(self, i: int) -> str:
        if self.names is not None:
            return self.names[i]
        return f"{self.name}${_AXES[i] if i < len(_AXES) else i}"


_AXES = "xyzw"


@dataclass(eq=False)
class Specialization:
    """Stage.specialize(condition): where `condition` holds, the stage runs with `schedule`."""

    condition: ir.Expr
    schedule: StageSchedule


@dataclass(eq=False)
class Definition:
    """One definition: `args` on the left, `values` on the right (one per element of a Tuple;
    most Funcs have one, `value`). Stage 0 is the pure one. `specializations` are tried in
    order before `schedule`; with `specialize_fail` set, the pipeline fails with that message
    instead of running `schedule`."""

    args: tuple[ir.Expr, ...]
    values: tuple[ir.Expr, ...]
    schedule: StageSchedule
    rdom: ReductionDomain | None = None
    where: SourceLocation | None = None
    specializations: list[Specialization] = field(default_factory=list)
    specialize_fail: str | None = None

    @property
    def value(self) -> ir.Expr:
        """The value of a single-valued definition (the first element of a Tuple's)."""
        return self.values[0]

    def nodes(self) -> tuple[ir.Expr, ...]:
        """Every expression of the definition: arguments, values, RDom predicates."""
        return (*self.args, *self.values, *(self.rdom.predicates if self.rdom else ()))


@dataclass(eq=False)
class Function:
    name: str
    pure_args: list[str] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    schedule: FuncSchedule = field(default_factory=FuncSchedule)
    declared_types: tuple[Type, ...] | None = None  # hl.Func(type or types, dims, name)
    declared_dims: int | None = None
    # output_buffer().dim(d).set_min/set_extent/set_stride: (field, d) -> its value
    output_constraints: dict = field(default_factory=dict)
    # Estimates of its output buffer, dimension d -> (min, extent) (either may be None): what
    # Func.set_estimate and output_buffer().dim(d).set_estimate give, as Halide copies them into
    # the output Parameter for a generator's metadata. Read by autoschedulers only.
    output_estimates: dict = field(default_factory=dict)

    @property
    def defined(self) -> bool:
        return bool(self.definitions)

    def __getstate__(self) -> dict:
        # Caches (callees, the Funcs standing for a Tuple's elements) are made again on use.
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    @property
    def type(self) -> Type:
        """The type of its value (of the first element, for a Tuple)."""
        return self.definitions[0].value.type

    @property
    def types(self) -> tuple[Type, ...]:
        """The type of each element of its values: one for most Funcs, more for a Tuple."""
        return tuple(v.type for v in self.definitions[0].values)

    @property
    def is_tuple(self) -> bool:
        return len(self.definitions[0].values) > 1

    def element_name(self, i: int) -> str:
        """The buffer that holds element i of its values: its own name unless it computes a
        Tuple, whose elements live in `name.0`, `name.1`, ... (Halide's names)."""
        return f"{self.name}.{i}" if self.is_tuple else self.name

    @property
    def dimensions(self) -> int:
        return len(self.pure_args)

    @property
    def updates(self) -> list[Definition]:
        return self.definitions[1:]

    def callees(self) -> list:
        """Functions, buffers and ImageParams this Function's definitions call, in first-use
        order (no duplicates)."""
        key = tuple(id(d) for d in self.definitions)  # definitions are only ever added
        cached = self.__dict__.get("_callees")
        if cached is not None and cached[0] == key:
            return list(cached[1])
        seen: dict[int, object] = {}
        for d in self.definitions:
            for node in d.nodes():
                for c in calls(node):
                    if c.call_type in (ir.CallType.HALIDE, ir.CallType.IMAGE) and \
                            c.func is not self:
                        seen.setdefault(id(c.func), c.func)
        self.__dict__["_callees"] = (key, list(seen.values()))
        return list(seen.values())

    # -- definitions ---------------------------------------------------------------------------

    def define_pure(self, args: list[ir.Expr], values, where) -> None:
        """The pure definition: `values` is one Expr, or a list of them for a Tuple."""
        values = _as_values(values)
        names = []
        for i, a in enumerate(args):
            if not isinstance(a, ir.Variable) or a.rdom is not None or a.param is not None:
                raise CompileError(
                    f"in the pure definition of Func {self.name}, argument {i} is "
                    f"{to_string(a)}, which is not a Var; the first definition of a Func must "
                    f"use only distinct Vars on the left (an update may use other Exprs)", where)
            if a.name in names:
                raise CompileError(f"in the pure definition of Func {self.name}, Var {a.name} "
                                   "appears twice on the left", where)
            names.append(a.name)
        if self.declared_dims is not None and len(names) != self.declared_dims:
            raise CompileError(f"Func {self.name} is constrained to have exactly "
                               f"{self.declared_dims} dimensions, but is defined with "
                               f"{len(names)} dimensions", where)
        given = tuple(v.type for v in values)
        if self.declared_types is not None and given != self.declared_types:
            def listed(types):
                return str(types[0]) if len(types) == 1 else \
                    f"({', '.join(str(t) for t in types)})"
            raise CompileError(f"Func {self.name} is constrained to only hold values of type "
                               f"{listed(self.declared_types)} but is defined with values of "
                               f"type {listed(given)}", where)
        for value in values:
            _check_value(self, value, where, "pure definition")
        for v in (v for value in values for v in free_variables(value)):
            if v.rdom is not None:
                raise CompileError(
                    f"the pure definition of Func {self.name} uses RVar {v.name}; RVars belong "
                    f"in update definitions (f[x] += ...) or inline reductions (hl.sum)", where)
            if v.param is None and v.name not in names:
                raise CompileError(
                    f"the pure definition of Func {self.name} uses Var {v.name}, which is not "
                    f"one of its arguments ({', '.join(names) or 'none'})", where)
        self.pure_args = names
        dims = [Dim(n) for n in names]
        self.definitions = [Definition(tuple(args), values, StageSchedule(dims), None, where)]

    def define_update(self, args: list[ir.Expr], values, where) -> None:
        """An update definition: `values` is one Expr, or a list of them for a Tuple."""
        values = _as_values(values)
        stage = len(self.definitions)
        what = f"update definition {stage - 1} of Func {self.name}"
        if len(args) != self.dimensions:
            raise CompileError(f"{what} has {len(args)} arguments on the left, but the Func has "
                               f"{self.dimensions} ({', '.join(self.pure_args)})", where)
        if len(values) != len(self.types):
            raise CompileError(f"{what} has {len(values)} values, but the pure definition has "
                               f"{len(self.types)}; an update of a Tuple-valued Func gives every "
                               "element", where)
        for i, (value, t) in enumerate(zip(values, self.types)):
            if value.type != t:
                which = f"element {i} of " if len(values) > 1 else ""
                raise CompileError(f"{which}{what} has type {value.type}, but the pure "
                                   f"definition has type {t}; cast the value with "
                                   f"hl.cast({t}, ...)", where)
            _check_value(self, value, where, what)
        pure_at = {}
        for i, a in enumerate(args):
            if not a.type.is_int_or_uint() or a.type.is_bool():
                raise CompileError(f"argument {i} on the left of {what} has type {a.type}; "
                                   "Func arguments must be integers", where)
            if isinstance(a, ir.Variable) and a.rdom is None and a.param is None and \
                    a.name == self.pure_args[i]:
                pure_at[a.name] = i
        # As in Halide, a pure Var may appear inside other arguments (a histogram's bin computed
        # from the pixel at x, y) provided it also stands alone in its own position.
        for i, a in enumerate(args):
            for v in free_variables(a):
                if v.rdom is None and v.param is None and v.name not in pure_at:
                    raise CompileError(
                        f"argument {i} on the left of {what} is {to_string(a)}; a Var there "
                        f"must be the pure Var of that position ({self.pure_args[i]}) alone, "
                        "or a pure Var that also stands alone in its own position", where)
        rdoms = {}
        for node in (*args, *values):
            for v in free_variables(node):
                if v.rdom is not None:
                    rdoms[id(v.rdom)] = v.rdom
                elif v.param is None and v.name not in pure_at:
                    raise CompileError(
                        f"{what} uses Var {v.name} on the right, but not as a pure argument on "
                        "the left; each Var on the right must also appear on the left", where)
        if len(rdoms) > 1:
            names = ", ".join(r.name for r in rdoms.values())
            raise CompileError(f"{what} uses RVars of several RDoms ({names}); use one RDom "
                               "with several dimensions", where)
        rdom = next(iter(rdoms.values()), None)
        # Pure Vars on the right must sit in their own position in calls to this Func, so that
        # different values of a pure Var never touch the same point (they can run in parallel);
        # as on the left, they may appear in other arguments too.
        for c in (c for value in values for c in calls(value, ir.CallType.HALIDE)):
            if c.func is not self:
                continue
            for a in c.args:
                for v in free_variables(a):
                    own = c.args[pure_at[v.name]] if v.name in pure_at else None
                    in_place = isinstance(own, ir.Variable) and own.name == v.name
                    if v.name in pure_at and not in_place:
                        raise CompileError(
                            f"{what} reads {self.name} at {to_string(c)}: the pure Var {v.name} "
                            f"must also stand alone in its own position, as argument "
                            f"{pure_at[v.name]}", where)
        dims = []
        if rdom is not None:
            dims = [Dim(rdom.var_name(i), is_rvar=True) for i in range(len(rdom.mins))]
        dims += [Dim(n) for n in self.pure_args if n in pure_at]
        self.definitions.append(Definition(tuple(args), values, StageSchedule(dims), rdom, where))


def _as_values(values) -> tuple[ir.Expr, ...]:
    return tuple(values) if isinstance(values, (list, tuple)) else (values,)


def _check_value(func: Function, value: ir.Expr, where, what: str) -> None:
    if value.type.is_handle():
        raise CompileError(f"the {what} of Func {func.name} has a handle type", where)
    for n in walk(value):
        if isinstance(n, ir.Call) and n.call_type is ir.CallType.HALIDE and n.func is func \
                and not func.defined:
            raise CompileError(f"Func {func.name} is used in its own pure definition before it "
                               "is defined", where)
