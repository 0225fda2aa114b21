"""webhal's autoscheduler, built for the web's two machines (wasm SIMD128 with a worker pool,
and WebGPU) and for the host.

    p = hl.Pipeline(out)
    out.set_estimates([(0, 1536), (0, 1024)]); image.set_estimates([(0, 1538), (0, 1026)])
    result = p.apply_autoscheduler(target, hl.AutoschedulerParams("Webhal"))
    print(result.schedule_source)   # Python to paste: apply_schedule(pipeline)

Modules: `targets` (what each machine costs), `graph` (who reads whom, as stencils or
gathers), `regions` (sizes from the estimates), `cost` (the model), `search` (the choices),
`plan` (directives, applied or printed). Halide's autoscheduler names are aliases of webhal's
own (see NAMES); none of Halide's code is used.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from webhal.autoschedule.cost import CostModel
from webhal.autoschedule.graph import build_graph
from webhal.autoschedule.plan import Directive, apply, directives, source
from webhal.autoschedule.regions import (
    check_input_estimates,
    fixed_extents,
    image_env,
    output_region,
    regions,
)
from webhal.autoschedule.search import Decision, search
from webhal.autoschedule.targets import Machine, machine_for
from webhal.autoschedule.tune import tune_count
from webhal.errors import CompileError, SourceLocation
from webhal.target import Target

NAME = "Webhal"
# Halide's autoschedulers, accepted as aliases: each runs webhal's own search. The parameters
# each takes that webhal honours (others are refused as not supported).
ALIASES = {"Mullapudi2016": NAME, "Adams2019": NAME, "Li2018": NAME, "Anderson2021": NAME}
NAMES = (NAME, *ALIASES)
PARAMETERS = {
    "parallelism": "workers to plan parallel loops for, exactly (default: the host's cores, "
                   "1 on wasm without threads; on wasm_threads, whose pool size is known only "
                   "at run time, the mean over pools of 2, 4, 8 and 16 workers)",
    "last_level_cache_size": "bytes of cache a worker's intermediates should fit in",
    "balance": "cost of moving one byte relative to one arithmetic op, times 10 "
               "(Mullapudi2016's balance)",
    "tune": "measure the model's N best candidates on the target's runtime and keep the "
            "fastest, cached by pipeline, target and sizes (see webhal.autoschedule.tune)",
}


@dataclass
class Autoschedule:
    """What one run of the autoscheduler chose, and how long it took."""

    plan: list[Directive]
    decision: Decision
    machine: Machine
    source: str
    seconds: float
    extra: dict = field(default_factory=dict)


def canonical_name(name: str, where: SourceLocation | None = None) -> str:
    if name in (NAME, *ALIASES):
        return NAME
    raise CompileError(f"Unknown autoscheduler {name!r}: webhal has {NAME} (and Halide's "
                       f"names {', '.join(ALIASES)} as aliases of it)", where)


def _machine(target: Target, extra: dict, name: str, where) -> Machine:
    import dataclasses
    for k in extra:
        if k not in PARAMETERS:
            raise CompileError(
                f"autoscheduler parameter {k!r} is not supported by webhal's autoscheduler "
                f"({name}); it takes {', '.join(PARAMETERS)}", where)
    parallelism = int(extra["parallelism"]) if "parallelism" in extra else None
    m = machine_for(target, parallelism)
    if "last_level_cache_size" in extra:
        m = dataclasses.replace(m, cache_bytes=int(extra["last_level_cache_size"]))
    if "balance" in extra:
        m = dataclasses.replace(m, byte_ns=float(extra["balance"]) / 10 * m.op_ns)
    return m


def check_unscheduled(functions, outputs, where) -> None:
    """Halide's autoschedulers schedule pipelines that have none: a Func already scheduled
    is a named error."""
    out_ids = {id(f) for f in outputs}
    for fn in functions:
        s = fn.schedule
        placed = not s.compute_level.is_inlined() and not (
            id(fn) in out_ids or fn.is_tuple and s.compute_level.is_root())
        staged = any(d.schedule.scheduled or d.specializations for d in fn.definitions)
        if placed or staged:
            what = f"computed at {s.compute_level}" if placed else "given loop directives"
            raise CompileError(
                f"Autoscheduler: Func {fn.name} already has a schedule ({what}); "
                f"apply_autoscheduler schedules a pipeline that has none: remove its schedule "
                f"(in a generator, schedule only `if not self.using_autoscheduler()`)", where)


def unscheduled_warning(functions, outputs, generator: str) -> str | None:
    """The warning an AOT build of a generator with no schedule at all gets (None when some
    Func is scheduled): what it costs and how to autoschedule it."""
    try:
        check_unscheduled(functions, outputs, None)
    except CompileError:
        return None
    return (f"Warning: generator {generator} has no schedule and no autoscheduler: every Func "
            "is computed inline, on one thread, without vectors. Autoschedule it with "
            f"autoscheduler={NAME} (on the generator command line, or `webhal build "
            "--autoschedule`), with estimates of its inputs and outputs given in generate() "
            "(set_estimates), or schedule it in generate().")


def autoschedule(functions, outputs, images: dict, target: Target, name: str,
                 extra: dict | None = None, where: SourceLocation | None = None
                 ) -> Autoschedule:
    """Choose a schedule for Functions `functions` (producers first) computing `outputs`."""
    start = time.perf_counter()
    extra = dict(extra or {})
    asked = name
    canonical_name(name, where)
    check_unscheduled(functions, outputs, where)
    check_input_estimates(images, where)
    out_regions = {id(o): output_region(o, where) for o in outputs}
    machine = _machine(target, extra, asked, where)
    nodes = build_graph(functions, outputs)
    env = image_env(images)
    sizes = regions(nodes, functions, out_regions, env)
    model = CostModel(nodes, sizes, machine)
    model.fixed = fixed_extents(nodes, functions, out_regions, env, sizes)
    decision = search(model, functions)
    plan = directives(model, functions, decision)
    header = (f"# Schedule chosen by webhal's autoscheduler ({asked}) for target "
              f"{target}, machine {machine.name}: modelled {decision.cost / 1e6:.3f} ms.")
    count = tune_count(extra, where)
    if count:
        plan, decision, note = _tuned(model, functions, outputs, images, target,
                                      [out_regions[id(o)] for o in outputs], decision, count,
                                      extra, where)
        header += "\n" + note
    text = source(plan, header)
    return Autoschedule(plan, decision, machine, text, time.perf_counter() - start, extra)


def _tuned(model, functions, outputs, images, target, out_regions, decision, count, extra,
           where) -> tuple[list[Directive], Decision, str]:
    """tune=N: the fastest of the model's first `count` distinct candidates on the target's
    runtime (tune.py), with a comment line saying what was measured or taken from the cache."""
    from webhal.autoschedule.search import alternatives
    from webhal.autoschedule.tune import plan_key, tune
    from webhal.lower import gather_inputs
    candidates, seen = [], set()
    for d in alternatives(model, functions, decision):
        plan = directives(model, functions, d)
        k = plan_key(plan)
        if k not in seen:
            seen.add(k)
            candidates.append((plan, d))
        if len(candidates) == count:
            break
    _, params = gather_inputs(functions)
    chosen, info = tune(candidates, functions, outputs, images, params, target, out_regions,
                        extra, where)
    plan, d = candidates[chosen]
    times = ", ".join("failed" if t is None else f"{t:.3f}" for t in info["times_ms"])
    how = f"from the cache {info['cached']}" if "cached" in info else "measured now"
    what = f"knobs {d.knobs}" if d.knobs else ("the model's pick" if chosen == 0 else
                                                f"modelled {d.cost / 1e6:.3f} ms")
    note = (f"# Tuned (tune={count}, {how}): candidate {chosen} of {len(candidates)} "
            f"({what}); median ms per candidate: {times}.")
    extra["tuned"] = info
    return plan, d, note


__all__ = ["ALIASES", "NAME", "NAMES", "Autoschedule", "apply", "autoschedule",
           "canonical_name"]
