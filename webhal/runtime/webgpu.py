"""The WebGPU half of webhal's Python runtime (wgpu-py): one device per process; per pipeline a
shader module, compute pipelines and bind groups created once and reused on every run; device
buffers kept in step with host memory through dirty flags, as Halide's buffers are.

`memory` reads and writes the host side: host JIT pointers or offsets in a wasm memory.
"""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass

import numpy as np

from webhal import abi
from webhal.errors import CompileError, HalideError
from webhal.runtime.profiler import PROFILER


@functools.cache
def device():
    """The process's WebGPU device (wgpu-py on the best adapter it finds), with shader-f16
    and timestamp-query (for the profiler) when the adapter has them."""
    import wgpu
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    if adapter is None:
        from webhal.toolchain.webgpu import LAVAPIPE_HINT

        raise HalideError("no WebGPU adapter: install a Vulkan driver (a GPU's, or Mesa's "
                          f"lavapipe: {LAVAPIPE_HINT})")
    wanted = [f for f in ("shader-f16", "timestamp-query") if f in adapter.features]
    return adapter.request_device_sync(required_features=wanted)


def adapter_name() -> str:
    return device().adapter.info.get("device", "?")


@dataclass
class DeviceBuffer:
    gpu: object
    nbytes: int         # on the device: a multiple of 4
    host_bytes: int = 0  # in host memory
    host: int = 0
    host_newer: bool = False
    device_newer: bool = False


class WebGPURuntime:
    """Runs one pipeline's kernels. `memory` has read(address, nbytes) -> bytes and
    write(address, data). With `profile` (the target's feature), each dispatch and copy is
    waited for and timed into the profiler: kernels by timestamp queries where the device has
    `timestamp-query`, else by the wall clock from submission to the queue's completion."""

    API = "WebGPU"  # names the runtime in its errors

    def __init__(self, wgsl: str, manifest: dict, memory, profile: bool = False):
        import wgpu
        self.wgpu = wgpu
        self.dev = device()
        self.wgsl, self.manifest, self.memory = wgsl, manifest, memory
        self.kernels = manifest["kernels"]
        missing = [f for f in manifest.get("features", []) if f not in self.dev.features]
        if missing:
            raise CompileError(f"the pipeline's kernels need the WebGPU feature {missing[0]}, "
                               f"which the adapter ({adapter_name()}) does not offer; use "
                               "float32 on the GPU")
        self.bindings = {b["id"]: b["binding"] for b in manifest["buffers"]}
        try:
            self.module = self.dev.create_shader_module(code=wgsl)
            self.pipelines = [self._pipeline(k) for k in self.kernels]
        except CompileError:
            raise
        except Exception as e:  # wgpu reports validation errors as exceptions
            raise CompileError(_shader_error(str(e), wgsl)) from None
        self.args = [self.dev.create_buffer(size=k["args_bytes"], usage=wgpu.BufferUsage.UNIFORM |
                                            wgpu.BufferUsage.COPY_DST)
                     if "args_binding" in k else None for k in self.kernels]
        self.buffers: dict[int, DeviceBuffer] = {}
        self.bind_groups: dict[tuple, object] = {}
        self.error: tuple[str, type] | None = None
        self.launches: list[tuple] = []  # this call's dispatches, for replay() in benchmarks
        self.profile = profile
        self.timestamps = None  # (query set, resolve buffer) when kernels are timed on the GPU
        if profile and "timestamp-query" in self.dev.features:
            usage = wgpu.BufferUsage
            self.timestamps = (self.dev.create_query_set(type="timestamp", count=2),
                               self.dev.create_buffer(size=16, usage=usage.QUERY_RESOLVE |
                                                      usage.COPY_SRC))

    def _pipeline(self, k: dict):
        size = k["workgroup_size"]
        limit = self.dev.limits.get("max-compute-invocations-per-workgroup", 256)
        if size[0] * size[1] * size[2] > limit:  # wgpu does not check override-sized ones
            raise CompileError(f"kernel {k['name']}'s workgroup {tuple(size)} has more "
                               f"invocations than the adapter ({adapter_name()}) allows "
                               f"({limit}); use smaller gpu_threads/gpu_tile sizes")
        constants = dict(zip(k["overrides"], size))
        return self.dev.create_compute_pipeline(
            layout="auto", compute={"module": self.module, "entry_point": k["name"],
                                    "constants": constants})

    # -- the calls host code makes -------------------------------------------------------------

    def buffer(self, buffer_id: int, host, nbytes: int, host_current: int) -> int:
        """A buffer exists at `host` (nbytes): keep (or make) its device copy."""
        b = self.buffers.get(buffer_id)
        size = max(4, -(-nbytes // 4) * 4)
        if b is None or b.nbytes != size:
            usage = self.wgpu.BufferUsage
            gpu = self.dev.create_buffer(size=size, usage=usage.STORAGE | usage.COPY_SRC |
                                         usage.COPY_DST)
            b = DeviceBuffer(gpu, size)
            self.buffers[buffer_id] = b
            self.bind_groups.clear()
        b.host = host if isinstance(host, int) else (host or 0)
        b.host_bytes = nbytes
        b.host_newer, b.device_newer = bool(host_current), False
        return 0

    def host_dirty(self, buffer_id: int) -> int:
        b = self.buffers[buffer_id]
        b.host_newer, b.device_newer = True, False
        return 0

    def copy_to_host(self, buffer_id: int) -> int:
        b = self.buffers[buffer_id]
        if b.device_newer:
            start = time.perf_counter_ns()
            data = self.dev.queue.read_buffer(b.gpu)
            self.memory.write(b.host, bytes(data)[:b.host_bytes])
            b.device_newer = False
            if self.profile:
                PROFILER.copy("to host", self._name(buffer_id), time.perf_counter_ns() - start)
        return 0

    def run(self, kernel: int, gx: int, gy: int, gz: int, args: bytes) -> int:
        k = self.kernels[kernel]
        limit = self.dev.limits.get("max-compute-workgroups-per-dimension", 65535)
        if max(gx, gy, gz) > limit:
            self.error = (f"kernel {k['name']} needs {gx}x{gy}x{gz} workgroups, more than the "
                          f"device allows per dimension ({limit}); use larger gpu_tile sizes",
                          HalideError)
            return abi.ERROR_CODES["device_run_failed"]
        if min(gx, gy, gz) <= 0:
            return 0
        ids = [bid for bid, binding in self.bindings.items() if binding in k["buffers"]]
        for bid in ids:
            b = self.buffers[bid]
            if b.host_newer:
                start = time.perf_counter_ns()
                data = self.memory.read(b.host, b.host_bytes).ljust(b.nbytes, b"\0")
                self.dev.queue.write_buffer(b.gpu, 0, data)
                b.host_newer = False
                if self.profile:
                    self._wait(b.gpu)
                    PROFILER.copy("to device", self._name(bid), time.perf_counter_ns() - start)
        if self.args[kernel] is not None:
            self.dev.queue.write_buffer(self.args[kernel], 0, args.ljust(k["args_bytes"], b"\0"))
        key = (kernel, *(id(self.buffers[bid].gpu) for bid in ids))
        group = self.bind_groups.get(key)
        if group is None:
            entries = [{"binding": self.bindings[bid], "resource": {"buffer":
                        self.buffers[bid].gpu}} for bid in ids]
            if self.args[kernel] is not None:
                entries.append({"binding": k["args_binding"],
                                "resource": {"buffer": self.args[kernel]}})
            group = self.dev.create_bind_group(
                layout=self.pipelines[kernel].get_bind_group_layout(0), entries=entries)
            self.bind_groups[key] = group
        encoder = self.dev.create_command_encoder()
        writes = None
        if self.timestamps is not None:
            writes = {"query_set": self.timestamps[0], "beginning_of_pass_write_index": 0,
                      "end_of_pass_write_index": 1}
        compute = encoder.begin_compute_pass(timestamp_writes=writes)
        compute.set_pipeline(self.pipelines[kernel])
        compute.set_bind_group(0, group)
        compute.dispatch_workgroups(gx, gy, gz)
        compute.end()
        if writes is not None:
            encoder.resolve_query_set(self.timestamps[0], 0, 2, self.timestamps[1], 0)
        start = time.perf_counter_ns()
        self.dev.queue.submit([encoder.finish()])
        if self.profile:
            self._time_kernel(k["name"], start)
        if kernel == 0:
            self.launches.clear()
        self.launches.append((kernel, group, (gx, gy, gz)))
        for bid in ids:
            if self.manifest["buffers"][self._index(bid)]["read_only"]:
                continue
            self.buffers[bid].device_newer = True
        return 0

    def replay(self, repeats: int) -> float:
        """Seconds per repetition of the last call's dispatches, `repeats` times in one
        submission (for benchmarks: no host work, no copies)."""
        import time
        encoder = self.dev.create_command_encoder()
        compute = encoder.begin_compute_pass()
        for _ in range(repeats):
            for kernel, group, grid in self.launches:
                compute.set_pipeline(self.pipelines[kernel])
                compute.set_bind_group(0, group)
                compute.dispatch_workgroups(*grid)
        compute.end()
        buffer = encoder.finish()
        self.dev.queue.read_buffer(self.buffers[next(iter(self.buffers))].gpu, 0, 4)  # idle
        start = time.perf_counter()
        self.dev.queue.submit([buffer])
        self.dev.queue.read_buffer(self.buffers[next(iter(self.buffers))].gpu, 0, 4)  # waits
        return (time.perf_counter() - start) / repeats

    def _time_kernel(self, name: str, start: int) -> None:
        """Wait for the dispatch just submitted and add its time to the profiler."""
        if self.timestamps is not None:
            begin, end = np.frombuffer(self.dev.queue.read_buffer(self.timestamps[1]),
                                       dtype="<u8")[:2]
            PROFILER.kernel(name, int(end) - int(begin), "timestamp-query")
        else:
            self._wait(self.buffers[next(iter(self.buffers))].gpu)
            PROFILER.kernel(name, time.perf_counter_ns() - start,
                            "wall clock per dispatch (no timestamp-query)")

    def _wait(self, gpu_buffer) -> None:
        """Wait for the queue: a 4-byte read waits for the work submitted before it (wgpu-py's
        on_submitted_work_done_sync fails with this wgpu-native)."""
        self.dev.queue.read_buffer(gpu_buffer, 0, 4)

    def _name(self, bid: int) -> str:
        return self.manifest["buffers"][self._index(bid)].get("name", f"buffer {bid}")

    def run_packed(self, kernel, gx, gy, gz, args, nbytes) -> int:
        """run() with the scalars given as an address and length in host memory."""
        return self.run(kernel, gx, gy, gz, self.memory.read(args, nbytes) if nbytes else b"")

    def _index(self, bid: int) -> int:
        for i, b in enumerate(self.manifest["buffers"]):
            if b["id"] == bid:
                return i
        raise KeyError(bid)


def _shader_error(message: str, wgsl: str) -> str:
    """The device's complaint, with the WGSL lines it points at."""
    lines = wgsl.splitlines()
    shown = []
    for m in re.finditer(r":(\d+):(\d+)", message):
        n = int(m.group(1))
        if 0 < n <= len(lines):
            shown.append(f"  {n:4d} | {lines[n - 1]}")
    text = "the WebGPU device rejected webhal's WGSL (a webhal bug; please report it):\n" + \
        message.strip()
    return text + ("\n" + "\n".join(dict.fromkeys(shown)) if shown else "")


class HostMemory:
    """Host JIT memory: plain addresses."""

    @staticmethod
    def read(address: int, nbytes: int) -> bytes:
        import ctypes
        return ctypes.string_at(address, nbytes)

    @staticmethod
    def write(address: int, data: bytes) -> None:
        import ctypes
        ctypes.memmove(address, data, len(data))


def as_bytes(array: np.ndarray) -> bytes:
    return np.ascontiguousarray(array).tobytes()
