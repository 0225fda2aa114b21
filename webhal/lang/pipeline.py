"""hl.Pipeline: one or more output Funcs, realized together or compiled together."""

from __future__ import annotations

from collections import OrderedDict

from webhal.errors import ArgumentError, BufferError, CompileError, ScheduleError, user_location
from webhal.ir import nodes as ir
from webhal.ir.function import Function
from webhal.ir.printer import to_string
from webhal.ir.schedule import ForType, LoopLevel
from webhal.ir.visitor import calls
from webhal.lang.buffer import Buffer
from webhal.lang.expr import to_node
from webhal.lang.func import Func
from webhal.lang.graph import consumers, functions_of
from webhal.lang.var import OUTERMOST
from webhal.passes.context import computed_in_place
from webhal.passes.schedule_functions import compute_stages
from webhal.reference import realize_into
from webhal.target import Target, get_jit_target_from_environment, get_target_from_environment

# Output bounds queries realize makes at most, each on the Buffer the one before asked for
# (a schedule that keeps writing further then fails on the last one, naming the output).
_ENLARGE_PASSES = 8


class Pipeline:
    """The outputs of a computation: `hl.Pipeline([f, g])` or `hl.Pipeline(f)`."""

    def __init__(self, outputs=None):
        self._requirements: list[tuple[ir.Expr, list[ir.Expr]]] = []
        if outputs is None:  # Halide's undefined Pipeline
            self._funcs, self._outputs = [], []
            return
        outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        if not outs or not all(isinstance(f, Func) for f in outs):
            raise CompileError("a Pipeline needs one or more Funcs", user_location())
        for f in outs:
            f._require_defined("a Pipeline")
        self._funcs = list(outs)
        self._outputs = [e for f in outs for e in _written(f)]

    def defined(self) -> bool:
        """Whether this Pipeline has outputs (hl.Pipeline() alone is undefined, as in Halide)."""
        return bool(self._funcs)

    def __repr__(self):
        # Halide's words: code written for it compares them
        if not self._funcs:
            return "<halide.Pipeline Pipeline()>"
        return "<halide.Pipeline [" + ",".join(f"'{f.name()}'" for f in self._outputs) + "]>"

    def outputs(self):
        """The Funcs whose buffers the pipeline writes: the outputs given, with a Tuple-valued
        one standing for one Func per element."""
        return list(self._outputs)

    def functions(self) -> list[Function]:
        if not self._funcs:
            raise CompileError("this Pipeline is undefined (hl.Pipeline() without outputs); "
                               "make it with its output Funcs: hl.Pipeline([f, g])",
                               user_location())
        return functions_of([f.function() for f in self._outputs])

    def infer_input_bounds(self, sizes, target=None):
        """Halide's bounds query. `sizes` is a list of sizes (one list per output for several),
        realized from 0, or output Buffers, whose mins and extents give the region; Buffers made
        by Buffer.make_bounds_query are then given the region the pipeline writes of them (its
        constraints applied). Each ImageParam that has no Buffer bound gets a new, zeroed one
        covering the region the pipeline reads of it, with its mins (which may be negative) and
        its dim() constraints applied. Constraints that depend on each other are solved by
        repeated passes, as in Halide (see webhal/lang/bounds_query.py)."""
        from webhal.lang.bounds_query import infer_regions
        from webhal.lower import gather_inputs

        where = user_location()
        target = get_jit_target_from_environment() if target is None else Target(target)
        given = self._given_buffers(sizes)
        if given:
            buffers = [sizes] if isinstance(sizes, Buffer) else list(sizes)
            self._output_buffers(buffers, where)  # checks their number, types and dimensions
            regions = [list(zip(b.mins(), b.shape())) for b in buffers]
        else:
            sizes = list(sizes)
            per_output = sizes if sizes and isinstance(sizes[0], (list, tuple)) else [sizes]
            if len(per_output) != len(self._outputs):
                raise BufferError(f"infer_input_bounds: {len(per_output)} sizes for "
                                  f"{len(self._outputs)} outputs", where)
            regions = [[(0, int(e)) for e in s] for s in per_output]
        outs, ins = infer_regions([f.function() for f in self._outputs], self.functions(),
                                  target, {f.name(): r for f, r in zip(self._outputs, regions)},
                                  where)
        if given:
            for f, b in zip(self._outputs, buffers):
                if b.is_bounds_query():
                    b._set_region(outs[f.name()])
        images, _ = gather_inputs(self.functions())
        for name, region in ins.items():
            image = images[name]
            if any(e < 0 for _, e in region):
                raise BufferError(f"infer_input_bounds: the region of {name} has a negative "
                                  f"extent, {region}, after its constraints", where)
            b = Buffer(image.type(), [e for _, e in region], name=name)
            image.set(b.set_min([m for m, _ in region]))

    def realize(self, sizes=None, target=None):
        """Run the pipeline over [0, size) per dimension, or into given Buffers. Returns a
        Buffer (or a list of them for several outputs)."""
        where = user_location()
        if isinstance(target, int):  # realize(10, 10)
            raise ArgumentError(f"realize takes the sizes as one list, as in realize([{sizes}, "
                                f"{target}]), then optionally a Target; {target!r} is not a "
                                "Target", where)
        target = get_jit_target_from_environment() if target is None else Target(target)
        definitions = self._validated()
        buffers = self._output_buffers(sizes, where)
        self._require_data(buffers)
        if target.is_reference:
            realize_into([f.function() for f in self._outputs], buffers, where,
                         tuple(self._requirements))
        else:
            from webhal.jit import realize_compiled
            given = self._given_buffers(sizes)
            run = buffers if given else self._enlarged(buffers, target, where, definitions)
            realize_compiled(self, run, target, where, definitions)
            buffers = [b if r is b else r.cropped(list(zip(b.mins(), b.shape())))
                       for b, r in zip(buffers, run)]
        if len(self._funcs) == 1 and len(buffers) > 1:  # one Tuple-valued Func
            return tuple(buffers)
        return buffers[0] if len(buffers) == 1 else buffers

    def _require_data(self, outputs: list[Buffer]) -> None:
        """Bounds query Buffers (no data) cannot be realized into or read."""
        from webhal.lower import gather_inputs
        images, _ = gather_inputs(self.functions())
        inputs = [im.get() if hasattr(im, "set") else im for im in images.values()]
        for b in [*outputs, *inputs]:
            if b is not None and b.is_bounds_query():
                b._require_data("realized into" if any(b is o for o in outputs)
                                else "read by a pipeline")

    def _enlarged(self, buffers: list[Buffer], target, where,
                  definitions: tuple | None = None) -> list[Buffer]:
        """As Halide's realize with sizes: an output the schedule writes beyond (smaller than a
        split or vector factor, a RoundUp tail, an update writing further) is computed into a
        larger Buffer, and the result is its crop to the sizes asked for. Buffers the caller
        passes are written as they are (beyond them is an error, as in Halide).
        What a schedule writes depends on the buffer's size, so the query repeats on the
        larger Buffer until it holds what is written (an output 3 wide vectorized by 4 writes
        -1..2 by ShiftInwards, and its update, rounded up over those 4 from -1, to 6)."""
        from webhal.jit import outputs_written
        out = list(buffers)
        for _ in range(_ENLARGE_PASSES):
            grown = False
            for i, (b, written) in enumerate(zip(out, outputs_written(self, out, target, where,
                                                                      definitions))):
                mins, maxes = b.mins(), [m + e - 1 for m, e in zip(b.mins(), b.shape())]
                if written is None or all(hi < lo or (lo >= m and hi <= top)
                                          for (lo, hi), m, top in zip(written, mins, maxes)):
                    continue
                region = [(m, top) if hi < lo else (min(lo, m), max(hi, top))
                          for (lo, hi), m, top in zip(written, mins, maxes)]
                big = Buffer(b.type(), [hi - lo + 1 for lo, hi in region], name=b.name())
                out[i] = big.set_min([lo for lo, _ in region])
                grown = True
            if not grown:
                break
        return out

    @staticmethod
    def _given_buffers(sizes) -> bool:
        """Whether realize got output Buffers rather than sizes."""
        return isinstance(sizes, Buffer) or (isinstance(sizes, (list, tuple)) and bool(sizes)
                                             and all(isinstance(b, Buffer) for b in sizes))

    def _output_buffers(self, sizes, where) -> list[Buffer]:
        if isinstance(sizes, Buffer):
            sizes = [sizes]
        if isinstance(sizes, (list, tuple)) and sizes and all(isinstance(b, Buffer) for b in sizes):
            if len(sizes) != len(self._outputs):
                raise BufferError(f"the pipeline has {len(self._outputs)} outputs but "
                                  f"{len(sizes)} Buffers were given", where)
            for f, b in zip(self._outputs, sizes):
                if b.type() != f.type():
                    raise BufferError(f"Output buffer {f.name()} has type {f.type()} but type of "
                                      f"the buffer passed in is {b.type()} (Buffer {b.name()})",
                                      where)
                if b.dimensions() != f.dimensions():
                    raise BufferError(f"Output buffer {f.name()} has {f.dimensions()} dimensions "
                                      f"but the buffer passed in (Buffer {b.name()}) has "
                                      f"{b.dimensions()}", where)
            return list(sizes)
        sizes = [] if sizes is None else list(sizes) if isinstance(sizes, (list, tuple)) \
            else [sizes]
        out = []
        for f in self._outputs:
            if len(sizes) != f.dimensions():
                raise BufferError(f"Func {f.name()} has {f.dimensions()} dimensions but realize "
                                  f"got {len(sizes)} sizes {sizes}", where)
            out.append(Buffer(f.type(), sizes, name=f.name()))
        return out

    def add_requirement(self, condition, *message) -> None:
        """Check `condition` (of Params and input sizes) before the pipeline runs; where it
        fails, raise HalideError "Requirement Failed: (condition) message", the message's
        Exprs and strings printed as hl.print prints them. Compiled code checks it too."""
        from webhal.lang.printing import _piece
        cond = to_node(condition)
        if not cond.type.is_bool():
            raise CompileError(f"add_requirement needs a bool condition, not {cond.type}",
                               user_location())
        pieces = [_piece(m) for m in message]
        spaced = [p for i, m in enumerate(pieces) for p in ([ir.StringImm(" ")] * (i > 0) + [m])]
        self._requirements.append((cond, spaced))

    # -- compiling -----------------------------------------------------------------------------

    def compile_jit(self, target=None):
        """Compile now for a JIT target (host or wasm in wasmtime); realize reuses it."""
        from webhal.jit import compile_jit
        t = get_jit_target_from_environment() if target is None else Target(target)
        self.validate_schedules()
        compile_jit(self, t)

    def compile_to_static_library(self, filename_prefix, arguments, fn_name=None, target=None):
        """<prefix>.a and <prefix>.h for linking with emcc (wasm targets) or a C compiler."""
        from webhal import aot
        self.validate_schedules()
        aot.compile_to_static_library(self, filename_prefix, arguments, fn_name, target)

    def compile_to_object(self, filename, arguments, fn_name, target=None):
        from webhal import aot
        self.validate_schedules()
        aot.compile_to_object(self, filename, arguments, fn_name, target)

    def compile_to_header(self, filename, arguments, fn_name, target=None):
        from webhal import aot
        aot.compile_to_header(self, filename, arguments, fn_name, target)

    def compile_to_assembly(self, filename, arguments, fn_name, target=None):
        from webhal import aot
        self.validate_schedules()
        aot.compile_to_assembly(self, filename, arguments, fn_name, target)

    def compile_to_llvm_assembly(self, filename, arguments, fn_name, target=None):
        from webhal import aot
        self.validate_schedules()
        aot.compile_to_llvm_assembly(self, filename, arguments, fn_name, target)

    def compile_to_lowered_stmt(self, filename, arguments, fmt=None, target=None,
                                fn_name="pipeline"):
        """The lowered statement, as text or (hl.StmtOutputFormat.HTML) a page."""
        from webhal import aot
        self.validate_schedules()
        aot.compile_to_lowered_stmt(self, filename, arguments, fmt, target, fn_name)

    def compile_to(self, outputs, arguments, fn_name, target=None):
        """{hl.OutputFileType: path} written from one compilation (object, static_library,
        c_header, assembly, llvm_assembly, bitcode, stmt, stmt_html)."""
        from webhal import aot
        self.validate_schedules()
        aot.compile_to(self, outputs, arguments, fn_name, target)

    def compile_to_file(self, filename_prefix, arguments, fn_name=None, target=None):
        """<prefix>.o and <prefix>.h."""
        from webhal import aot
        self.validate_schedules()
        aot.compile_to_file(self, filename_prefix, arguments, fn_name, target)

    def compile_to_bitcode(self, filename, arguments, fn_name=None, target=None):
        from webhal import aot
        self.validate_schedules()
        aot.compile_to_bitcode(self, filename, arguments, fn_name, target)

    def compile_to_c(self, filename, arguments, fn_name=None, target=None):
        """Halide's C backend, which webhal does not have: an error saying what to use."""
        raise CompileError(f"compile_to_c({filename!r}): webhal has no C backend (its CPU code "
                           "generator is LLVM's); compile_to_static_library or compile_to_file "
                           "write a library or object with a C header that C code links with",
                           user_location())

    def compile_to_callable(self, arguments, target=None):
        """An hl.Callable: call it with the arguments' values in order, then the outputs."""
        from webhal.lang.callable import Callable
        t = get_jit_target_from_environment() if target is None else Target(target)
        return Callable(self, arguments, t)

    def invalidate_cache(self) -> None:
        """Compile again on the next realize (webhal's JIT cache is keyed by the definitions
        and schedules, so a changed pipeline is recompiled anyway)."""
        from webhal.jit import invalidate
        invalidate(self)

    def apply_autoscheduler(self, target, autoscheduler_params):
        """Schedule the pipeline with webhal's autoscheduler (Halide's names are aliases of
        it) for `target`, from the estimates of its outputs and inputs; the schedule is
        applied to its Funcs and returned as an hl.AutoSchedulerResults whose
        schedule_source is the same schedule as Python (`apply_schedule(pipeline)`)."""
        from webhal.autoschedule import apply, autoschedule
        from webhal.autoschedule.interface import AutoschedulerParams, AutoSchedulerResults
        from webhal.lower import gather_inputs
        where = user_location()
        if not isinstance(autoscheduler_params, AutoschedulerParams):
            raise ArgumentError("apply_autoscheduler takes a target and an "
                                "hl.AutoschedulerParams(name, {...}), not "
                                f"{autoscheduler_params!r}", where)
        t = Target(target)
        fns = self.functions()
        images, _ = gather_inputs(fns)
        chosen = autoschedule(fns, [f.function() for f in self._outputs], images, t,
                              autoscheduler_params.name, autoscheduler_params.extra, where)
        apply(chosen.plan, {fn.name: Func._of(fn) for fn in fns})
        return AutoSchedulerResults(t, autoscheduler_params, chosen.source, chosen.seconds)

    def get_func(self, key) -> Func:
        """A Func of the pipeline by name (webhal's schedule_source looks its Funcs up so),
        or by index in producer-first order (as Halide's autoschedulers' sources do)."""
        fns = self.functions()
        if isinstance(key, int):
            if not 0 <= key < len(fns):
                raise ArgumentError(f"get_func({key}): the pipeline has {len(fns)} Funcs",
                                    user_location())
            return Func._of(fns[key])
        found = [fn for fn in fns if fn.name == key]
        if len(found) != 1:
            raise ArgumentError(f"get_func({key!r}): the pipeline has {len(found)} Funcs of "
                                f"that name; its Funcs are {', '.join(f.name for f in fns)}",
                                user_location())
        return Func._of(found[0])

    def infer_arguments(self) -> list:
        """The ImageParams and Params the pipeline reads, in the order of their first use:
        the arguments compile_to_* and compile_to_callable need (embedded Buffers are not
        arguments)."""
        from webhal.lang.param import ImageParam
        from webhal.lower import gather_inputs
        images, params = gather_inputs(self.functions())
        return [*(i for i in images.values() if isinstance(i, ImageParam)), *params.values()]

    def compile_to_module(self, arguments, fn_name, target=None):
        """The pipeline lowered for `target` (webhal's ir.module.Module: the entry statement,
        the GPU kernels, the arguments), not yet compiled to machine code."""
        from webhal import aot
        self.validate_schedules()
        t = get_target_from_environment() if target is None else Target(target)
        return aot.lower_for_aot(self, arguments, fn_name, t)

    # -- schedule checks -----------------------------------------------------------------------

    def _validated(self) -> tuple:
        """validate_schedules, skipped where these definitions and schedules passed it before
        (realizing in a loop is common); returns their fingerprint, the JIT cache's key less
        the target. Taken after checking: the check resolves outermost() compute levels."""
        from webhal.jit import definitions_fingerprint
        definitions = definitions_fingerprint(self)
        if definitions in _VALIDATED:
            _VALIDATED.move_to_end(definitions)
            return definitions
        self.validate_schedules()
        definitions = definitions_fingerprint(self)
        _VALIDATED[definitions] = None
        if len(_VALIDATED) > _VALIDATED_SIZE:
            _VALIDATED.popitem(last=False)
        return definitions

    def validate_schedules(self) -> None:
        """Check what only the whole pipeline can tell: compute_at sites exist and are loops of
        consumers, storage sits outside computation, outputs are not inlined."""
        fns = self.functions()
        outputs = {id(f.function()) for f in self._outputs}
        users = consumers(fns)
        by_id = {id(f): f for f in fns}
        for fn in fns:
            _resolve_outermost(fn, outputs)
        for fn in fns:
            s = fn.schedule
            in_block = _computed_in_gpu_block(fn, by_id)
            for d in fn.definitions:  # outputs too: they are the Funcs most often put on a GPU
                _check_gpu_nesting(fn, d, in_block)
            if s.bounds and id(fn) not in outputs and s.compute_level.is_inlined() and \
                    not fn.updates:
                _warn_bound_inlined(fn)
            _warn_unscheduled_updates(fn)
            if id(fn) in outputs:
                if not s.compute_level.is_inlined() and not s.compute_level.is_root():
                    raise ScheduleError(f"Func {fn.name} is an output of the pipeline and is "
                                        f"always computed at root, not at {s.compute_level}",
                                        s.where)
                continue
            for level, what in ((s.compute_level, "computed"), (s.store_level, "stored")):
                if level.kind != "at":
                    continue
                host = level.function()
                if id(host) not in by_id or not _uses(host, fn, users):
                    raise ScheduleError(
                        f"Func {fn.name} is {what} at {level}, but {host.name} does not use "
                        f"{fn.name}; compute it at a loop of one of its consumers "
                        f"({', '.join(c.name for c in users[id(fn)]) or 'none'})", s.where)
                stage = _stage_of(host, level)
                names = stage.schedule.dim_names()
                if level.var_name() not in names and (level.stage_index >= 0 or not any(
                        level.var_name() in d.schedule.dim_names() for d in host.definitions)):
                    raise ScheduleError(
                        f"Func {fn.name} is {what} at {level}, but {host.name} has no loop "
                        f"{level.var_name()}; its loops are {', '.join(reversed(names))} "
                        "(outermost first)", s.where)
            cl, sl = s.compute_level, s.store_level
            if cl.kind == "at" and sl.kind == "at":
                stages = [_stage_of(cl.function(), cl)] if cl.stage_index >= 0 else \
                    cl.function().definitions  # (no stage named: any that has both loops)
                both = [d.schedule.dim_names() for d in stages
                        if {sl.var_name(), cl.var_name()} <= set(d.schedule.dim_names())]
                if sl.function() is cl.function() and both:
                    names = both[-1]
                    if names.index(sl.var_name()) < names.index(cl.var_name()):
                        raise ScheduleError(
                            f"Func {fn.name} is stored at {sl}, inside the loop where it is "
                            f"computed ({cl}); storage must be at or outside that loop", s.where)
        in_place = computed_in_place(fns, [f.function() for f in self._outputs])
        _check_computed_around_consumers(fns, outputs, users, in_place)
        _check_storage_outside_parallel_loops(fns, outputs, in_place, by_id)

    def print_loop_nest(self) -> None:
        """Print the loops the schedule asks for (Halide's `print_loop_nest`)."""
        print(self.loop_nest(), end="")

    def loop_nest(self) -> str:
        self.validate_schedules()
        fns = self.functions()
        outputs = [f.function() for f in self._outputs]
        in_place = computed_in_place(fns, outputs)
        at: dict[tuple[int, str, int], list[Function]] = {}
        roots = []
        for fn in fns:
            cl = _compute_site(fn, {id(o) for o in outputs}, in_place)
            if cl.is_root():
                roots.append(fn)
            elif cl.kind == "at":
                host = cl.function()
                stage = _stage_index(host, cl)
                at.setdefault((id(host), cl.var_name(), stage), []).append(fn)
        lines: list[str] = []

        def emit(fn: Function, depth: int):
            pad = "  " * depth
            lines.append(f"{pad}produce {fn.name}:")
            for si, d in enumerate(fn.definitions):
                inner = depth + 1
                for dim in reversed(d.schedule.dims):
                    kind = dim.for_type.value
                    lines.append(f"{'  ' * inner}{kind} {fn.name}.s{si}.{dim.name}:")
                    inner += 1
                    for g in at.get((id(fn), dim.name, si), []):
                        emit(g, inner)
                args = ", ".join("..." for _ in d.args)
                lines.append(f"{'  ' * inner}{fn.name}({args}) = ...")

        for fn in roots:
            emit(fn, 0)
        return "\n".join(lines) + "\n"


# Halide's warnings about schedules, in its words, on stdout: where its Python bindings print
# them (and where Halide's own tests look for them).

def _written(f: Func) -> list[Func]:
    """The Funcs whose buffers the pipeline writes for output f: f itself, or for a
    Tuple-valued f one Func per element (`f_0[x...] = f[x...][0]`, ...), made once per Func,
    with f computed at root unless scheduled elsewhere: one buffer per element, as Halide
    writes a Tuple."""
    fn = f.function()
    if not fn.is_tuple:
        return [f]
    made = fn.__dict__.get("_element_outputs")
    if made is None or len(made) != len(fn.types):
        from webhal.lang.var import Var
        made = []
        args = [Var(a) for a in fn.pure_args]
        for i in range(len(fn.types)):
            element = Func(f"{fn.name}_{i}")
            element[args] = f[args][i]
            made.append(element)
        fn.__dict__["_element_outputs"] = made
    if fn.schedule.compute_level.is_inlined():
        fn.schedule.compute_level = LoopLevel.root()
        fn.schedule.store_level = LoopLevel.root()
    return list(made)


def _resolve_outermost(fn: Function, outputs: set[int]) -> None:
    """store_at(f, Var.outermost()) (or hoist_storage): storage outside all of f's loops, which
    is where f itself is computed (root for an output): the same values, stored as long."""
    level = fn.schedule.store_level
    if level.kind != "at" or level.var_name() != OUTERMOST:
        return
    host = level.function()
    hosted = host.schedule.compute_level
    fn.schedule.store_level = LoopLevel.root() if id(host) in outputs or \
        hosted.is_root() or hosted.is_inlined() else hosted


def _warn_bound_inlined(fn: Function) -> None:
    """A bound on a Func computed inline constrains nothing."""
    for var, (lo, extent) in fn.schedule.bounds.items():
        print(f"Warning: It is meaningless to bound dimension {var} of function {fn.name} to "
              f"be within [{to_string(lo)}, {to_string(extent)}] because the function is "
              "scheduled inline.")


def _warn_unscheduled_updates(fn: Function) -> None:
    """An update left unscheduled while another stage of the Func is scheduled."""
    if not any(d.schedule.scheduled for d in fn.definitions):
        return
    for i, d in enumerate(fn.updates):
        if not d.schedule.scheduled and not d.schedule.unscheduled:
            print(f"Warning: Update definition {i} of function {fn.name} has not been "
                  "scheduled, even though some other definitions have been. You may have "
                  f"forgotten to schedule it. If this was intentional, call "
                  f"{fn.name}.update({i}).unscheduled() to suppress this warning.")


def _compute_site(fn: Function, outputs: set[int], in_place: dict[int, LoopLevel]) -> LoopLevel:
    """Where lowering computes fn: outputs at root, Funcs with updates left inline where
    `in_place` (passes.context.computed_in_place) says."""
    level = fn.schedule.compute_level
    if id(fn) in outputs:
        return LoopLevel.root()
    if level.is_inlined() and fn.updates:
        return in_place.get(id(fn), LoopLevel.root())
    return level


def _enclosing_loops(fn: Function, outputs: set[int], in_place: dict[int, LoopLevel],
                     stage: int | None = None) -> list[tuple] | None:
    """The loops around fn's computation, outermost first, as (id(Func), stage, loop); None
    when fn is inlined or computed inside an inlined Func (lowering reports that). `stage`:
    which of the host's stages, for a LoopLevel that names none (computed in each reader)."""
    level = _compute_site(fn, outputs, in_place)
    if level.is_inlined():
        return None
    if level.is_root():
        return []
    host = level.function()
    outer = _enclosing_loops(host, outputs, in_place)
    if outer is None:
        return None
    if level.stage_index >= 0 or stage is None:
        stage = _stage_index(host, level)
    names = host.definitions[stage].schedule.dim_names()  # innermost first
    down_to = names[names.index(level.var_name()):]
    return outer + [(id(host), stage, n) for n in reversed(down_to)]


def _check_computed_around_consumers(fns: list[Function], outputs: set[int], users,
                                     in_place: dict[int, LoopLevel]) -> None:
    """A Func computed at a loop must be computed around every place it is read: a consumer
    computed outside that loop (blur_x at out.yi, read by blur_y at out.x) would read it where
    it does not exist."""
    out_fns = [f for f in fns if id(f) in outputs]
    for fn in fns:
        site = _enclosing_loops(fn, outputs, in_place)
        if not site:
            continue
        level = _compute_site(fn, outputs, in_place)
        # computed once in each reading stage of its host when the level names no stage
        sites = [_enclosing_loops(fn, outputs, in_place, si) for si in
                 compute_stages(level.function(), level, fn, out_fns)]
        readers, seen = list(users[id(fn)]), set()
        while readers:
            c = readers.pop()
            if id(c) in seen:
                continue
            seen.add(id(c))
            around = _enclosing_loops(c, outputs, in_place)
            if around is None:
                if _compute_site(c, outputs, in_place).is_inlined():  # read where c is used
                    readers += users[id(c)]
                continue
            for si, d in enumerate(c.definitions):
                if not any(f is fn for f in _called(d)):
                    continue
                loops = around + [(id(c), si, n) for n in reversed(d.schedule.dim_names())]
                if not any(loops[:len(s)] == s for s in sites):
                    level = fn.schedule.compute_level
                    c_site = _compute_site(c, outputs, in_place)
                    raise ScheduleError(
                        f"Func {fn.name} is computed at {level}, but {c.name}, which uses it, "
                        f"is computed outside that loop (at {c_site}); "
                        f"compute {fn.name} at a loop around {c.name}'s computation, or compute "
                        f"{c.name} inside {level}", fn.schedule.where)


# Loops whose iterations may run at once: storage shared across them is a race.
_VALIDATED: OrderedDict = OrderedDict()  # definitions_fingerprint of pipelines checked
_VALIDATED_SIZE = 256
_CONCURRENT = (ForType.Parallel, ForType.Vectorized, ForType.GPUBlock, ForType.GPUThread)


def _check_storage_outside_parallel_loops(fns: list[Function], outputs: set[int],
                                          in_place: dict[int, LoopLevel], by_id) -> None:
    """A Func stored outside a parallel, vectorized or GPU loop but computed inside it
    would be written by every iteration of that loop at once (Halide refuses it too)."""
    for fn in fns:
        s = fn.schedule
        if s.store_level.is_inlined() or id(fn) in outputs:
            continue
        computed = _enclosing_loops(fn, outputs, in_place)
        if not computed:
            continue
        if s.store_level.is_root():
            stored = []
        else:
            host = s.store_level.function()
            stored = _enclosing_loops(host, outputs, in_place) or []
            stage = _stage_of(host, s.store_level)
            si = host.definitions.index(stage)
            names = stage.schedule.dim_names()
            down_to = names[names.index(s.store_level.var_name()):]
            stored = stored + [(id(host), si, n) for n in reversed(down_to)]
        for host_id, si, name in computed[len(stored):]:
            host = by_id[host_id]
            dim = next(d for d in host.definitions[si].schedule.dims if d.name == name)
            if dim.for_type in _CONCURRENT:
                raise ScheduleError(
                    f"Func {fn.name} is stored at {s.store_level} but computed at "
                    f"{s.compute_level}, inside the {dim.for_type.value} loop {host.name}."
                    f"{name}: every iteration of that loop would write the same storage at "
                    f"once; store {fn.name} inside that loop (store_at {host.name}.{name} or "
                    f"further in), or make the loop serial", s.where)


def _called(d) -> list:
    out = []
    for node in d.nodes():
        out += [c.func for c in calls(node) if c.call_type is ir.CallType.HALIDE]
    return out


def _uses(host: Function, fn: Function, users) -> bool:
    """Whether host calls fn, directly or through other Funcs."""
    seen, stack = set(), [fn]
    while stack:
        f = stack.pop()
        for c in users.get(id(f), []):
            if c is host:
                return True
            if id(c) not in seen:
                seen.add(id(c))
                stack.append(c)
    return False


def _stage_of(host: Function, level: LoopLevel):
    return host.definitions[_stage_index(host, level)]


def _stage_index(host: Function, level: LoopLevel) -> int:
    """The stage a LoopLevel names; with none named, the last that has its loop."""
    if level.stage_index >= 0:
        return level.stage_index
    having = [i for i, d in enumerate(host.definitions)
              if level.var_name() in d.schedule.dim_names()]
    return having[-1] if having else len(host.definitions) - 1


def _computed_in_gpu_block(fn: Function, by_id) -> bool:
    """Whether fn is computed at a GPU block loop of a consumer (its storage then is the
    workgroup's shared memory, and its own loops need only be thread loops)."""
    level = fn.schedule.compute_level
    if level.kind != "at" or id(level.function()) not in by_id:
        return False
    stage = _stage_of(level.function(), level)
    i = stage.schedule.dim_index(level.var_name())
    return i >= 0 and stage.schedule.dims[i].for_type is ForType.GPUBlock


def _check_gpu_nesting(fn: Function, d, in_block: bool = False) -> None:
    """GPU thread loops must sit inside GPU block loops (their own, or the consumer's block
    loop fn is computed at); at most 3 of each."""
    where = d.schedule.where or d.where  # the gpu_* directive, else the definition
    outer_first = list(reversed(d.schedule.dims))
    blocks = [x for x in outer_first if x.for_type is ForType.GPUBlock]
    threads = [x for x in outer_first if x.for_type is ForType.GPUThread]
    if len(blocks) > 3 or len(threads) > 3:
        raise ScheduleError(f"Func {fn.name} has more than 3 GPU block or thread loops", where)
    if threads and not blocks and not in_block:
        raise ScheduleError(
            f"Func {fn.name} has GPU thread loops ({', '.join(t.name for t in threads)}) but no "
            "GPU block loop around them; use gpu_blocks or gpu_tile", where)
    if blocks and threads:
        last_block = max(outer_first.index(b) for b in blocks)
        first_thread = min(outer_first.index(t) for t in threads)
        if first_thread < last_block:
            raise ScheduleError(f"Func {fn.name}: GPU thread loop {outer_first[first_thread].name}"
                                f" is outside GPU block loop {outer_first[last_block].name}; "
                                "reorder so block loops are outermost", where)
