"""The search: which Funcs to inline, compute at root, or fuse into their consumer's strips,
and how tall a strip is.

A greedy pass in the spirit of the grouping autoschedulers of the literature: start with every
Func that may be inlined inlined and the rest at root, then visit Funcs consumers first and give
each the choice (inline, root, strip, slide) that lowers the modelled time of the whole
pipeline, each group's strip height chosen by the same model; repeat until nothing changes.
Fusion (strip, slide) is offered where every read on the way to the group's root is a stencil
of the same Vars, so the halo a strip needs is a number of rows. On WebGPU the choices are
inline, root (a dispatch of its own) and shared: computed per workgroup of its one consumer
into workgroup memory, where that consumer reads it as stencils of its own Vars.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webhal.autoschedule.cost import INLINE, ROOT, SHARED, SLIDE, STRIP, CostModel, Group
from webhal.ir.function import Function

ROWS = (1, 2, 4, 8, 16, 32, 64, 128)


@dataclass
class Decision:
    """What the search chose: per Func id its choice, per group root its strip rows, the
    groups themselves and the modelled time (ns)."""

    choices: dict[int, str]
    rows: dict[int, int]
    groups: dict[int, Group]
    cost: float
    # what the cost model does not rank, for measured tuning to vary (see plan.directives):
    # "lanes" (a multiple of the vector lanes), "tile" ((x, y) invocations of a GPU tile)
    knobs: dict = field(default_factory=dict)


def _site(fid, model: CostModel, choices, site_of) -> tuple[int | None, int]:
    """(root of the group where `fid` is consumed, halo rows relative to it) when all its
    consumers are in one group and read it as same-Var stencils; (None, 0) otherwise."""
    node = model.nodes[fid]
    roots, halo = set(), 0
    for c in node.consumers:
        cid = id(c)
        croot, chalo = site_of.get(cid, (None, 0))
        if croot is None:
            return None, 0
        reads = [r for r in model.nodes[cid].reads if r.producer is node.fn]
        for r in reads:
            if not r.is_stencil or [x.var for x in r.coords] != c.pure_args or \
                    len(c.pure_args) != len(node.fn.pure_args) or len(c.pure_args) < 2:
                return None, 0
            halo = max(halo, chalo + r.coords[1].hi - r.coords[1].lo)
        roots.add(croot)
    if len(roots) != 1:
        return None, 0
    return roots.pop(), halo


def resolve(model: CostModel, order: list[Function], choices: dict[int, str]):
    """Groups for `choices` (consumers first), or None where a fused Func has no single
    group to join. Inlined Funcs sit in the group of their consumers."""
    site_of: dict[int, tuple[int | None, int]] = {}
    groups: dict[int, Group] = {}
    for fn in reversed(order):
        fid = id(fn)
        ch = choices[fid]
        if ch == ROOT:
            groups[fid] = Group(fid, {})
            site_of[fid] = (fid, 0)
            continue
        if ch == SHARED:  # a member of its consumer's group, at a workgroup
            cid = model.shared_consumer(fid, choices)
            if cid is None or cid not in groups:
                return None
            groups[cid].members[fid] = 0
            site_of[fid] = (None, 0)
            continue
        root, halo = _site(fid, model, choices, site_of)
        if ch == INLINE:
            # an inlined Func is read where its consumers are: its own reads join their group
            site_of[fid] = (root, halo)
            continue
        if root is None or len(model.regions[root]) < 2:
            return None
        groups[root].members[fid] = halo
        site_of[fid] = (root, halo)
    return groups


# The largest expression inlining may build, in ops and loads: beyond it, compile time grows
# and recursive passes (WGSL legalization) run out of stack, for little gain.
MAX_INLINED_SIZE = 120
# On WebGPU an inlined Func saves a dispatch and a buffer's round trip through memory, so a
# larger expression is worth it: the bilateral grid's slice (about 180 ops and loads as counted
# here, read twice by the output) inlined ran 3x faster on lavapipe than computed at root.
MAX_INLINED_SIZE_GPU = 400


def _too_large(model: CostModel, order, choices) -> bool:
    size: dict[int, float] = {}
    for fn in order:  # producers first
        node = model.nodes[id(fn)]
        # a Func that indexes reads is inlined whatever its size (see graph.Node.feeds_index)
        size[id(fn)] = 1.0 if node.feeds_index and choices[id(fn)] == INLINE else node.ops + sum(
            r.count * (size.get(id(r.producer), 1.0) if choices.get(id(r.producer)) == INLINE
                       else 1.0) for r in node.reads)
        own = node.ops + sum(r.count for r in node.reads)
        if size[id(fn)] > max(MAX_INLINED_SIZE_GPU if model.m.gpu else MAX_INLINED_SIZE, own):
            return True
    return False


def evaluate(model: CostModel, order, choices, forced_rows: dict[int, int] | None = None
             ) -> tuple[float, dict[int, int], dict] | None:
    """(modelled ns, strip rows per group root, groups) of `choices`, each group's rows the
    model's best unless `forced_rows` gives them; None where the choices are not valid."""
    groups = resolve(model, order, choices)
    if groups is None or _too_large(model, order, choices):
        return None
    total, rows = 0.0, {}
    for gid, g in groups.items():
        if model.m.gpu:  # one dispatch, not split into strips
            c = model.group_cost(g, choices, 0)
            if c is None:
                return None
            total += c  # its buffer's reads are its consumers' (cost._footprint)
            rows[gid] = 0
            continue
        best = None
        candidates = (0,) if len(model.regions[gid]) < 2 else ROWS
        if forced_rows and gid in forced_rows:
            candidates = (forced_rows[gid],)
        for r in candidates:
            if r and r >= model.regions[gid][1][1]:
                continue
            c = model.group_cost(g, choices, r)
            if best is None or c < best[0]:
                best = (c, r)
        if best is None:
            best = (model.group_cost(g, choices, 0), 0)
        if g.members and not best[1]:
            return None  # a root too small to split into strips has none to fuse into
        if not g.members and not model.nodes[gid].is_output:
            best = (best[0] + model.root_read_traffic(gid), best[1])
        total += best[0]
        rows[gid] = best[1]
    return total, rows, groups


def _options(model: CostModel, node) -> list[str]:
    """The choices a Func may take."""
    if model.m.gpu:
        return [ROOT] + ([INLINE, SHARED] if node.inlinable else [])
    return [ROOT] + ([INLINE] if node.inlinable else []) + \
        ([] if node.has_updates else [STRIP, SLIDE])


# The least improvement a change must bring to be taken, in ns: a fixed amount, not a share of
# the total (a share of 0.1% grew with the image: at 4096x4096 the local Laplacian's modelled
# 225 ms refused every change worth less than 225 us, so five dispatches' fixed cost, and 23
# boundary-condition copies stayed compute_root that at 1024x1024 were inlined). On WebGPU
# only for now: the CPU machines keep the share (their local Laplacian schedules would change,
# not yet measured).
MIN_GAIN_NS = 100.0


def search(model: CostModel, order: list[Function], passes: int = 4) -> Decision:
    """Greedy improvement of per-Func choices until a pass changes nothing."""
    choices = {id(fn): (ROOT if not model.nodes[id(fn)].inlinable else INLINE)
               for fn in order}
    for fn in order:
        if model.nodes[id(fn)].is_output:
            choices[id(fn)] = ROOT
    found = evaluate(model, order, choices)
    if found is None:  # everything inlined is too large: start from compute_root instead
        choices = {k: (INLINE if model.nodes[k].feeds_index and model.nodes[k].inlinable
                       else ROOT) for k in choices}
        found = evaluate(model, order, choices)
    if found is None:
        choices = {k: ROOT for k in choices}
        found = evaluate(model, order, choices)
    best_cost = found[0]
    for _ in range(passes):
        changed = False
        for fn in reversed(order):
            node = model.nodes[id(fn)]
            if node.is_output:
                continue
            if node.feeds_index and choices[id(fn)] == INLINE:
                continue  # stays inlined (see graph.Node.feeds_index)
            options = _options(model, node)
            for option in options:
                if option == choices[id(fn)]:
                    continue
                trial = dict(choices)
                trial[id(fn)] = option
                got = evaluate(model, order, trial)
                gain = MIN_GAIN_NS if model.m.gpu else best_cost * 0.001
                if got is not None and got[0] < best_cost - gain:
                    choices, best_cost, changed = trial, got[0], True
        if not changed:
            break
    cost, rows, groups = evaluate(model, order, choices)
    return Decision(choices, rows, groups, cost)


# Variants measured tuning may try beside the model's pick: vectors twice as wide on the CPU
# (more independent work per loop iteration), other GPU tile shapes of at most 256
# invocations. The model does not rank these, so they come right after the pick.
CPU_KNOBS = ({"lanes": 2},)
GPU_KNOBS = ({"tile": (32, 8)}, {"tile": (8, 8)}, {"tile": (64, 4)}, {"tile": (8, 32)})


def alternatives(model: CostModel, order: list[Function], best: Decision) -> list[Decision]:
    """Decisions near `best`, by modelled cost (best itself first): `best` with another
    knob, each single Func's other valid choice, each group's strips half or twice as tall.
    Measured tuning (tune.py) runs the first few and keeps the fastest."""
    out = [best]
    knobs = GPU_KNOBS if model.m.gpu else CPU_KNOBS
    for k, knob in enumerate(knobs):
        out.append(Decision(best.choices, best.rows, best.groups, best.cost * (1 + 1e-6 * (k + 1)),
                            dict(knob)))
    others = []
    for fn in reversed(order):
        node = model.nodes[id(fn)]
        if node.is_output or (node.feeds_index and best.choices[id(fn)] == INLINE):
            continue
        options = _options(model, node)
        for option in options:
            if option == best.choices[id(fn)]:
                continue
            trial = dict(best.choices)
            trial[id(fn)] = option
            got = evaluate(model, order, trial)
            if got is not None:
                others.append(Decision(trial, got[1], got[2], got[0]))
    for gid, rows in best.rows.items():
        height = model.regions[gid][1][1] if len(model.regions[gid]) > 1 else 1
        for r in (rows // 2, rows * 2):
            if rows and r in ROWS and r < height:
                got = evaluate(model, order, best.choices, {**best.rows, gid: r})
                if got is not None:
                    others.append(Decision(best.choices, got[1], got[2], got[0]))
    others.sort(key=lambda d: d.cost)
    return out + others
