"""The device runtime a compiled pipeline's `webhal_gpu_*` calls reach: WebGPU (wgpu-py) for
WGSL kernels, Vulkan for SPIR-V ones. Both implement the same calls (docs/abi.md, "GPU
calls"), so the host code and its runners do not know which one answers."""

from __future__ import annotations

from webhal.ir.schedule import DeviceAPI


def device_runtime(device: dict, memory):
    """The runtime for a compiled pipeline's device code (codegen.Compiled.device), or None
    when it has no kernels. `memory` reads and writes the host side of buffers."""
    if DeviceAPI.WebGPU in device:
        from webhal.runtime.webgpu import WebGPURuntime
        return WebGPURuntime(*device[DeviceAPI.WebGPU], memory)
    if DeviceAPI.Vulkan in device:
        from webhal.runtime.vulkan import VulkanRuntime
        return VulkanRuntime(*device[DeviceAPI.Vulkan], memory)
    return None
