"""What every lowering pass may consult (and none writes): the pipeline's Functions, inputs,
outputs and target. Results travel in the statement a pass returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from webhal.ir.function import Function
from webhal.ir.schedule import LoopLevel


@dataclass
class LowerContext:
    outputs: list[Function]
    functions: list[Function]              # producers before consumers
    target: object
    inputs: dict[str, object] = field(default_factory=dict)   # name -> ImageParam or Buffer
    params: dict[str, object] = field(default_factory=dict)   # name -> Param

    def is_output(self, fn: Function) -> bool:
        return any(fn is o for o in self.outputs)

    def function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name:
                return f
        return None

    def compute_level(self, fn: Function) -> LoopLevel:
        """Where fn is computed; outputs at root, and Funcs with updates that were left inline
        at root too (they cannot be inlined)."""
        if self.is_output(fn):
            return LoopLevel.root()
        level = fn.schedule.compute_level
        if level.is_inlined() and fn.updates:
            return LoopLevel.root()
        return level

    def store_level(self, fn: Function) -> LoopLevel:
        level = fn.schedule.store_level
        compute = self.compute_level(fn)
        if level.is_inlined() or compute.is_root():
            return compute
        return level

    def is_inlined(self, fn: Function) -> bool:
        return self.compute_level(fn).is_inlined()
