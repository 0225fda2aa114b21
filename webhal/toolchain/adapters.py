"""WebGPU adapters, really asked for: what a runtime reports when a program requests one."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from webhal.errors import ToolchainError
from webhal.toolchain.cache import cached
from webhal.toolchain.process import json_reply, private_runtime_dir, run_tool, tool_env
from webhal.toolchain.webgpu import WGPU_HINT, find_wgpu_native, wgpu_native_env

ADAPTER_FIELDS = ("vendor", "architecture", "device", "description")


@dataclass(frozen=True)
class AdapterInfo:
    """A WebGPU adapter's GPUAdapterInfo, plus what the runtime adds (backend, type)."""

    runtime: str
    vendor: str = ""
    architecture: str = ""
    device: str = ""
    description: str = ""
    backend: str = ""
    adapter_type: str = ""

    @classmethod
    def from_dict(cls, runtime: str, info: dict) -> AdapterInfo:
        known = ADAPTER_FIELDS + ("backend", "adapter_type")
        return cls(runtime=runtime, **{k: str(info.get(k) or "") for k in known})

    def summary(self) -> str:
        """One human line, e.g. "llvmpipe; llvmpipe (LLVM 15.0.6, 256 bits); Mesa 22.3.6 ...;
        Vulkan CPU" or "google swiftshader" (browsers may hide device and description)."""
        parts = [" ".join(x for x in (self.vendor, self.architecture) if x), self.device,
                 self.description, " ".join(x for x in (self.backend, self.adapter_type) if x)]
        unique = [p for i, p in enumerate(parts) if p and p not in parts[:i]]
        return "; ".join(unique) or "unnamed adapter"


# Run in a child process: wgpu-native prints to stderr and a driver crash must not take the
# caller with it.
_WGPU_PROBE = """
import json, wgpu
adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
if adapter is None:
    print(json.dumps(None))
else:
    info = adapter.info
    print(json.dumps({k: info.get(k, "") for k in
                      ("vendor", "architecture", "device", "description", "backend_type",
                       "adapter_type")}))
"""


@cached
def wgpu_adapter_info(timeout_s: float = 60) -> AdapterInfo:
    """The adapter wgpu-py (wgpu-native) gets in a fresh process, e.g. lavapipe's "llvmpipe".

    Raises ToolchainError when wgpu is missing or no adapter is offered."""
    find_wgpu_native()
    env = tool_env({**wgpu_native_env(), "XDG_RUNTIME_DIR": private_runtime_dir()})
    result = run_tool([sys.executable, "-c", _WGPU_PROBE], env=env, timeout_s=timeout_s,
                      what="wgpu-py adapter request", hint=WGPU_HINT)
    info = json_reply(result, "wgpu-py adapter request")
    if info is None:
        raise ToolchainError("wgpu-py found no WebGPU adapter", output=result.stderr,
                             hint="apt-get install mesa-vulkan-drivers libvulkan1 (lavapipe)")
    info["backend"] = info.pop("backend_type", "")
    return AdapterInfo.from_dict("wgpu-py", info)

