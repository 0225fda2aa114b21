"""Halide's Python interface to autoschedulers: AutoschedulerParams, AutoSchedulerResults and
load_plugin. Pipeline.apply_autoscheduler (webhal/lang/pipeline.py) runs webhal's search."""

from __future__ import annotations

import os
import re

from webhal.autoschedule import ALIASES, NAME
from webhal.errors import CompileError, user_location


class AutoschedulerParams:
    """An autoscheduler's name and its parameters as strings:
    `hl.AutoschedulerParams("Mullapudi2016", {"parallelism": 4})`."""

    def __init__(self, name: str = "", extra: dict | None = None):
        self.name = str(name)
        self.extra = {str(k): str(v) for k, v in (extra or {}).items()}

    def __repr__(self):
        return "<halide.AutoschedulerParams>"


class AutoSchedulerResults:
    """What apply_autoscheduler gives back: the target, the params, and `schedule_source`,
    Python defining `apply_schedule(pipeline)` that applies the same schedule by hand.
    `featurization` is Halide's Adams2019 training data: empty in webhal."""

    def __init__(self, target, autoscheduler_params, schedule_source: str, seconds: float):
        self.target = target
        self.autoscheduler_params = autoscheduler_params
        self.schedule_source = schedule_source
        self.featurization = b""
        self.seconds = seconds  # webhal's: how long the search took

    def __repr__(self):
        return "<halide.AutoSchedulerResults>"


_PLUGIN = re.compile(r"^(lib)?autoschedule_(mullapudi2016|adams2019|li2018|anderson2021)"
                     r"(\.so|\.dylib|\.dll)?$", re.IGNORECASE)


def load_plugin(lib_name: str) -> None:
    """Halide loads an autoscheduler plugin; webhal's autoscheduler is built in and answers to
    Halide's names, so loading one of Halide's plugins (by name or path) changes nothing."""
    base = os.path.basename(str(lib_name))
    if _PLUGIN.match(base):
        return
    raise CompileError(f"load_plugin({lib_name!r}): webhal loads no plugins; its "
                       f"autoscheduler {NAME} is built in, also under Halide's names "
                       f"{', '.join(ALIASES)} (their plugins, libautoschedule_*.so, may be "
                       "named here and are not needed)", user_location())
