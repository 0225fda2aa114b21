"""A chosen schedule as a list of directives: applied to a pipeline's Funcs, or printed as the
Python a user pastes (the same list both ways, so the two always agree)."""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field

from webhal.autoschedule import cost
from webhal.autoschedule.cost import INLINE, ROOT, SHARED, SLIDE, STRIP, CostModel, points
from webhal.autoschedule.search import Decision
from webhal.ir import nodes as ir
from webhal.ir.function import Function


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class FuncRef:
    name: str


@dataclass(frozen=True)
class Tail:
    """A TailStrategy member, by name."""

    name: str


@dataclass(frozen=True)
class Memory:
    """A MemoryType member, by name."""

    name: str


@dataclass
class Directive:
    """`func[.update(stage - 1)].method(*args)`; a chain is several on one line."""

    func: str
    stage: int
    calls: list[tuple[str, tuple]] = field(default_factory=list)

    def call(self, method: str, *args) -> Directive:
        self.calls.append((method, args))
        return self


def _fresh(base: str, taken: set[str]) -> str:
    name, i = base, 1
    while name in taken:
        name, i = f"{base}{i}", i + 1
    taken.add(name)
    return name


def directives(model: CostModel, order: list[Function], decision: Decision) -> list[Directive]:
    """The directives realizing `decision`, consumers first (as one reads a schedule)."""
    m = model.m
    # Directives name Funcs by name: a pipeline's are distinct (lang/graph.distinct_names).
    key = {id(fn): fn.name for fn in order}
    out: list[Directive] = []
    strip_loops: dict[int, tuple[str, str]] = {}
    scans = _gpu_scans(model, order, decision) if m.gpu else {}
    scan_blocks: dict[int, str] = {}
    shared_blocks: dict[int, str] = {}  # a consumer with producers in workgroup memory -> block
    for fn in reversed(order):
        fid = id(fn)
        choice = decision.choices[fid]
        node = model.nodes[fid]
        region = model.regions[fid]
        if choice == INLINE or not fn.pure_args:
            continue
        if m.gpu and fid in scans.values():
            # one block, one invocation: the scans it reads are computed inside it
            x = fn.pure_args[0]
            taken = set(fn.pure_args)
            xo, xi = _fresh(f"{x}o", taken), _fresh(f"{x}i", taken)
            scan_blocks[fid] = xo
            d = Directive(key[fid], 0)
            if not node.is_output:
                d.call("compute_root")
            out.append(d.call("split", Var(x), Var(xo), Var(xi), max(1, region[0][1]),
                              Tail("GuardWithIf")).call("gpu_blocks", Var(xo)))
            continue
        if m.gpu and fid in scans:
            cid = scans[fid]
            out.append(Directive(key[fid], 0).call("compute_at", FuncRef(key[cid]),
                                                    Var(scan_blocks[cid])))
            out += [Directive(key[fid], i + 1).call("unscheduled")
                    for i in range(len(fn.updates))]
            continue
        if m.gpu and choice == SHARED:
            cid = model.shared_consumer(fid, decision.choices)
            out.append(_shared_stage(fn, key[fid], key[cid], shared_blocks[cid]))
            continue
        if m.gpu:
            tile = decision.knobs.get("tile", (16, 16))
            fixed = {v for d, v in enumerate(fn.pure_args) if (fid, d) in model.fixed}
            members = [p for p, ch in decision.choices.items() if ch == SHARED and
                       model.shared_consumer(p, decision.choices) == fid]
            names: dict[str, str] = {}
            fits = None
            if members:
                def fits(tx, ty, fid=fid, members=members):
                    got = [model.shared_footprint(fid, p, tx, ty) for p in members]
                    return all(inv <= m.max_invocations for _, inv, _ in got) and \
                        sum(b for _, _, b in got) <= m.workgroup_storage_bytes
            pure, layers = list(fn.pure_args), []
            if not members and model.layers_inside(fid):
                pure, layers = pure[:2], pure[2:]
            guard = node.is_output and bool(fn.updates)
            out += _gpu_stage(fn, key[id(fn)], 0, pure, region, node.is_output, tile, layers,
                              fixed=fixed, fits=fits, names=names, guard=guard)
            if members:
                shared_blocks[fid] = names["block"]
            for i, d in enumerate(fn.updates):
                pure = [x.name for x in reversed(d.schedule.dims) if x.is_pure]
                pure = [p for p in fn.pure_args if p in pure]
                rvars = [x.name for x in d.schedule.dims if x.is_rvar]
                extent = dict(zip(fn.pure_args, (e for _, e in region)))
                # An update over an RDom computes its samples once for every channel when a
                # short third Var is an unrolled loop inside the RDom's (the bilateral grid's
                # two channels: one sample, two sums), not a block dimension of its own.
                unrolled = _short_channels(model, fid, pure[2:], extent) \
                    if rvars and len(pure) >= 3 else []
                if pure:
                    out += _gpu_stage(fn, key[id(fn)], i + 1,
                                      [p for p in pure if p not in unrolled], region, True,
                                      tile, unrolled, rvars, guard=guard)
                else:  # a scan over an RDom alone: serial, on purpose
                    out.append(Directive(key[id(fn)], i + 1).call("unscheduled"))
            continue
        lanes = cost.vector_lanes(node, m) * decision.knobs.get("lanes", 1)
        x = fn.pure_args[0]
        d = Directive(key[id(fn)], 0)
        if choice == ROOT:
            if not node.is_output:
                d.call("compute_root")
            rows = decision.rows.get(fid, 0)
            if rows and len(fn.pure_args) > 1:
                taken = set(fn.pure_args)
                y = fn.pure_args[1]
                yo, yi = _fresh(f"{y}o", taken), _fresh(f"{y}i", taken)
                # A producer's region is an estimate: guarded strips never read past it. An
                # output's strips are shifted inwards, so a picture shorter than one strip is
                # refused: guarded, the Sobel's chain of sliding windows stopped folding under
                # them, 1.15-1.25x slower in Node (docs/autoschedule.md).
                tail = () if node.is_output else (Tail("GuardWithIf"),)
                d.call("split", Var(y), Var(yo), Var(yi), rows, *tail)
                outer = fn.pure_args[2:]
                if m.threads > 1 and outer:
                    # The Vars past y (a colour channel, the bilateral grid's z and c) fused
                    # with the strips into one parallel loop, as the cost model counts its jobs
                    # (outer values x strips) and as the demos' hand schedules do: left outside
                    # the strips, each of their values would run a parallel loop of its own,
                    # one after another (the grid's blurs, ~130 rows in 128-row strips: 2 of
                    # 16 workers busy).
                    d.call("reorder", Var(x), Var(yi), Var(yo), *(Var(v) for v in outer))
                    for v in outer:
                        t = _fresh("t", taken)
                        d.call("fuse", Var(yo), Var(v), Var(t))
                        yo = t
                strip_loops[fid] = (yo, yi)
                if m.threads > 1:
                    d.call("parallel", Var(yo))
        else:
            root = next(r for r, g in decision.groups.items() if fid in g.members)
            rname = key[root]
            yo, yi = strip_loops[root]
            if choice == SLIDE:
                d.call("store_at", FuncRef(rname), Var(yo)).call("compute_at", FuncRef(rname),
                                                                  Var(yi))
            else:
                assert choice == STRIP
                d.call("compute_at", FuncRef(rname), Var(yo))
        if lanes > 1 and region[0][1] >= lanes:
            d.call("vectorize", Var(x), lanes)
        if d.calls:
            out.append(d)
        for i, upd in enumerate(fn.updates):
            names = [x.name for x in upd.schedule.dims if x.is_pure]
            rvars = [x.name for x in upd.schedule.dims if x.is_rvar]
            u = Directive(key[id(fn)], i + 1)
            # A short Var of constant extent (the bilateral grid's two channels) goes inside
            # the RDom's loops, unrolled: each sample (a pixel read, its bin computed) once
            # for all its values, where outermost the whole scatter ran once per value. As
            # the WebGPU stages do (_gpu_stage's `unrolled`) and the demo's hand schedule.
            extent = dict(zip(fn.pure_args, (e for _, e in region)))
            unrolled = _short_channels(model, fid, [p for p in names if p not in fn.pure_args[:2]],
                                       extent) if rvars else []
            if unrolled:
                rest = [p for p in names if p not in unrolled]
                u.call("reorder", *(Var(v) for v in [*unrolled, *rvars, *rest]))
            if len(fn.pure_args) > 1 and fn.pure_args[1] in names and m.threads > 1 and \
                    region[1][1] >= 4 * m.threads:
                u.call("parallel", Var(fn.pure_args[1]))
            # x vectorized: innermost, or around the RDom's loops where every coordinate the
            # update stores to is its own pure Var (a reduction per point, as the histogram
            # equalization's sum of partial histograms per bin: no two lanes store to one
            # element, and each loop of the RDom runs once for the vector).
            dims = upd.schedule.dims
            per_point = all(isinstance(a, ir.Variable) and a.name == n
                            for a, n in zip(upd.args, fn.pure_args))
            if dims and x in names and (dims[0].name == x or per_point) and lanes > 1 and \
                    region[0][1] >= lanes:
                # An output's update rounded up would write past a caller's Buffer of a width
                # not a multiple of the vector (Halide's default there): guarded instead.
                u.call("vectorize", Var(x), lanes,
                       *((Tail("GuardWithIf"),) if node.is_output else ()))
            for v in unrolled:  # by its extent: its bounds may be no constant to lowering
                u.call("unroll", Var(v), extent[v])  # (the grid's c, fused in a parallel loop)
            # left as it is on purpose (an RDom's loop), which Halide's warning wants said
            out.append(u if u.calls else u.call("unscheduled"))
    return out


# A Var of an update over an RDom with at most this many values is unrolled inside the RDom.
MAX_UNROLLED_CHANNELS = 4

# A scan's consumer is run in one invocation when it has at most this many points.
MAX_SCAN_CONSUMER_POINTS = 4096


def _gpu_scans(model: CostModel, order: list[Function], decision: Decision) -> dict[int, int]:
    """Funcs (by id) whose updates are serial scans (loops over an RDom alone) -> the one
    consumer they are computed in. Left at root, a scan would run on the host between two
    kernels, its input copied back and its output up again; computed inside its consumer's
    single GPU block (a small one-dimensional Func at root, as a lookup table is), it runs in
    one invocation on the GPU."""
    out = {}
    for fn in order:
        fid = id(fn)
        node = model.nodes[fid]
        if decision.choices[fid] != ROOT or node.is_output or not fn.updates or \
                len(fn.pure_args) != 1:
            continue
        if any(x.is_pure for d in fn.updates for x in d.schedule.dims):
            continue
        consumers = {id(c) for c in node.consumers}
        if len(consumers) != 1:
            continue
        cid = consumers.pop()
        c = model.nodes[cid].fn
        if decision.choices[cid] != ROOT or c.updates or len(c.pure_args) != 1 or \
                points(model.regions[cid]) > MAX_SCAN_CONSUMER_POINTS or cid in out.values():
            continue
        out[fid] = cid
    return out


def _shared_stage(fn: Function, name: str, consumer: str, block: str) -> Directive:
    """Producer `fn` computed per workgroup of `consumer` (at its innermost block loop
    `block`) into workgroup memory, its own x and y over the workgroup's invocations (one
    point each: see CostModel.shared_footprint); its other Vars are loops inside each
    invocation (the consumer's third is a block loop: one value there)."""
    d = Directive(name, 0).call("compute_at", FuncRef(consumer), Var(block))
    d.call("store_in", Memory("GPUShared"))
    x, y, rest = fn.pure_args[0], fn.pure_args[1], fn.pure_args[2:]
    if rest:
        d.call("reorder", *(Var(v) for v in [*rest, x, y]))
    return d.call("gpu_threads", Var(x), Var(y))


def _short_channels(model: CostModel, fid: int, candidates: list[str], extent: dict) -> list[str]:
    """The Vars of `candidates` (an update's, past x and y) whose extent is the same whatever
    the estimates and at most MAX_UNROLLED_CHANNELS: unrolled inside the update's RDom."""
    fn = model.nodes[fid].fn
    return [p for p in candidates if extent.get(p, 0) <= MAX_UNROLLED_CHANNELS
            and (fid, fn.pure_args.index(p)) in model.fixed]


def _gpu_stage(fn: Function, name: str, stage: int, pure: list[str], region,
               root: bool, tile: tuple[int, int] = (16, 16), unrolled: list[str] = (),
               rvars: list[str] = (), fixed: set[str] = frozenset(), fits=None,
               names: dict | None = None, guard: bool = False) -> list[Directive]:
    """compute_root (for a producer), packed lanes for 8/16-bit values (an invocation writes
    whole 32-bit words), then gpu_tile over the first two pure Vars within `tile` (x, y
    invocations, at most 256: WebGPU's default limit) and a third Var as a block loop. Vars
    past the third become serial loops inside each invocation (as the bilateral grid's hand
    schedule does with its channel): left outermost, each of their iterations would be a
    dispatch of its own. `fits(tx, ty)`: whether a workgroup of that many invocations holds
    the producers computed in it (the tile shrinks until it does); `names` gets the innermost
    block Var ("block"), where they are computed. `guard`: tiles are GuardWithIf (an output
    with updates, whose update's tiles, rounded up past a pure stage's, would write beyond
    any buffer the output's size asks for: Halide refuses a 3-wide output so tiled by 4)."""
    d = Directive(name, stage)
    if stage == 0 and not root:
        d.call("compute_root")
    extent = dict(zip(fn.pure_args, (e for _, e in region)))

    # Only loops of constant extent (`unrolled`, `fixed`: the same whatever the estimates) are
    # unrolled; a guarded split by the estimate instead ran the bilateral grid 2.4x slower.
    if unrolled:  # innermost, inside the RDom's loops (`rvars`, innermost first)
        d.call("reorder", *(Var(v) for v in [*unrolled, *rvars, *pure]))
        # Inside an RDom's loops the innermost is vectorized: its values' statements become
        # one (one guard, the sample and its bin computed once: the bilateral grid's
        # histogram 1.65x faster on SwiftShader than unrolled, which repeats both for each
        # channel); the others unrolled.
        for i, v in enumerate(unrolled):
            d.call("vectorize" if rvars and i == 0 else "unroll", Var(v))
    inner = pure[3:]
    if inner:
        pure = pure[:3]
        d.call("reorder", *(Var(v) for v in inner + pure))
        short = [v for v in inner if v in fixed and
                 extent.get(v, MAX_UNROLLED_CHANNELS + 1) <= MAX_UNROLLED_CHANNELS]
        for v in short:  # a few channels: straight-line code, their loads side by side
            d.call("unroll", Var(v))
        if stage == 0 and short:
            # ...and stored innermost, as an invocation writes them and consumers read them:
            # the bilateral grid's value and weight of a cell side by side (its histogram's
            # vectorized update one vec2 load and store; the slicing's two loads of a corner
            # one cache line, not a channel's plane apart). Neutral on SwiftShader, which
            # gathers each 32-bit value on its own (docs/autoschedule.md).
            d.call("reorder_storage", *(Var(v) for v in short + [p for p in fn.pure_args
                                                                 if p not in short]))
    taken = set(pure) | set(inner)
    tail = (Tail("GuardWithIf"),) if guard else ()
    pack = cost.gpu_pack(fn)
    x = pure[0]
    width = extent.get(x, 1)
    if pack > 1 and width >= pack:
        xv = _fresh(f"{x}v", taken)
        d.call("split", Var(x), Var(x), Var(xv), pack, *tail).call("vectorize", Var(xv))
        width = -(-width // pack)
    if len(pure) >= 2:
        y = pure[1]
        height = extent.get(y, 1)
        # A small level (a pyramid's coarse ones) gets smaller workgroups, so that it still
        # spreads over the GPU's cores rather than filling a few workgroups' worth of them.
        layers = extent.get(pure[2], 1) if len(pure) >= 3 else 1
        tx, ty = cost.tile_shape(width, height, layers, tile, fits)
        xo, yo, xi, yi = (_fresh(n, taken) for n in (f"{x}o", f"{y}o", f"{x}i", f"{y}i"))
        if names is not None:
            names["block"] = xo
        d.call("gpu_tile", Var(x), Var(y), Var(xo), Var(yo), Var(xi), Var(yi), tx, ty, *tail)
        if len(pure) >= 3:
            d.call("gpu_blocks", Var(pure[2]))
    else:
        xo, xi = _fresh(f"{x}o", taken), _fresh(f"{x}i", taken)
        d.call("gpu_tile", Var(x), Var(xo), Var(xi),
               cost.pow2_at_least(width, 64 * tile[0] // 16), *tail)
    return [d]


# -- as Python -----------------------------------------------------------------------------------

def _identifier(name: str, taken: set[str]) -> str:
    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit() or keyword.iskeyword(ident) or ident in ("hl",
                                                                                 "pipeline"):
        ident = "f_" + ident
    return _fresh(ident, taken)


def source(plan: list[Directive], header: str) -> str:
    """The plan as a function `apply_schedule(pipeline)` a user can paste and edit."""
    taken: set[str] = set()
    funcs: dict[str, str] = {}
    lines = []
    used = [d.func for d in plan] + [a.name for d in plan for _, args in d.calls for a in args
                                     if isinstance(a, FuncRef)]
    for name in dict.fromkeys(used):
        ident = _identifier(name, taken)
        funcs[name] = ident
        lines.append(f"    {ident} = pipeline.get_func({name!r})")
    var_names = dict.fromkeys(a.name for d in plan for _, args in d.calls for a in args
                              if isinstance(a, Var))
    vars_ = {v: _identifier(v, taken) for v in var_names}
    for v, ident in vars_.items():
        lines.append(f"    {ident} = hl.Var({v!r})")

    def arg(a) -> str:
        if isinstance(a, Var):
            return vars_[a.name]
        if isinstance(a, FuncRef):
            return funcs[a.name]
        if isinstance(a, Tail):
            return f"hl.TailStrategy.{a.name}"
        if isinstance(a, Memory):
            return f"hl.MemoryType.{a.name}"
        return repr(a)

    for d in plan:
        head = funcs[d.func] + (f".update({d.stage - 1})" if d.stage else "")
        chain = "".join(f".{m}({', '.join(arg(a) for a in args)})" for m, args in d.calls)
        lines.append(f"    {head}{chain}")
    body = "\n".join(lines) if lines else "    pass"
    return (f"{header}\nimport webhal as hl\n\n\n"
            f"def apply_schedule(pipeline: hl.Pipeline) -> None:\n{body}\n")


def apply(plan: list[Directive], funcs: dict[str, object]) -> None:
    """Give each Func (by name, hl.Func objects) its directives."""
    from webhal.ir.schedule import MemoryType, TailStrategy
    from webhal.lang.var import Var as HlVar
    for d in plan:
        target = funcs[d.func]
        if d.stage:
            target = target.update(d.stage - 1)
        for method, args in d.calls:
            real = [HlVar(a.name) if isinstance(a, Var) else
                    funcs[a.name] if isinstance(a, FuncRef) else
                    getattr(TailStrategy, a.name) if isinstance(a, Tail) else
                    getattr(MemoryType, a.name) if isinstance(a, Memory) else a for a in args]
            target = getattr(target, method)(*real)
