"""The device runtime a compiled pipeline's `webhal_gpu_*` calls reach: WebGPU (wgpu-py) for
WGSL kernels, Vulkan for SPIR-V ones. Both implement the same calls (docs/abi.md, "GPU
calls"), so the host code and its runners do not know which one answers."""

from __future__ import annotations

from webhal.ir.schedule import DeviceAPI


def device_runtime(device: dict, memory, profile: bool = False):
    """The runtime for a compiled pipeline's device code (codegen.Compiled.device), or None
    when it has no kernels. `memory` reads and writes the host side of buffers; `profile` (the
    target's feature) times kernels and copies into the profiler."""
    if DeviceAPI.WebGPU in device:
        from webhal.runtime.webgpu import WebGPURuntime
        return WebGPURuntime(*device[DeviceAPI.WebGPU], memory, profile=profile)
    if DeviceAPI.Vulkan in device:
        from webhal.runtime.vulkan import VulkanRuntime
        return VulkanRuntime(*device[DeviceAPI.Vulkan], memory, profile=profile)
    return None


def host_supports_target_device(target) -> bool:
    """Whether this machine can run `target`'s GPU API (a WebGPU adapter for webgpu, a
    Vulkan device for vulkan), as Halide's function of that name; True without a GPU
    feature, False for GPU APIs webhal has no runtime for."""
    from webhal.target import Target
    t = Target(target) if isinstance(target, str) else target
    if not t.has_gpu_feature():
        return True
    try:
        if t.has_feature("webgpu"):
            from webhal.runtime.webgpu import device
            device()
            return True
        if t.has_feature("vulkan"):
            from webhal.runtime.vulkan import context
            context()
            return True
    except Exception:  # no adapter or driver: the answer is no, not an error
        return False
    return False
