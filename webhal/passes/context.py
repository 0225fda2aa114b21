"""What every lowering pass may consult (and none writes): the pipeline's Functions, inputs,
outputs and target. Results travel in the statement a pass returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from webhal.ir import nodes as ir
from webhal.ir.function import Function
from webhal.ir.schedule import LoopLevel
from webhal.ir.visitor import calls


@dataclass
class LowerContext:
    outputs: list[Function]
    functions: list[Function]              # producers before consumers
    target: object
    inputs: dict[str, object] = field(default_factory=dict)   # name -> ImageParam or Buffer
    params: dict[str, object] = field(default_factory=dict)   # name -> Param
    _in_place: dict | None = field(default=None, init=False, repr=False)

    def is_output(self, fn: Function) -> bool:
        return any(fn is o for o in self.outputs)

    def function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name:
                return f
        return None

    def compute_level(self, fn: Function) -> LoopLevel:
        """Where fn is computed; outputs at root, and Funcs with updates that were left inline
        (an inline reduction's) where `computed_in_place` puts them."""
        if self.is_output(fn):
            return LoopLevel.root()
        level = fn.schedule.compute_level
        if level.is_inlined() and fn.updates:
            if self._in_place is None:
                self._in_place = computed_in_place(self.functions, self.outputs)
            return self._in_place.get(id(fn), LoopLevel.root())
        return level

    def store_level(self, fn: Function) -> LoopLevel:
        level = fn.schedule.store_level
        compute = self.compute_level(fn)
        if level.is_inlined() or compute.is_root():
            return compute
        return level

    def is_inlined(self, fn: Function) -> bool:
        return self.compute_level(fn).is_inlined()


class _Host:
    """Stands for the Func whose loop a LoopLevel names (LoopLevel reads its `_function`)."""

    def __init__(self, fn: Function):
        self._function = fn


def computed_in_place(functions: list[Function], outputs: list[Function]) -> dict[int, LoopLevel]:
    """Where each Func with update definitions that was left inline is computed (by id): it
    cannot be inlined, so, as in Halide, it is computed at the innermost loop of the stage that
    reads it (directly or through inlined Funcs): an inline reduction (hl.sum) where its value
    is used. One read by several stages is computed at root (Halide computes a copy in each)."""
    out_ids = {id(o) for o in outputs}

    def inlined(f: Function) -> bool:
        return id(f) not in out_ids and f.schedule.compute_level.is_inlined() and \
            not f.updates

    hosts = {id(f): f for f in functions}

    def reached(start: list[Function], host: Function) -> list[Function]:
        """The Funcs with updates left inline that `start` reads, through inlined Funcs."""
        found, stack, seen = [], list(start), set()
        while stack:
            f = stack.pop()
            if id(f) in seen or f is host or id(f) not in hosts:
                continue
            seen.add(id(f))
            if inlined(f):
                stack += _called(f.definitions[0])
            elif f.updates and id(f) not in out_ids and f.schedule.compute_level.is_inlined():
                found.append(f)
        return found

    sites: dict[int, set[tuple[int, int]]] = {}
    for host in functions:
        if inlined(host):
            continue
        for si, d in enumerate(host.definitions):
            for f in reached(_called(d), host):
                sites.setdefault(id(f), set()).add((id(host), si))
            if d.rdom is not None:  # an RDom's bounds are read before its loops: at root
                for f in reached(_called_in(d.rdom.mins + d.rdom.extents), host):
                    sites.setdefault(id(f), set()).add((id(host), -1))
    levels = {}
    for fid, where in sites.items():
        if len(where) != 1 or next(iter(where))[1] < 0:
            continue
        (hid, si), = where
        host = hosts[hid]
        dims = host.definitions[si].schedule.dims
        if dims:
            levels[fid] = LoopLevel(_Host(host), dims[0].name, si)
    return levels


def stages_reading(host: Function, fn: Function, outputs: list[Function]) -> list[int]:
    """The stages of host that read fn, directly or through inlined Funcs. A LoopLevel at
    host's loop with no stage given (`compute_at(host, x)`) means each of these, as in Halide:
    fn is computed once per reading stage, inside that stage's loop."""
    out_ids = {id(o) for o in outputs}
    found = []
    for si, d in enumerate(host.definitions):
        stack, seen = _called(d), set()
        while stack:
            f = stack.pop()
            if f is fn:
                found.append(si)
                break
            if id(f) in seen or id(f) in out_ids or not f.schedule.compute_level.is_inlined() \
                    or f.updates:
                continue
            seen.add(id(f))
            stack += _called(f.definitions[0])
    return found


def _called(d) -> list[Function]:
    """The Functions a definition calls inside its loops (not in its RDom's bounds)."""
    return _called_in(list(d.nodes()))


def _called_in(nodes) -> list[Function]:
    return [c.func for n in nodes for c in calls(n)
            if c.call_type is ir.CallType.HALIDE and isinstance(c.func, Function)]
