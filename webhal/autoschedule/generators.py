"""Autoscheduling a generator that carries hand schedules: its schedules removed, estimates
of a given image size set, then webhal's autoscheduler applied. The demo pages build their
autoscheduled variants this way (beside the hand-scheduled ones), and the autoschedule
benchmark its demo pipelines."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


def clear_schedules(pipeline) -> None:
    """Remove every schedule of the pipeline's Funcs (a demo's generator schedules as it
    defines): each Func back to inline, each stage's loops back to its definition's. The
    estimates stay."""
    from webhal.ir.schedule import Dim, FuncSchedule, StageSchedule
    for fn in pipeline.functions():
        fn.schedule = FuncSchedule(estimates=list(getattr(fn.schedule, "estimates", [])))
        for i, d in enumerate(fn.definitions):
            dims = []
            if i and d.rdom is not None:
                dims = [Dim(d.rdom.var_name(k), is_rvar=True) for k in range(len(d.rdom.mins))]
            dims += [Dim(n) for k, n in enumerate(fn.pure_args)
                     if i == 0 or getattr(d.args[k], "name", None) == n]
            d.schedule = StageSchedule(dims)
            d.specializations = []
            d.specialize_fail = None


def set_image_estimates(pipeline, inputs, size: tuple[int, int], margin: int = 0,
                        scalars: dict | None = None) -> None:
    """Estimates for an image pipeline: every input image (x, y[, c]) of `size` (width,
    height), every output `margin` pixels smaller in x and y, a third dimension of 3
    (planar colour), each scalar input at `scalars[name]` (else its current value)."""
    from webhal.lang.param import ImageParam
    w, h = size
    for f in pipeline.outputs():
        extra = [(0, 3)] if f.dimensions() == 3 else []
        f.set_estimates([(0, w - margin), (0, h - margin)] + extra)
    for a in inputs:
        if isinstance(a, ImageParam):
            extra = [(0, 3)] if a.dimensions() == 3 else []
            a.set_estimates([(0, w), (0, h)] + extra)
        elif hasattr(a, "set_estimate"):
            a.set_estimate((scalars or {}).get(a.name(), a.get()))


@dataclass
class AutoscheduledGenerator:
    """make(target) for npm_package.build_package: the generator's pipeline for `target`,
    unscheduled, then autoscheduled for an image of `size`. `sources` and `seconds` record,
    per target, the schedule chosen (schedule_source) and how long choosing it took."""

    cls: type
    size: tuple[int, int]
    margin: int = 0
    scalars: dict = field(default_factory=dict)
    name: str = "Webhal"
    extra: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)

    def __call__(self, target):
        from webhal.autoschedule.interface import AutoschedulerParams
        from webhal.lang.generator import GeneratorContext
        from webhal.target import Target

        with GeneratorContext(Target(target)):
            g = self.cls()
            pipeline = g.build_pipeline()
            inputs = g.inputs()
        clear_schedules(pipeline)
        set_image_estimates(pipeline, inputs, self.size, self.margin, self.scalars)
        start = time.perf_counter()
        result = pipeline.apply_autoscheduler(Target(target),
                                              AutoschedulerParams(self.name, self.extra))
        self.seconds[str(target)] = time.perf_counter() - start
        self.sources[str(target)] = result.schedule_source
        return pipeline, inputs
