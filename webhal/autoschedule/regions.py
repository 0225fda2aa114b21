"""How much of each Func the pipeline computes, from the estimates of its outputs.

Outputs give their estimated regions (`Func.set_estimate(s)`, a generator's
`output.set_estimates`); every producer's region is then the union of what its consumers read
of it, mapped through the reads of graph.py. A data-dependent coordinate (a lookup by a pixel
value) covers the range of the index's type, where it is narrow, else a default.
"""

from __future__ import annotations

from webhal.errors import CompileError, SourceLocation
from webhal.ir import nodes as ir
from webhal.ir.function import Function

Region = list[tuple[int, int]]  # (min, extent) per pure Var
_UNKNOWN_EXTENT = 256


def constant(e, what: str, where: SourceLocation | None) -> int:
    """The integer an estimate holds (estimates must be constants for webhal's search)."""
    v = getattr(e, "value", None)
    if isinstance(e, ir.Cast):
        v = getattr(e.value, "value", None)
    if not isinstance(v, int):
        raise CompileError(f"{what}: webhal's autoscheduler needs constant estimates, not "
                           f"{e}", where)
    return v


def output_region(fn: Function, where: SourceLocation | None) -> Region:
    """The estimated region of output `fn`; a named error where a dimension has none."""
    given = {name: (lo, ext) for name, lo, ext in getattr(fn.schedule, "estimates", [])}
    region = []
    for d, name in enumerate(fn.pure_args):
        lo, ext = given.get(name, (None, None))
        if ext is None:
            lo, ext = getattr(fn, "output_estimates", {}).get(d, (lo, None))
        if ext is None:
            raise CompileError(
                f"Autoscheduler: output Func {fn.name} has no estimate for dimension {d} "
                f"({name}); give every output's size before autoscheduling: "
                f"{fn.name}.set_estimates([(min, extent), ...]) (in a generator, "
                f"self.{fn.name}.set_estimates(...))", where)
        region.append((0 if lo is None else constant(lo, f"estimate of {fn.name}.{name}",
                                                      where),
                       constant(ext, f"estimate of {fn.name}.{name}", where)))
    return region


def check_input_estimates(images: dict, where: SourceLocation | None) -> None:
    """Every ImageParam the pipeline reads has estimates of all its dimensions, as Halide's
    autoschedulers require."""
    for name, image in images.items():
        estimates = getattr(image, "estimates", None)
        if estimates is None:  # a bound Buffer: its size is known
            continue
        for d, e in enumerate(estimates()):
            if e is None or e[1] is None:
                raise CompileError(
                    f"Autoscheduler: input {name} has no estimate for dimension {d}; give its "
                    f"size before autoscheduling: {name}.set_estimates([(min, extent), ...]) "
                    f"or {name}.dim({d}).set_estimate(min, extent)", where)



def regions(nodes: dict, order: list[Function], outputs: dict[int, Region]) -> dict[int, Region]:
    """Region of every Function (by id): outputs as given, producers from their consumers."""
    out: dict[int, list[list[int] | None]] = {}
    for fn in reversed(order):  # consumers first
        if id(fn) in outputs:
            region = outputs[id(fn)]
        else:
            acc = out.get(id(fn))
            region = [(lo, hi - lo + 1) if lo is not None else (0, _UNKNOWN_EXTENT)
                      for lo, hi in (acc or [(None, None)] * fn.dimensions)]
        out[id(fn)] = [[m, m + e - 1] for m, e in region]
        box = dict(zip(fn.pure_args, region))
        for r in nodes[id(fn)].reads:
            if not isinstance(r.producer, Function):
                continue
            p = r.producer
            acc = out.setdefault(id(p), [None] * p.dimensions)
            for d, c in enumerate(r.coords[:p.dimensions]):
                if c.var is None:
                    lo, hi = 0, _UNKNOWN_EXTENT - 1
                elif c.var == "":
                    lo, hi = c.lo, c.hi
                else:
                    m, e = box.get(c.var, (0, _UNKNOWN_EXTENT))
                    a, b = c.coeff * m, c.coeff * (m + e - 1)
                    lo, hi = int(min(a, b)) + c.lo, int(max(a, b)) + c.hi
                cur = acc[d]
                acc[d] = [lo, hi] if cur is None or cur[0] is None else \
                    [min(cur[0], lo), max(cur[1], hi)]
    return {k: [(lo, hi - lo + 1) for lo, hi in v] for k, v in out.items()}


