"""Schedules: what each directive records, and the checks made when it is given.

A stage's loops are kept innermost first, as Halide keeps them. Directives that need the whole
pipeline (compute_at sites, GPU nesting) are checked when the pipeline is lowered or printed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from webhal.errors import ScheduleError, SourceLocation


class Partition(enum.Enum):
    """Whether a loop is split into a steady state and edges where boundary conditions are
    known (Halide's loop partitioning): Auto where a vectorized loop is inside, Never, or
    Always (wherever the loop has bounds to partition on)."""

    Auto = "auto"
    Never = "never"
    Always = "always"


class TailStrategy(enum.Enum):
    """What a split does when the factor does not divide the extent."""

    Auto = "auto"
    RoundUp = "round_up"
    GuardWithIf = "guard_with_if"
    ShiftInwards = "shift_inwards"
    Predicate = "predicate"
    PredicateLoads = "predicate_loads"
    PredicateStores = "predicate_stores"
    RoundUpAndBlend = "round_up_and_blend"
    ShiftInwardsAndBlend = "shift_inwards_and_blend"


class ForType(enum.Enum):
    Serial = "for"
    Parallel = "parallel"
    Vectorized = "vectorized"
    Unrolled = "unrolled"
    GPUBlock = "gpu_block"
    GPUThread = "gpu_thread"


class MemoryType(enum.Enum):
    Auto = "auto"
    Heap = "heap"
    Stack = "stack"
    Register = "register"
    GPUShared = "gpu_shared"
    GPUTexture = "gpu_texture"
    LockedCache = "locked_cache"
    VTCM = "vtcm"
    AMXTile = "amx_tile"


class DeviceAPI(enum.Enum):
    """Where a loop runs. webhal has backends for WebGPU and Vulkan; Halide's other GPU APIs
    are named (so targets can be asked about them) and refused in schedules by name."""

    None_ = "none"
    Host = "host"
    Default_GPU = "default_gpu"
    WebGPU = "webgpu"
    Vulkan = "vulkan"
    CUDA = "cuda"
    OpenCL = "opencl"
    Metal = "metal"
    D3D12Compute = "d3d12compute"


@dataclass
class Dim:
    """One loop of a stage."""

    name: str
    for_type: ForType = ForType.Serial
    is_rvar: bool = False
    device_api: DeviceAPI = DeviceAPI.None_
    partition: Partition = Partition.Auto

    @property
    def is_pure(self) -> bool:
        return not self.is_rvar


@dataclass(frozen=True)
class Split:
    old: str
    outer: str
    inner: str
    factor: Any  # an IR Expr
    tail: TailStrategy
    where: SourceLocation | None = None


@dataclass(frozen=True)
class Fuse:
    inner: str
    outer: str
    fused: str


@dataclass
class StageSchedule:
    """Loops (innermost first) and the splits/fuses that made them from the definition's vars."""

    dims: list[Dim]
    splits: list[Split | Fuse] = field(default_factory=list)
    where: SourceLocation | None = None  # of the latest gpu_* directive, checked at lowering
    scheduled: bool = False    # a directive was given (split, reorder, vectorize, ...)
    unscheduled: bool = False  # Stage.unscheduled(): left as it is on purpose
    atomic: bool = False       # Stage.atomic(): its RVar loops may be parallel or vectorized

    def dim_index(self, name: str) -> int:
        for i, d in enumerate(self.dims):
            if d.name == name:
                return i
        return -1

    def dim_names(self) -> list[str]:
        return [d.name for d in self.dims]


class LoopLevel:
    """Where a Func is computed or stored: root, inlined, or a loop of another Func's stage."""

    def __init__(self, func=None, var=None, stage_index: int = -1, *, _kind: str = "at"):
        self.kind = _kind
        self.func = func      # the Func whose loop it is
        self.var = var        # that loop's name
        self.stage_index = stage_index

    @staticmethod
    def root() -> LoopLevel:
        return LoopLevel(_kind="root")

    @staticmethod
    def inlined() -> LoopLevel:
        return LoopLevel(_kind="inlined")

    def is_root(self) -> bool:
        return self.kind == "root"

    def is_inlined(self) -> bool:
        return self.kind == "inlined"

    def var_name(self) -> str:
        return self.var if isinstance(self.var, str) else self.var.name()

    def function(self):
        return self.func._function

    def func_name(self) -> str:
        return self.func._function.name

    def __str__(self) -> str:
        if self.kind != "at":
            return self.kind
        return f"{self.func_name()}.{self.var_name()}"

    def __eq__(self, other) -> bool:
        if not isinstance(other, LoopLevel) or self.kind != other.kind:
            return False
        if self.kind != "at":
            return True
        return self.func_name() == other.func_name() and self.var_name() == other.var_name()

    __hash__ = object.__hash__


@dataclass
class FuncSchedule:
    """Choices that belong to the whole Func rather than one stage."""

    compute_level: LoopLevel = field(default_factory=LoopLevel.inlined)
    store_level: LoopLevel = field(default_factory=LoopLevel.inlined)
    memory_type: MemoryType = MemoryType.Auto
    bounds: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # var -> (min, extent)
    # Func.set_estimate(s): (pure var name, min, extent) per estimated Var, in the order given
    # (a Var estimated again keeps its place, with the new values); min or extent may be None
    # (not given). Int32 IR Exprs. Read by autoschedulers only: lowering ignores them.
    estimates: list[tuple[str, Any, Any]] = field(default_factory=list)
    storage_order: list[str] | None = None
    where: SourceLocation | None = None  # of the latest compute_* directive
    trace: set[str] = field(default_factory=set)  # of "stores", "loads", "realizations"
    # Wrapper Functions made by Func.in_: by id of the consumer Function, None for all of them.
    wrappers: dict[int | None, Any] = field(default_factory=dict)
    memoized: bool = False  # Func.memoize(): recorded; webhal computes every time (no cache)
    is_async: bool = False  # Func.async_(): recorded; computed in order, as without it


def schedule_error(message: str, where: SourceLocation | None) -> ScheduleError:
    return ScheduleError(message, where)
