"""The reference realization: every Func computed with numpy over the region its uses need.

Schedules are ignored. A Func is computed on first use over the bounding box of the coordinates
actually read (and again over a larger box if a later use needs more). Update definitions run in
definition order; within one, the points of its RDom are visited in order (r.x fastest) and the
pure Vars in parallel. Runs of RDom points that do not read what an earlier point of the run wrote
are computed as one vector, so scans and histograms stay fast.
"""

from __future__ import annotations

import sys

import numpy as np

from webhal import abi
from webhal.abi import out_of_bounds
from webhal.errors import BufferError, CompileError, HalideError
from webhal.ir import nodes as ir
from webhal.ir.function import Definition, Function
from webhal.ir.visitor import calls, walk
from webhal.reference.evaluate import Evaluator

Region = list[tuple[int, int]]  # (min, extent) per dimension

# An update's iteration space is processed in chunks of at most this many points.
_CHUNK_POINTS = 1 << 22


class Realizer:
    """Answers reads of Funcs and images for the Evaluator, computing Funcs as needed."""

    def __init__(self, where=None):
        self.where = where  # the user's realize() call, for error messages
        self.cache: dict[int, tuple[list[int], np.ndarray]] = {}
        self.in_progress: dict[int, tuple[list[int], np.ndarray]] = {}
        self.recording: dict[int, list[list[tuple[int, int]]]] = {}

    # -- reads ---------------------------------------------------------------------------------

    def param_value(self, v: ir.Variable):
        p = v.param
        if hasattr(p, "get") and not hasattr(p, "dim"):  # a scalar Param
            return p.get()
        buf = p.get() if hasattr(p, "get") else p
        if buf is None:
            raise BufferError(f"ImageParam {p.name()} has no Buffer bound: call "
                              f"{p.name()}.set(buffer) before realizing", self.where)
        _, field, dim = v.name.rsplit(".", 2)
        d = buf.dim(int(dim))
        return {"min": d.min(), "extent": d.extent(), "stride": d.stride()}[field]

    def read_image(self, source, args, mask) -> np.ndarray:
        buf = source.get() if hasattr(source, "set") else source
        if buf is None:
            raise BufferError(f"ImageParam {source.name()} has no Buffer bound: call "
                              f"{source.name()}.set(buffer) before realizing", self.where)
        mins, data = buf.mins(), buf.data()
        box = _bounding_box(args, mask)
        for d, (lo, hi) in enumerate(box):
            if lo is None:
                continue
            bmin, bmax = mins[d], mins[d] + data.shape[d] - 1
            if lo < bmin or hi > bmax:
                raise BufferError(out_of_bounds(f"Input buffer {source.name()}", d, lo, hi,
                                                bmin, bmax), self.where)
        return _gather(data, mins, args, mask)

    def read_func(self, fn: Function, args, mask) -> np.ndarray:
        key = id(fn)
        box = _bounding_box(args, mask)
        if key in self.recording:
            self.recording[key].append(box)
            shape = np.broadcast_shapes(*(np.shape(a) for a in args))
            return np.zeros(shape, dtype=storage_dtype(fn))
        if key in self.in_progress:
            mins, data = self.in_progress[key]
            return _gather(data, mins, args, mask)
        needed = [(lo, hi - lo + 1) for lo, hi in box if lo is not None]
        if len(needed) == len(box):
            self.realize(fn, needed)
        elif key not in self.cache:  # every point masked off (a select's untaken side)
            shape = np.broadcast_shapes(*(np.shape(a) for a in args))
            return np.zeros(shape, dtype=storage_dtype(fn))
        mins, data = self.cache[key]
        values = _gather(data, mins, args, mask)
        if "loads" in fn.schedule.trace:
            _trace_loads(fn, args, mask, values)
        return values

    # -- computing Funcs -----------------------------------------------------------------------

    def realize(self, fn: Function, region: Region) -> tuple[list[int], np.ndarray]:
        """fn computed over at least `region`; cached."""
        key = id(fn)
        if key in self.cache:
            mins, data = self.cache[key]
            have = [(m, e) for m, e in zip(mins, data.shape)]
            if _contains(have, region):
                return self.cache[key]
            region = _union(have, region)
        if key in self.in_progress:
            raise CompileError(f"Func {fn.name} depends on itself through other Funcs; the "
                               "reference evaluator cannot realize such a cycle", self.where)
        self._check_specialize_fail(fn)
        region = self._grow_for_updates(fn, region)
        mins = [m for m, _ in region]
        where = f"{fn.name}.0({', '.join(f'{m}, {e}' for m, e in region)})"
        if "realizations" in fn.schedule.trace:
            _say(f"Begin realization {where}", f"Produce {where}")
        data = self._pure(fn, region)
        if "stores" in fn.schedule.trace:
            grid = np.indices(data.shape).reshape(len(region), -1, order="F")
            _trace_stores(fn, [g + m for g, m in zip(grid, mins)], data.ravel(order="F"))
        self.in_progress[key] = (mins, data)
        try:
            for d in fn.updates:
                self._update(fn, d, mins, data)
        finally:
            del self.in_progress[key]
        if "realizations" in fn.schedule.trace:
            _say(f"End produce {where}", f"End realization {where}")
        self.cache[key] = (mins, data)
        return mins, data

    def _check_specialize_fail(self, fn: Function) -> None:
        """Schedules do not change the reference's values, but a stage whose specialize()
        conditions all fail under specialize_fail() fails here as in compiled code."""
        for d in fn.definitions:
            if d.specialize_fail is None:
                continue
            ev = Evaluator(self, {})
            if not any(bool(ev.eval(s.condition)) for s in d.specializations):
                raise HalideError(abi.error_message("halide_error_specialize_fail",
                                                    [d.specialize_fail])[0], self.where)

    def _pure(self, fn: Function, region: Region) -> np.ndarray:
        d = fn.definitions[0]
        env = {}
        for axis, (name, (lo, ext)) in enumerate(zip(fn.pure_args, region)):
            shape = [1] * len(region)
            shape[axis] = ext
            env[name] = np.arange(lo, lo + ext, dtype=np.int32).reshape(shape)
        ev = Evaluator(self, env)
        return _stored(fn, [ev.eval(v) for v in d.values], [e for _, e in region])

    def _grow_for_updates(self, fn: Function, region: Region) -> Region:
        """Widen region to every point the updates write or read of fn itself."""
        if not fn.updates:
            return region
        for _ in range(8):
            grown = region
            for d in fn.updates:
                for box in self._footprint(fn, d, region):
                    grown = _union(grown, box)
            if grown == region:
                return region
            region = grown
        return region

    def _footprint(self, fn: Function, d: Definition, region: Region):
        key = id(fn)
        self.recording[key] = []
        try:
            for env, _ in self._iterations(fn, d, region):
                ev = Evaluator(self, env)
                args = [np.asarray(ev.eval(a)) for a in d.args]
                yield [(int(a.min()), int(a.max()) - int(a.min()) + 1) if a.size else (m, e)
                       for a, (m, e) in zip(args, region)]
                for c in _self_calls(fn, d):
                    if c.func is fn:
                        for i, a in enumerate(c.args):
                            args[i] = np.asarray(ev.eval(a))
                        yield [(int(a.min()), int(a.max()) - int(a.min()) + 1)
                               if a.size else (m, e) for a, (m, e) in zip(args, region)]
        finally:
            del self.recording[key]

    def _iterations(self, fn: Function, d: Definition, region: Region):
        """The update's points as flat arrays (RDom-major, r.x fastest; pure Vars innermost),
        in chunks, with the predicate applied. Yields (env, rdom_coords)."""
        empty_env: dict[str, np.ndarray] = {}
        ev = Evaluator(self, empty_env)
        pure = [(name, region[i]) for i, name in enumerate(fn.pure_args)
                if any(isinstance(a, ir.Variable) and a.name == name for a in d.args)]
        pure_grid = np.meshgrid(*[np.arange(lo, lo + ext, dtype=np.int32) for _, (lo, ext)
                                  in pure], indexing="ij") if pure else []
        pure_flat = [g.ravel(order="F") for g in pure_grid]
        p_count = pure_flat[0].size if pure_flat else 1
        if d.rdom is None:
            env = {name: arr for (name, _), arr in zip(pure, pure_flat)}
            yield env, None
            return
        rmins = [int(ev.eval(m)) for m in d.rdom.mins]
        rexts = [int(ev.eval(e)) for e in d.rdom.extents]
        total = int(np.prod(rexts))
        if total == 0 or p_count == 0:
            return
        per_chunk = max(1, _CHUNK_POINTS // p_count)
        for start in range(0, total, per_chunk):
            flat = np.arange(start, min(total, start + per_chunk), dtype=np.int64)
            coords = np.unravel_index(flat, rexts, order="F")
            env = {}
            for i, c in enumerate(coords):
                env[d.rdom.var_name(i)] = np.repeat((c + rmins[i]).astype(np.int32), p_count)
            for (name, _), arr in zip(pure, pure_flat):
                env[name] = np.tile(arr, flat.size)
            if d.rdom.predicates:
                keep = np.ones(flat.size * p_count, dtype=bool)
                for pred in d.rdom.predicates:
                    keep &= np.broadcast_to(Evaluator(self, env).eval(pred), keep.shape)
                env = {k: v[keep] for k, v in env.items()}
            yield env, [env[d.rdom.var_name(i)] for i in range(len(rexts))]

    def _update(self, fn: Function, d: Definition, mins: list[int], data: np.ndarray):
        region = [(m, e) for m, e in zip(mins, data.shape)]
        for env, rcoords in self._iterations(fn, d, region):
            n = next(iter(env.values())).size if env else 1
            self._run_chunk(fn, d, mins, data, env, rcoords, 0, n)

    def _run_chunk(self, fn, d, mins, data, env, rcoords, lo: int, hi: int,
                   level: int = 0) -> None:
        """Points [lo, hi) of env in order: as one vector if no point reads what an earlier one
        wrote, else split by the outermost RVar not yet fixed and recurse."""
        sub = {k: (v[lo:hi] if np.ndim(v) else v) for k, v in env.items()}
        ev = Evaluator(self, sub)
        writes = _flat_index([ev.eval(a) for a in d.args], mins, data.shape, hi - lo)
        hazard = False
        for c in _self_calls(fn, d):
            if c.func is fn:
                reads = _flat_index([ev.eval(a) for a in c.args], mins, data.shape, hi - lo)
                hazard = hazard or _reads_earlier_write(writes, reads)
        if not hazard:
            values = _stored(fn, [ev.eval(v) for v in d.values], writes.shape)
            last = _last_occurrences(writes)
            data.reshape(-1)[writes[last]] = values[last]
            if "stores" in fn.schedule.trace:
                coords = np.unravel_index(writes, data.shape)
                _trace_stores(fn, [c + m for c, m in zip(coords, mins)], values)
            return
        if _apply_as_reduction(fn, d, ev, writes, data):
            return
        ndims = len(rcoords) if rcoords is not None else 0
        if level >= ndims:
            raise CompileError(f"update of Func {fn.name} reads values it writes at the same RDom "
                               "point in a way the reference evaluator cannot order")
        # Group by the RVars outside the innermost `ndims - level - 1` ones.
        key = np.zeros(hi - lo, dtype=np.int64)
        for c in rcoords[ndims - level - 1:]:
            key = key * (int(c.max()) - int(c.min()) + 2 if c.size else 1) + \
                (c[lo:hi] - (int(c.min()) if c.size else 0))
        bounds = np.flatnonzero(np.diff(key)) + 1
        starts = [0, *bounds.tolist()]
        ends = [*bounds.tolist(), hi - lo]
        for s, e in zip(starts, ends):
            self._run_chunk(fn, d, mins, data, env, rcoords, lo + s, lo + e, level + 1)


def storage_dtype(fn: Function) -> np.dtype:
    """The numpy dtype of fn's values: a Tuple's is structured, one field `v<i>` per element."""
    if not fn.is_tuple:
        return fn.type.dtype
    return np.dtype([(f"v{i}", t.dtype) for i, t in enumerate(fn.types)])


def _stored(fn: Function, values: list, shape) -> np.ndarray:
    """The values of one definition (one per Tuple element) broadcast to shape, as stored."""
    # np.array, not ascontiguousarray: that one turns a zero-dimensional Func into shape (1,).
    if not fn.is_tuple:
        return np.array(np.broadcast_to(values[0], shape), dtype=fn.type.dtype, order="C")
    out = np.empty(shape, dtype=storage_dtype(fn))
    for i, v in enumerate(values):
        out[f"v{i}"] = np.broadcast_to(v, shape)
    return out


def _self_calls(fn: Function, d: Definition):
    """The calls of Funcs in d's values (all elements of a Tuple)."""
    return [c for v in d.values for c in calls(v, ir.CallType.HALIDE)]


# -- tracing ---------------------------------------------------------------------------------------

def _say(*lines: str) -> None:
    sys.stdout.write("".join(line + "\n" for line in lines))


def _trace_stores(fn: Function, coords, values, event: str = "Store") -> None:
    """`Store f.0(x, y) = v` per point, in the order given (as passes/tracing.py prints); for
    a Tuple, each point's elements in turn (`f.0`, `f.1`, ...)."""
    values = np.asarray(values)
    fields = values.dtype.names or (None,)
    columns = [values[f] if f else values for f in fields]
    lines = []
    for row in zip(*[c.tolist() for c in coords], *(c.tolist() for c in columns)):
        point = ", ".join(str(c) for c in row[:len(coords)])
        for i, (t, v) in enumerate(zip(fn.types, row[len(coords):])):
            kind, v = (abi.print_kind(t), v) if not t.is_bool() else ("u", int(v))
            lines.append(f"{event} {fn.name}.{i}({point}) = {abi.format_print(kind, [v])}")
    _say(*lines)


def _trace_loads(fn: Function, args, mask, values) -> None:
    """`Load f.0(x, y) = v` per point read (where mask holds), in storage order."""
    shape = np.broadcast_shapes(np.shape(values), *(np.shape(a) for a in args),
                                *(() if mask is None else (np.shape(mask),)))
    active = np.ones(shape, dtype=bool) if mask is None else np.broadcast_to(mask, shape)
    keep = active.ravel(order="F")
    coords = [np.broadcast_to(a, shape).ravel(order="F")[keep] for a in args]
    _trace_stores(fn, coords, np.broadcast_to(values, shape).ravel(order="F")[keep], "Load")


def traced_functions(outputs: list[Function]) -> list[Function]:
    """The Functions the outputs depend on (themselves included) that trace anything."""
    seen: dict[int, Function] = {}
    todo = list(outputs)
    while todo:
        fn = todo.pop()
        if id(fn) not in seen:
            seen[id(fn)] = fn
            todo += [c for c in fn.callees() if isinstance(c, Function)]
    return [fn for fn in seen.values() if fn.schedule.trace]


# -- reductions with colliding points -----------------------------------------------------------

_UFUNCS = {ir.Add: np.add, ir.Sub: np.subtract, ir.Mul: np.multiply, ir.Min: np.minimum,
           ir.Max: np.maximum}


def _apply_as_reduction(fn, d, ev, writes, data) -> bool:
    """f[L] = f[L] op g with g free of f: apply op in point order with ufunc.at (histograms)."""
    if fn.is_tuple:
        return False
    v = d.value
    op = _UFUNCS.get(type(v))
    if op is None or (isinstance(v, ir.Min | ir.Max) and data.dtype.kind == "f"):
        return False  # np.minimum.at propagates NaNs, which float min/max do not
    self_call = v.a
    if not (isinstance(self_call, ir.Call) and self_call.func is fn and
            self_call.args == d.args):
        return False
    if any(isinstance(n, ir.Call) and n.func is fn for n in walk(v.b)):
        return False
    g = np.broadcast_to(ev.eval(v.b), writes.shape).astype(data.dtype)
    with np.errstate(all="ignore"):
        op.at(data.reshape(-1), writes, g)
    return True


# -- index helpers ------------------------------------------------------------------------------

def _bounding_box(args, mask) -> list[tuple[int | None, int | None]]:
    box = []
    for a in args:
        a = np.asarray(a)
        if mask is not None and np.ndim(mask):
            full = np.broadcast_to(a, np.broadcast_shapes(a.shape, np.shape(mask)))
            active = full[np.broadcast_to(mask, full.shape)]
        elif mask is not None and not mask:
            active = a[:0] if a.ndim else np.empty(0, a.dtype)
        else:
            active = a
        if active.size == 0:
            box.append((None, None))
        else:
            box.append((int(active.min()), int(active.max())))
    return box


def _gather(data: np.ndarray, mins: list[int], args, mask) -> np.ndarray:
    idx = []
    for d, a in enumerate(args):
        a = np.asarray(a).astype(np.int64) - mins[d]
        if mask is not None:
            a = np.clip(a, 0, data.shape[d] - 1)  # inactive lanes may point anywhere
        idx.append(a)
    return data[tuple(idx)]


def _flat_index(args, mins, shape, n: int) -> np.ndarray:
    coords = [np.broadcast_to(np.asarray(a).astype(np.int64) - m, (n,)) for a, m in
              zip(args, mins)]
    if not coords:
        return np.zeros(n, dtype=np.int64)
    return np.ravel_multi_index(coords, shape)


def _reads_earlier_write(writes: np.ndarray, reads: np.ndarray) -> bool:
    """Whether some point i reads a location that a point j < i writes."""
    order = np.argsort(writes, kind="stable")
    sorted_w = writes[order]
    pos = np.searchsorted(sorted_w, reads, side="left")
    pos_c = np.clip(pos, 0, len(sorted_w) - 1)
    found = (pos < len(sorted_w)) & (sorted_w[pos_c] == reads)
    first_writer = order[pos_c]  # stable sort: the first point that writes this location
    return bool(np.any(found & (first_writer < np.arange(len(reads)))))


def _last_occurrences(writes: np.ndarray) -> np.ndarray:
    rev = writes[::-1]
    _, idx = np.unique(rev, return_index=True)
    return len(writes) - 1 - idx


def _contains(have: Region, need: Region) -> bool:
    return all(hm <= nm and nm + ne <= hm + he for (hm, he), (nm, ne) in zip(have, need))


def _union(a: Region, b: Region) -> Region:
    out = []
    for (am, ae), (bm, be) in zip(a, b):
        lo, hi = min(am, bm), max(am + ae, bm + be)
        out.append((lo, hi - lo))
    return out
