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



def image_env(images: dict) -> dict[str, tuple[int, int]]:
    """Each input image's estimated min and extent per dimension, as the Variables its
    boundary conditions read (`input.min.0`, `input.extent.0`)."""
    env: dict[str, tuple[int, int]] = {}
    for name, image in images.items():
        estimates = getattr(image, "estimates", None)
        if estimates is None:
            continue
        for d, e in enumerate(estimates()):
            if e is None or e[1] is None:
                continue
            lo = getattr(e[0], "value", 0) if e[0] is not None else 0
            ext = getattr(e[1], "value", None)
            if isinstance(lo, int) and isinstance(ext, int):
                env[f"{name}.min.{d}"] = (lo, lo)
                env[f"{name}.extent.{d}"] = (ext, ext)
    return env


Span = tuple[int | None, int | None]


def _type_span(t) -> Span:
    if t.is_bool():
        return 0, 1
    if t.is_int_or_uint() and t.bits <= 16:
        return int(t.min()), int(t.max())
    return (0, None) if t.is_uint() else (None, None)


def span(e, env: dict[str, Span]) -> Span:
    """[lo, hi] of integer expression `e` as numbers, its Variables ranging over `env` (a
    side None where unknown): a boundary condition's clamp bounds a read whatever its
    coordinate, so a level's region stops at the level's size."""
    def both(f, a: Span, b: Span) -> Span:
        if None in a or None in b:
            return None, None
        vals = [f(x, y) for x in a for y in b]
        return min(vals), max(vals)

    match e:
        case ir.IntImm() | ir.UIntImm():
            return e.value, e.value
        case ir.Variable():
            return env.get(e.name, _type_span(e.type))
        case ir.Add():
            a, b = span(e.a, env), span(e.b, env)
            return (None if None in (a[0], b[0]) else a[0] + b[0],
                    None if None in (a[1], b[1]) else a[1] + b[1])
        case ir.Sub():
            a, b = span(e.a, env), span(e.b, env)
            return (None if None in (a[0], b[1]) else a[0] - b[1],
                    None if None in (a[1], b[0]) else a[1] - b[0])
        case ir.Mul():
            return both(lambda x, y: x * y, span(e.a, env), span(e.b, env))
        case ir.Div() if isinstance(e.b, ir.IntImm) and e.b.value > 0 and \
                e.type.is_int_or_uint():
            a = span(e.a, env)
            d = e.b.value
            return (None if a[0] is None else a[0] // d, None if a[1] is None else a[1] // d)
        case ir.Mod() if isinstance(e.b, ir.IntImm) and e.b.value > 0 and \
                e.type.is_int_or_uint():
            a, d = span(e.a, env), e.b.value
            if None not in a and a[1] - a[0] < d and a[0] % d <= a[1] % d:
                return a[0] % d, a[1] % d
            return 0, d - 1
        case ir.Min():
            a, b = span(e.a, env), span(e.b, env)
            his = [v for v in (a[1], b[1]) if v is not None]
            return (None if None in (a[0], b[0]) else min(a[0], b[0]),
                    min(his) if his else None)
        case ir.Max():
            a, b = span(e.a, env), span(e.b, env)
            los = [v for v in (a[0], b[0]) if v is not None]
            return (max(los) if los else None,
                    None if None in (a[1], b[1]) else max(a[1], b[1]))
        case ir.Select():
            a, b = span(e.true_value, env), span(e.false_value, env)
            return (None if None in (a[0], b[0]) else min(a[0], b[0]),
                    None if None in (a[1], b[1]) else max(a[1], b[1]))
        case ir.Cast() if e.type.is_int_or_uint() and e.value.type.is_int_or_uint():
            a, t = span(e.value, env), _type_span(e.type)
            if None in a or (t[0] is not None and a[0] < t[0]) or \
                    (t[1] is not None and a[1] > t[1]):
                return t
            return a
        case ir.Call(name="shift_right" | "shift_left") if e.call_type == \
                ir.CallType.INTRINSIC and isinstance(e.args[1], (ir.IntImm, ir.UIntImm)):
            a, k = span(e.args[0], env), e.args[1].value
            if e.name == "shift_right":
                return tuple(None if v is None else v >> k for v in a)
            return tuple(None if v is None else v << k for v in a)
        case ir.Let():
            return span(e.body, {**env, e.name: span(e.value, env)})
    return _type_span(e.type) if e.type.is_int_or_uint() or e.type.is_bool() else (None, None)


def regions(nodes: dict, order: list[Function], outputs: dict[int, Region],
            env: dict[str, tuple[int, int]] | None = None) -> dict[int, Region]:
    """Region of every Function (by id): outputs as given, producers from their consumers.
    Each read's coordinates are bounded as numbers where they can be (clamps to an input's
    estimated size or to constants, `x / 2`, `x % 2`), else by their classification."""
    env = env or {}
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
        scope = {**env, **{v: (m, m + e - 1) for v, (m, e) in box.items()},
                 **_rvar_spans(fn, env)}
        for r in nodes[id(fn)].reads:
            if not isinstance(r.producer, Function):
                continue
            p = r.producer
            acc = out.setdefault(id(p), [None] * p.dimensions)
            for tap, args in zip(r.taps, r.args):
                for d, c in enumerate(tap[:p.dimensions]):
                    lo, hi = _by_class(c, box)
                    a, b = span(args[d], scope)
                    if a is not None and b is not None and a <= b:
                        lo, hi = a, b
                    elif a is not None and a <= hi:
                        lo = max(lo, a)
                    elif b is not None and b >= lo:
                        hi = min(hi, b)
                    cur = acc[d]
                    acc[d] = [lo, hi] if cur is None or cur[0] is None else \
                        [min(cur[0], lo), max(cur[1], hi)]
    return {k: [(lo, hi - lo + 1) for lo, hi in v] for k, v in out.items()}


def _rvar_spans(fn: Function, env: dict[str, Span]) -> dict[str, Span]:
    """[lo, hi] of each RVar of `fn`'s updates whose RDom's min and extent are bounded: an
    update reads its producers over its RDom (a 3x3 window `f[x + r.x, y + r.y]`)."""
    found: dict[str, Span] = {}
    for d in fn.updates:
        rdom = d.rdom
        if rdom is None:
            continue
        for i, (m, e) in enumerate(zip(rdom.mins, rdom.extents)):
            (lo, hi), most = span(m, env), span(e, env)[1]
            if lo is not None and hi is not None and most is not None:
                found[rdom.var_name(i)] = (lo, hi + most - 1)
    return found


def fixed_extents(nodes: dict, order: list[Function], outputs: dict[int, Region],
                  env: dict[str, tuple[int, int]], sizes: dict) -> set[tuple[int, int]]:
    """(Function id, dimension) pairs whose extent does not move when every estimate does
    (the bilateral grid's two channels, read at constants): loops the lowering will see with a
    constant extent, which may be unrolled as they are."""
    moved_out = {k: [(m, e + 7) for m, e in r] for k, r in outputs.items()}
    moved_env = {k: (lo, hi + 7) if ".extent." in k else (lo, hi) for k, (lo, hi) in env.items()}
    moved = regions(nodes, order, moved_out, moved_env)
    return {(fid, d) for fid, region in sizes.items() for d, (_, e) in enumerate(region)
            if fid in moved and d < len(moved[fid]) and moved[fid][d][1] == e}


def _by_class(c, box) -> tuple[int, int]:
    """[lo, hi] of a coordinate from its classification (graph.Coord) alone."""
    if c.var is None:
        return 0, _UNKNOWN_EXTENT - 1
    if c.var == "":
        return c.lo, c.hi
    m, e = box.get(c.var, (0, _UNKNOWN_EXTENT))
    a, b = c.coeff * m, c.coeff * (m + e - 1)
    return int(min(a, b)) + c.lo, int(max(a, b)) + c.hi
