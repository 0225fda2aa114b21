"""What every GPU backend's manifest says of its buffers: one entry per buffer the kernels
touch (`name`, runtime `id`, element `type`, `read_only` unless some kernel writes it), bound
at `binding` 0, 1, ... in id order. The backends add what their language needs (packing)."""

from __future__ import annotations

from webhal.ir.module import Kernel


def buffer_entries(kernels: list[Kernel], buffer_ids: dict[str, int]) -> dict[str, dict]:
    """The manifest's buffer entries by name, bindings assigned."""
    buffers: dict[str, dict] = {}
    for k in kernels:
        for name, (t, _reads, writes) in k.buffers.items():
            b = buffers.setdefault(name, {"name": name, "id": buffer_ids[name],
                                          "type": str(t), "read_only": True})
            b["read_only"] = b["read_only"] and not writes
    for binding, b in enumerate(sorted(buffers.values(), key=lambda b: b["id"])):
        b["binding"] = binding
    return buffers
