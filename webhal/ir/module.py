"""What lowering returns: the host statement, the GPU kernels grouped by device API, and the
entry function's arguments. Code generation reads only this; nothing travels beside it."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.schedule import DeviceAPI
from webhal.ir.types import Type
from webhal.ir.visitor import walk


@dataclass(frozen=True)
class GPULoop:
    """One GPU block loop of a kernel: the workgroup id along one axis runs over [min, min +
    extent)."""

    name: str
    min: ir.Expr
    extent: ir.Expr


@dataclass(frozen=True, eq=False)
class Kernel:
    """One compute entry point. `body` is what runs in each workgroup: code common to the
    workgroup (lets, shared allocations) around one or more nests of GPU thread loops, which
    stay in it as For loops of ForType.GPUThread (each backend maps them to invocation ids).

    A kernel travels inside the host statement, in the GPULaunch that runs it; host passes do
    not descend into its body."""

    name: str
    blocks: tuple[GPULoop, ...]    # innermost first (x, y, z)
    body: st.Stmt
    workgroup: tuple[int, int, int] = (1, 1, 1)
    scalars: tuple[tuple[str, Type], ...] = ()
    buffers: dict[str, tuple[Type, bool, bool]] = field(default_factory=dict)  # reads, writes
    shared: dict[str, tuple[Type, int]] = field(default_factory=dict)  # workgroup memory
    local: dict[str, tuple[Type, int]] = field(default_factory=dict)  # each invocation's own
    buffer_ids: dict[str, int] = field(default_factory=dict)  # the pipeline's device buffers
    device_api: DeviceAPI = DeviceAPI.WebGPU
    # Buffers accessed as whole vectors of this many elements (passes/vector_buffers.py)
    vector_buffers: dict[str, int] = field(default_factory=dict)

    def workgroup_size(self) -> tuple[int, int, int]:
        return self.workgroup


@dataclass(frozen=True, eq=False)
class Module:
    """A lowered pipeline.

    `body` is the entry function's statement; `arguments` are its inputs in order (ImageParams,
    Buffers and Params), followed by one buffer per Function in `outputs`. `images` and `params`
    are the inputs the definitions read (for checking a caller's argument list)."""

    name: str
    target: object
    body: st.Stmt
    arguments: tuple
    outputs: tuple
    images: dict[str, object] = field(default_factory=dict)
    params: dict[str, object] = field(default_factory=dict)

    @functools.cached_property
    def kernels(self) -> dict[DeviceAPI, tuple[Kernel, ...]]:
        """The GPU kernels by device API, each in launch-id order."""
        found: dict[int, Kernel] = {}
        for n in walk(self.body):
            if isinstance(n, st.GPULaunch):
                found[n.kernel_id] = n.kernel
        grouped: dict[DeviceAPI, list[Kernel]] = {}
        for i in sorted(found):
            grouped.setdefault(found[i].device_api, []).append(found[i])
        return {api: tuple(ks) for api, ks in grouped.items()}

    def device_buffers(self) -> dict[str, int]:
        """Buffers that live on a GPU, by name, with their runtime ids."""
        ids: dict[str, int] = {}
        for kernels in self.kernels.values():
            for k in kernels:
                ids.update(k.buffer_ids)
        return dict(sorted(ids.items(), key=lambda kv: kv[1]))

    @property
    def has_kernels(self) -> bool:
        return any(isinstance(n, st.GPULaunch) for n in walk(self.body))
