"""Scheduling directives on one stage (a Func's pure definition or one of its updates)."""

from __future__ import annotations

import copy

from webhal.errors import user_location
from webhal.ir.schedule import (
    DeviceAPI,
    Dim,
    ForType,
    Fuse,
    Partition,
    Split,
    StageSchedule,
    TailStrategy,
    schedule_error,
)
from webhal.lang.expr import to_node
from webhal.lang.var import RDom


def loop_name(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, RDom):  # an RDom stands for its first dimension, as in Halide
        return v.x.name()
    if hasattr(v, "name") and callable(v.name):
        return v.name()
    raise schedule_error(f"expected a Var or RVar, not {v!r}", user_location())


class Stage:
    """One definition of a Func, for scheduling: `f.update(0).vectorize(x, 8)`."""

    def __init__(self, function, index: int):
        self._function = function
        self._index = index

    # -- helpers -------------------------------------------------------------------------------

    def _sched(self) -> StageSchedule:
        return self._function.definitions[self._index].schedule

    # -- specializations -----------------------------------------------------------------------

    def specialize(self, condition) -> Stage:
        """A copy of this stage's schedule that runs where `condition` (of Params) holds; the
        Stage returned schedules that copy (`f.specialize(w > 8).vectorize(x, 8)`), this one
        keeps scheduling the stage otherwise. Conditions are tried in the order given."""
        from webhal.ir.function import Specialization
        cond = to_node(condition)
        if not cond.type.is_bool():
            raise schedule_error(f"specialize needs a bool condition, not {cond.type}",
                                 user_location())
        d = self._function.definitions[self._index]
        if d.specialize_fail is not None:
            raise schedule_error(f"Func {self._stage_name()} already has specialize_fail(); "
                                 "it must be the last specialization", user_location())
        for s in d.specializations:
            if s.condition == cond:
                return _SpecializedStage(self._function, self._index, s.schedule)
        sched = copy.deepcopy(self._sched())
        d.specializations.append(Specialization(cond, sched))
        return _SpecializedStage(self._function, self._index, sched)

    def specialize_fail(self, message: str) -> None:
        """Where no earlier specialize() condition holds, the pipeline fails with HalideError
        "A schedule specialized with specialize_fail() was chosen: message"."""
        d = self._function.definitions[self._index]
        if d.specialize_fail is not None:
            raise schedule_error(f"Func {self._stage_name()} already has specialize_fail()",
                                 user_location())
        d.specialize_fail = str(message)

    def _stage_name(self) -> str:
        f = self._function
        return f.name if self._index == 0 else f"{f.name}.update({self._index - 1})"

    def _dim(self, v) -> Dim:
        name = loop_name(v)
        sched = self._sched()
        i = sched.dim_index(name)
        if i < 0:
            raise schedule_error(
                f"Func {self._stage_name()} has no loop {name}; its loops are "
                f"{', '.join(reversed(sched.dim_names())) or '(none)'} (outermost first)",
                user_location())
        return sched.dims[i]

    def _check_new(self, name: str, allowed: str | None = None) -> None:
        if name != allowed and self._sched().dim_index(name) >= 0:
            raise schedule_error(f"Func {self._stage_name()} already has a loop {name}; "
                                 "choose a new name", user_location())

    @staticmethod
    def _factor(factor, what: str):
        n = to_node(factor)
        if not n.type.is_int_or_uint() or n.type.is_bool():
            raise schedule_error(f"the factor of {what} must be an integer, not {n.type}",
                                 user_location())
        value = getattr(n, "value", None)
        if value is not None and value <= 0:
            raise schedule_error(f"the factor of {what} must be positive, not {value}",
                                 user_location())
        return n

    # -- directives ----------------------------------------------------------------------------

    def split(self, old, outer, inner, factor, tail: TailStrategy = TailStrategy.Auto):
        """Split loop `old` into `outer` and `inner` (inner has `factor` iterations)."""
        old_n, outer_n, inner_n = loop_name(old), loop_name(outer), loop_name(inner)
        dim = self._dim(old_n)
        if outer_n == inner_n:
            raise schedule_error(f"split of {old_n} in {self._stage_name()} needs two different "
                                 f"names, not {outer_n} twice", user_location())
        self._check_new(outer_n, old_n)
        self._check_new(inner_n, old_n)
        if not isinstance(tail, TailStrategy):
            raise schedule_error(f"tail must be an hl.TailStrategy, not {tail!r}",
                                 user_location())
        factor_n = self._factor(factor, f"split of loop {old_n} of Func {self._stage_name()}")
        sched = self._sched()
        sched.scheduled = True
        i = sched.dims.index(dim)
        sched.dims[i:i + 1] = [Dim(inner_n, dim.for_type, dim.is_rvar, dim.device_api),
                               Dim(outer_n, dim.for_type, dim.is_rvar, dim.device_api)]
        sched.splits.append(Split(old_n, outer_n, inner_n, factor_n, tail, user_location()))
        return self

    def fuse(self, inner, outer, fused):
        """Merge loops `inner` and `outer` into one loop `fused`."""
        inner_n, outer_n, fused_n = loop_name(inner), loop_name(outer), loop_name(fused)
        di, do = self._dim(inner_n), self._dim(outer_n)
        if di is do:
            raise schedule_error(f"cannot fuse {inner_n} with itself", user_location())
        if di.is_rvar != do.is_rvar:
            raise schedule_error(f"cannot fuse the pure loop and the RVar loop {inner_n}, "
                                 f"{outer_n} in {self._stage_name()}", user_location())
        if fused_n not in (inner_n, outer_n):
            self._check_new(fused_n)
        sched = self._sched()
        sched.scheduled = True
        sched.dims.remove(do)
        sched.dims[sched.dims.index(di)] = Dim(fused_n, di.for_type, di.is_rvar, di.device_api)
        sched.splits.append(Fuse(inner_n, outer_n, fused_n))
        return self

    def tile(self, x, y, *rest):
        """tile(x, y, xo, yo, xi, yi, xf, yf[, tail]) or tile(x, y, xi, yi, xf, yf[, tail]), or
        in any number of dimensions with lists: tile([x, y, ...], [xo, ...], [xi, ...],
        [xf, ...][, tail])."""
        if isinstance(x, (list, tuple)):
            return self._tile_lists(x, y, *rest)
        tail = TailStrategy.Auto
        if rest and isinstance(rest[-1], TailStrategy):
            *rest, tail = rest
        if len(rest) == 6:
            xo, yo, xi, yi, xf, yf = rest
        elif len(rest) == 4:
            xi, yi, xf, yf = rest
            xo, yo = x, y
        else:
            raise schedule_error("tile takes (x, y, xo, yo, xi, yi, xfactor, yfactor) or "
                                 "(x, y, xi, yi, xfactor, yfactor)", user_location())
        for v in (x, y):  # both exist? checked before the first split changes the loops
            self._dim(v)
        self.split(x, xo, xi, xf, tail)
        self.split(y, yo, yi, yf, tail)
        return self.reorder(xi, yi, xo, yo)

    def _tile_lists(self, vars, outers, inners=None, factors=None, tail=TailStrategy.Auto):
        lists = (vars, outers, inners, factors)
        if not all(isinstance(a, (list, tuple)) for a in lists) or \
                len({len(a) for a in lists}) != 1:
            raise schedule_error("tile with lists takes (vars, outers, inners, factors[, tail]),"
                                 " four lists of one length", user_location())
        for v in vars:  # all exist? checked before the first split changes the loops
            self._dim(v)
        for v, outer, inner, factor in zip(vars, outers, inners, factors):
            self.split(v, outer, inner, factor, tail)
        return self.reorder(*inners, *outers)

    def reorder(self, *vars):
        """Put the named loops in this order, innermost first, in the slots they occupy."""
        if len(vars) == 1 and isinstance(vars[0], (list, tuple)):
            vars = tuple(vars[0])
        names = [loop_name(v) for v in vars]
        if len(set(names)) != len(names):
            raise schedule_error(f"reorder of {self._stage_name()} names a loop twice: "
                                 f"{', '.join(names)}", user_location())
        dims = [self._dim(n) for n in names]
        sched = self._sched()
        sched.scheduled = True
        slots = sorted(sched.dims.index(d) for d in dims)
        for slot, d in zip(slots, dims):
            sched.dims[slot] = d
        return self

    def _mark(self, v, for_type: ForType, factor=None, tail=TailStrategy.Auto, suffix="_i"):
        name = loop_name(v)
        # Checked before any split, so the message names the user's RVar, not a split loop.
        allowed = (ForType.Parallel, ForType.Vectorized) if self._sched().atomic else ()
        if self._dim(name).is_rvar and for_type not in allowed and \
                for_type in (ForType.Parallel, ForType.Vectorized, ForType.GPUBlock,
                             ForType.GPUThread):
            raise schedule_error(
                f"cannot make loop {name} of {self._stage_name()} {for_type.value}: it is an "
                "RVar, whose iterations depend on each other (make a pure Var loop "
                f"{for_type.value} instead)", user_location())
        if factor is not None:
            inner = f"{name}{suffix}"
            self.split(name, name, inner, factor, tail)
            name = inner if for_type is not ForType.Parallel else name
        dim = self._dim(name)
        dim.for_type = for_type
        self._sched().scheduled = True
        return self

    def unscheduled(self):
        """Say that this stage is left unscheduled on purpose: no warning that it was
        forgotten while other stages of the Func are scheduled."""
        self._sched().unscheduled = True
        return self

    def vectorize(self, v, factor=None, tail: TailStrategy = TailStrategy.Auto):
        """Vectorize loop v (first splitting off `factor` lanes when given)."""
        return self._mark(v, ForType.Vectorized, factor, tail, "_vi")

    def unroll(self, v, factor=None, tail: TailStrategy = TailStrategy.Auto):
        return self._mark(v, ForType.Unrolled, factor, tail, "_ui")

    def parallel(self, v, task_size=None, tail: TailStrategy = TailStrategy.Auto):
        """Run loop v's iterations in parallel (in chunks of task_size when given)."""
        return self._mark(v, ForType.Parallel, task_size, tail, "_pi")

    def serial(self, v):
        return self._mark(v, ForType.Serial)

    def rfactor(self, *preserved):
        """Split this associative reduction (f[...] = f[...] op e, op one of +, *, min, max):
        the RVars given become pure Vars of a new intermediate Func, returned for scheduling
        (in parallel or vectorized over them), and this update reduces the intermediate over
        them. `rfactor([(r.y, y)])` or `rfactor(r.x, u)`, as Halide's."""
        from webhal.lang.rfactor import rfactor
        if self._index == 0:
            raise schedule_error(f"rfactor applies to update definitions; {self._stage_name()} "
                                 "is a pure definition", user_location())
        pairs = list(preserved[0]) if len(preserved) == 1 and \
            isinstance(preserved[0], (list, tuple)) else [tuple(preserved)]
        return rfactor(self._function, self._index,
                       [(loop_name(r), loop_name(v)) for r, v in pairs])

    def atomic(self, override_associativity_test: bool = False):
        """Let this update's RVar loops be parallel or vectorized although iterations may
        update the same point (a histogram): each read-modify-write is atomic. webhal runs
        such RVar loops in order (the same values, not yet faster); see docs/semantics.md."""
        if self._index == 0:
            raise schedule_error(f"atomic() applies to update definitions; {self._stage_name()} "
                                 "is a pure definition", user_location())
        self._sched().atomic = True
        return self

    def partition(self, v, policy: Partition):
        """How loop v is partitioned into a steady state and edges (hl.Partition.Auto, Never,
        Always); results do not change, only where the boundary checks run."""
        if not isinstance(policy, Partition):
            raise schedule_error(f"partition needs an hl.Partition, not {policy!r}",
                                 user_location())
        self._dim(v).partition = policy
        return self

    def _gpu(self, vars, for_type: ForType, device_api=DeviceAPI.Default_GPU):
        vars = list(vars)
        if vars and isinstance(vars[-1], DeviceAPI):  # Halide's positional device_api
            device_api = vars.pop()
        if not isinstance(device_api, DeviceAPI):
            raise schedule_error(f"device_api must be an hl.DeviceAPI, not {device_api!r}",
                                 user_location())
        if not 1 <= len(vars) <= 3:
            raise schedule_error("GPU loops come in 1 to 3 dimensions", user_location())
        for v in vars:
            self._mark(v, for_type)
            self._dim(v).device_api = device_api
        self._sched().where = user_location()
        return self

    def gpu_blocks(self, *vars, device_api=DeviceAPI.Default_GPU):
        """Map loops (innermost first, at most 3) to GPU workgroups; an hl.DeviceAPI may
        follow them."""
        return self._gpu(vars, ForType.GPUBlock, device_api)

    def gpu_threads(self, *vars, device_api=DeviceAPI.Default_GPU):
        """Map loops (innermost first, at most 3) to invocations within a workgroup; an
        hl.DeviceAPI may follow them."""
        return self._gpu(vars, ForType.GPUThread, device_api)

    def gpu_tile(self, *args, tail=TailStrategy.Auto, device_api=DeviceAPI.Default_GPU):
        """Halide's forms, in 1 to 3 dimensions: gpu_tile(x, bx, tx, xs),
        gpu_tile(x, y, bx, by, tx, ty, xs, ys), ..., or without block names (x, tx, xs),
        (x, y, tx, ty, xs, ys), ... (the split keeps x's name for the block loop); then a
        TailStrategy and a DeviceAPI, by position or as tail= and device_api=."""
        args = list(args)
        if args and isinstance(args[-1], DeviceAPI):
            device_api = args.pop()
        if args and isinstance(args[-1], TailStrategy):
            tail = args.pop()
        # Each form has its own length: 3 or 4 arguments per dimension.
        n, named_blocks = {3: (1, False), 4: (1, True), 6: (2, False), 8: (2, True),
                           9: (3, False), 12: (3, True)}.get(len(args), (0, False))
        if not n:
            raise schedule_error("gpu_tile takes (x, bx, tx, size), (x, y, bx, by, tx, ty, "
                                 "xs, ys), the 3-D form, or the same without block names, "
                                 "then optionally a TailStrategy and a DeviceAPI",
                                 user_location())
        vs, sizes = args[:n], args[-n:]
        blocks = args[n:2 * n] if named_blocks else vs
        threads = args[-2 * n:-n]
        for v, b, t, size in zip(vs, blocks, threads, sizes):
            self.split(v, b, t, size, tail)
        self.reorder(*threads, *blocks)
        self.gpu_threads(*threads, device_api=device_api)
        return self.gpu_blocks(*blocks, device_api=device_api)

    def loops(self) -> list[str]:
        """This stage's loops, innermost first."""
        return self._sched().dim_names()

    def name(self) -> str:
        return self._stage_name()


class _SpecializedStage(Stage):
    """The Stage Stage.specialize returns: its directives change the specialization's copy."""

    def __init__(self, function, index: int, schedule: StageSchedule):
        super().__init__(function, index)
        self._specialized = schedule

    def _sched(self) -> StageSchedule:
        return self._specialized
