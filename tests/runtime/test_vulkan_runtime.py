"""The Vulkan runtime (webhal/runtime/vulkan.py) on hand-written SPIR-V (assembled with
spirv-as): results, the host/device dirty rules, objects made once, the HL_VK_* variables, the
validation layer, and SwiftShader's driver beside lavapipe. Cases that change the environment
run in a subprocess, since the Vulkan device is made once per process."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import textwrap
from dataclasses import replace

import numpy as np
import pytest

from webhal import abi
from webhal.errors import CompileError, HalideError
from webhal.runtime import gpu_calls
from webhal.runtime import vulkan as vkrt
from webhal.runtime.vulkan import AllocConfig, Block, VulkanRuntime
from webhal.runtime.webgpu import HostMemory, WebGPURuntime
from webhal.testing import runtimes
from webhal.toolchain import find_lavapipe_icd, find_swiftshader_icd
from webhal.toolchain.process import run_tool
from webhal.toolchain.spirv import HINT as SPIRV_TOOLS_HINT
from webhal.toolchain.spirv import find_spirv_tool

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HEADER = """
               OpCapability Shader
               OpExtension "SPV_KHR_storage_buffer_storage_class"
               OpMemoryModel Logical GLSL450
"""

TYPES = """
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %uint3 = OpTypeVector %uint 3
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
        %arr = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %arr
       %pBuf = OpTypePointer StorageBuffer %Buf
       %pIn3 = OpTypePointer Input %uint3
        %gid = OpVariable %pIn3 Input
       %pSBu = OpTypePointer StorageBuffer %uint
       %bool = OpTypeBool
"""

BUFFER_DECORATIONS = """
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
"""

# Two kernels, workgroup size from specialization constants 0-2, scalars {k, n} as push
# constants: "add" writes b1[i] = b0[i] + k, "twice" writes b2[i] = 2 * b1[i] (i < n).
TWO_KERNELS = HEADER + """
               OpEntryPoint GLCompute %add "add" %gid
               OpEntryPoint GLCompute %twice "twice" %gid
               OpExecutionMode %add LocalSize 1 1 1
               OpExecutionMode %twice LocalSize 1 1 1
""" + BUFFER_DECORATIONS + """
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %b0 DescriptorSet 0
               OpDecorate %b0 Binding 0
               OpDecorate %b0 NonWritable
               OpDecorate %b1 DescriptorSet 0
               OpDecorate %b1 Binding 1
               OpDecorate %b2 DescriptorSet 0
               OpDecorate %b2 Binding 2
               OpMemberDecorate %Push 0 Offset 0
               OpMemberDecorate %Push 1 Offset 4
               OpDecorate %Push Block
""" + TYPES + """
         %sx = OpSpecConstant %uint 1
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
     %wgsize = OpSpecConstantComposite %uint3 %sx %sy %sz
         %b0 = OpVariable %pBuf StorageBuffer
         %b1 = OpVariable %pBuf StorageBuffer
         %b2 = OpVariable %pBuf StorageBuffer
       %Push = OpTypeStruct %uint %uint
      %pPush = OpTypePointer PushConstant %Push
       %push = OpVariable %pPush PushConstant
     %pPushU = OpTypePointer PushConstant %uint

        %add = OpFunction %void None %fn
         %a0 = OpLabel
         %ag = OpLoad %uint3 %gid
         %ai = OpCompositeExtract %uint %ag 0
        %apn = OpAccessChain %pPushU %push %u1
         %an = OpLoad %uint %apn
        %aok = OpULessThan %bool %ai %an
               OpSelectionMerge %aend None
               OpBranchConditional %aok %abody %aend
      %abody = OpLabel
        %apk = OpAccessChain %pPushU %push %u0
         %ak = OpLoad %uint %apk
        %apx = OpAccessChain %pSBu %b0 %u0 %ai
         %ax = OpLoad %uint %apx
         %ay = OpIAdd %uint %ax %ak
        %apy = OpAccessChain %pSBu %b1 %u0 %ai
               OpStore %apy %ay
               OpBranch %aend
       %aend = OpLabel
               OpReturn
               OpFunctionEnd

      %twice = OpFunction %void None %fn
         %t0 = OpLabel
         %tg = OpLoad %uint3 %gid
         %ti = OpCompositeExtract %uint %tg 0
        %tpn = OpAccessChain %pPushU %push %u1
         %tn = OpLoad %uint %tpn
        %tok = OpULessThan %bool %ti %tn
               OpSelectionMerge %tend None
               OpBranchConditional %tok %tbody %tend
      %tbody = OpLabel
        %tpx = OpAccessChain %pSBu %b1 %u0 %ti
         %tx = OpLoad %uint %tpx
         %ty = OpIMul %uint %tx %u2
        %tpy = OpAccessChain %pSBu %b2 %u0 %ti
               OpStore %tpy %ty
               OpBranch %tend
       %tend = OpLabel
               OpReturn
               OpFunctionEnd
"""

# One kernel with its workgroup size (16) in the module and no scalars: b0[i] = i.
FILL = HEADER + """
               OpEntryPoint GLCompute %fill "fill" %gid
               OpExecutionMode %fill LocalSize 16 1 1
""" + BUFFER_DECORATIONS + """
               OpDecorate %b0 DescriptorSet 0
               OpDecorate %b0 Binding 0
""" + TYPES + """
         %b0 = OpVariable %pBuf StorageBuffer
       %fill = OpFunction %void None %fn
         %f0 = OpLabel
         %fg = OpLoad %uint3 %gid
         %fi = OpCompositeExtract %uint %fg 0
         %fp = OpAccessChain %pSBu %b0 %u0 %fi
               OpStore %fp %fi
               OpReturn
               OpFunctionEnd
"""


def _buffer(id_, binding, read_only=False):
    return {"id": id_, "name": f"b{id_}", "type": "uint32", "binding": binding,
            "read_only": read_only, "packed": False, "atomic": False}


SCALARS = [{"name": "k", "type": "uint32"}, {"name": "n", "type": "uint32"}]


def two_kernels_manifest(features=(), vulkan=(1, 0), add_size=64, twice_size=32) -> dict:
    return {"buffers": [_buffer(0, 0, read_only=True), _buffer(1, 1), _buffer(2, 2)],
            "kernels": [{"name": "add", "index": 0, "workgroup_size": [add_size, 1, 1],
                         "spec_ids": [0, 1, 2], "buffers": [0, 1], "scalars": SCALARS,
                         "push_constant_bytes": 8},
                        {"name": "twice", "index": 1, "workgroup_size": [twice_size, 1, 1],
                         "spec_ids": [0, 1, 2], "buffers": [1, 2], "scalars": SCALARS,
                         "push_constant_bytes": 8}],
            "features": list(features), "vulkan_version": list(vulkan),
            "spirv_version": [1, 0]}


FILL_MANIFEST = {"buffers": [_buffer(0, 0)],
                 "kernels": [{"name": "fill", "index": 0, "workgroup_size": [16, 1, 1],
                              "spec_ids": None, "buffers": [0], "scalars": [],
                              "push_constant_bytes": 0}],
                 "features": [], "vulkan_version": [1, 0], "spirv_version": [1, 0]}


def assemble(text: str, tmp_path, env: str = "vulkan1.0") -> bytes:
    """Binary SPIR-V for assembly `text` (spirv-as; a missing SPIRV-Tools fails in CI)."""
    tool = runtimes.require("spirv-as (SPIRV-Tools)", lambda: find_spirv_tool("spirv-as"))
    source, binary = tmp_path / "module.spvasm", tmp_path / "module.spv"
    source.write_text(textwrap.dedent(text))
    run_tool([tool.path, "--target-env", env, str(source), "-o", str(binary)], timeout_s=60,
             what="spirv-as", hint=SPIRV_TOOLS_HINT)
    return binary.read_bytes()


@pytest.fixture(scope="module")
def two_kernels(tmp_path_factory) -> bytes:
    return assemble(TWO_KERNELS, tmp_path_factory.mktemp("spirv"))


@pytest.fixture(scope="module")
def fill(tmp_path_factory) -> bytes:
    return assemble(FILL, tmp_path_factory.mktemp("spirv"))


class RecordingMemory(HostMemory):
    """Host memory that records which addresses the runtime reads (uploads) and writes
    (readbacks)."""

    def __init__(self):
        self.reads, self.writes = [], []

    def read(self, address, nbytes):
        self.reads.append(address)
        return HostMemory.read(address, nbytes)

    def write(self, address, data):
        self.writes.append(address)
        HostMemory.write(address, data)


@pytest.fixture
def make_runtime(vulkan_device):
    """VulkanRuntime(spirv, manifest, memory), closed after the test."""
    made = []

    def make(spirv, manifest, memory=None):
        runtime = VulkanRuntime(spirv, manifest, memory or HostMemory())
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        runtime.close()


@pytest.fixture(params=["mapped", "staged"])
def transfer(request, monkeypatch):
    """Both ways data moves: through the device buffer's own mapping (lavapipe's memory is
    host-visible) and through the staging buffer with copy commands (discrete GPUs)."""
    monkeypatch.setattr(VulkanRuntime, "map_device_buffers", request.param == "mapped")
    return request.param


def _push(k: int, n: int) -> bytes:
    return struct.pack("<2I", k, n)


def _groups(n: int, size: int) -> int:
    return -(-n // size)


# -- results -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 64, 1000])
def test_two_kernels_chained_on_the_device(make_runtime, two_kernels, transfer, n):
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a = np.arange(n, dtype=np.uint32) * 3 + 1
    b, c = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
    for bid, array, current in ((0, a, 1), (1, b, 0), (2, c, 0)):
        assert rt.buffer(bid, array.ctypes.data, array.nbytes, current) == 0
    assert rt.run(0, _groups(n, 64), 1, 1, _push(7, n)) == 0
    assert rt.run(1, _groups(n, 32), 1, 1, _push(0, n)) == 0
    assert rt.copy_to_host(2) == 0
    np.testing.assert_array_equal(c, (a + 7) * 2)
    assert not b.any()  # the intermediate stays on the device until asked for
    rt.copy_to_host(1)
    np.testing.assert_array_equal(b, a + 7)


def test_workgroup_sizes_come_from_specialization_constants(make_runtime, two_kernels):
    # With the module's LocalSize (1) instead of 128, 4 workgroups would cover 4 elements.
    n = 500
    rt = make_runtime(two_kernels, two_kernels_manifest(add_size=128))
    a, b = np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    rt.buffer(1, b.ctypes.data, b.nbytes, 0)
    rt.run(0, _groups(n, 128), 1, 1, _push(1, n))
    rt.copy_to_host(1)
    np.testing.assert_array_equal(b, a + 1)


def test_a_workgroup_size_in_the_module_and_no_scalars(make_runtime, fill, transfer):
    out = np.full(64, 99, np.uint32)
    rt = make_runtime(fill, FILL_MANIFEST)
    rt.buffer(0, out.ctypes.data, out.nbytes, 0)
    assert rt.run(0, 4, 1, 1, b"") == 0
    rt.copy_to_host(0)
    np.testing.assert_array_equal(out, np.arange(64))


def test_scalars_are_padded_and_truncated_to_the_push_constants(make_runtime, two_kernels):
    n = 16
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a, b = np.arange(n, dtype=np.uint32), np.full(n, 5, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    rt.buffer(1, b.ctypes.data, b.nbytes, 1)
    rt.run(0, 1, 1, 1, struct.pack("<I", 3))  # n padded with 0: nothing written
    rt.copy_to_host(1)
    np.testing.assert_array_equal(b, 5)
    rt.run(0, 1, 1, 1, _push(3, n) + b"\xff" * 8)
    rt.copy_to_host(1)
    np.testing.assert_array_equal(b, a + 3)


def test_odd_host_sizes_round_up_on_the_device(make_runtime, two_kernels):
    rt = make_runtime(two_kernels, two_kernels_manifest())
    raw = np.zeros(7, np.uint8)
    rt.buffer(1, raw.ctypes.data, 7, 0)
    assert rt.buffers[1].nbytes == 8 and rt.buffers[1].host_bytes == 7


def test_the_gpu_call_dispatcher_reaches_it(make_runtime, two_kernels):
    for method in gpu_calls.METHODS.values():
        assert callable(getattr(VulkanRuntime, method))
        assert callable(getattr(WebGPURuntime, method))
    n = 100
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a, b = np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32)
    args = np.frombuffer(_push(2, n), np.uint8).copy()
    reports = []
    calls = [("webhal_gpu_buffer", (0, a.ctypes.data, a.nbytes, 1)),
             ("webhal_gpu_buffer", (1, b.ctypes.data, b.nbytes, 0)),
             ("webhal_gpu_run", (0, 2, 1, 1, args.ctypes.data, 8)),
             ("webhal_gpu_copy_to_host", (1,))]
    for name, call_args in calls:
        assert gpu_calls.call(rt, name, call_args, reports.append) == 0
    assert reports == []
    np.testing.assert_array_equal(b, a + 2)


def test_too_many_workgroups_is_a_reported_error(make_runtime, two_kernels, vulkan_device):
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a = np.zeros(4, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    rt.buffer(1, a.ctypes.data, a.nbytes, 0)
    limit = vulkan_device.max_workgroups[0]
    assert rt.run(0, limit + 1, 1, 1, _push(0, 4)) == abi.ERROR_CODES["device_run_failed"]
    message, kind = rt.error
    assert kind is HalideError and "add" in message and "workgroups" in message


def test_replay_times_the_last_calls_dispatches(make_runtime, two_kernels):
    n = 256
    rt = make_runtime(two_kernels, two_kernels_manifest())
    arrays = [np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32), np.zeros(n, np.uint32)]
    for bid, array in enumerate(arrays):
        rt.buffer(bid, array.ctypes.data, array.nbytes, int(bid == 0))
    rt.run(0, 4, 1, 1, _push(1, n))
    rt.run(1, 8, 1, 1, _push(0, n))
    assert [launch[0] for launch in rt.launches] == [0, 1]
    assert rt.replay(3) > 0
    rt.run(0, 4, 1, 1, _push(1, n))  # kernel 0 starts a new call
    assert [launch[0] for launch in rt.launches] == [0]


# -- dirty rules -----------------------------------------------------------------------------

def test_uploads_only_when_the_host_is_newer(make_runtime, two_kernels, transfer):
    n = 64
    memory = RecordingMemory()
    rt = make_runtime(two_kernels, two_kernels_manifest(), memory)
    a, b = np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    rt.buffer(1, b.ctypes.data, b.nbytes, 0)
    rt.run(0, 1, 1, 1, _push(1, n))
    assert memory.reads == [a.ctypes.data]  # the output was not current on the host
    rt.run(0, 1, 1, 1, _push(1, n))
    assert memory.reads == [a.ctypes.data]  # nothing newer on the host
    a[:] += 10
    rt.host_dirty(0)
    rt.run(0, 1, 1, 1, _push(1, n))
    assert memory.reads == [a.ctypes.data] * 2
    rt.copy_to_host(1)
    np.testing.assert_array_equal(b, a + 1)


def test_readbacks_only_when_the_device_is_newer(make_runtime, two_kernels, transfer):
    n = 64
    memory = RecordingMemory()
    rt = make_runtime(two_kernels, two_kernels_manifest(), memory)
    a, b = np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    rt.buffer(1, b.ctypes.data, b.nbytes, 0)
    rt.copy_to_host(1)
    assert memory.writes == []  # no kernel wrote it yet
    rt.run(0, 1, 1, 1, _push(1, n))
    rt.copy_to_host(0)
    assert memory.writes == []  # read-only for the kernel: the host copy is still current
    rt.copy_to_host(1)
    rt.copy_to_host(1)
    assert memory.writes == [b.ctypes.data]
    b[:] = 0
    rt.host_dirty(1)  # the host wrote it: its copy wins, and is uploaded for the next kernel
    rt.copy_to_host(1)
    assert memory.writes == [b.ctypes.data] and not b.any()


def test_device_memory_no_upload_covers_reads_as_zeros(make_runtime, two_kernels, transfer):
    n = 256
    junk = np.full(n, 0xDEAD, np.uint32)
    first = make_runtime(two_kernels, two_kernels_manifest())
    first.buffer(0, junk.ctypes.data, junk.nbytes, 1)
    first.buffer(1, junk.ctypes.data, junk.nbytes, 1)
    first.run(0, 1, 1, 1, _push(0, 0))  # uploads both
    first.close()  # their memory goes back to the block, for the next buffers to reuse
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a, b = np.arange(n, dtype=np.uint32), np.full(n, 7, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    rt.buffer(1, b.ctypes.data, b.nbytes, 0)
    rt.run(0, 1, 1, 1, _push(1, 10))  # writes the first 10 only
    rt.copy_to_host(1)
    np.testing.assert_array_equal(b[:10], a[:10] + 1)
    assert not b[10:].any()


def test_a_buffer_given_again_keeps_its_device_copy_unless_resized(make_runtime, two_kernels):
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a = np.zeros(64, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    first = rt.buffers[0]
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    assert rt.buffers[0] is first
    rt.buffer(0, a.ctypes.data, 128, 1)
    assert rt.buffers[0] is not first and rt.buffers[0].nbytes == 128


# -- objects made once -----------------------------------------------------------------------

def test_pipelines_are_made_once_and_descriptor_sets_reused(make_runtime, two_kernels):
    n = 64
    rt = make_runtime(two_kernels, two_kernels_manifest())
    assert rt.pipelines_created == 2
    arrays = [np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32), np.zeros(n, np.uint32)]
    for _ in range(3):
        for bid, array in enumerate(arrays):
            rt.buffer(bid, array.ctypes.data, array.nbytes, int(bid == 0))
        rt.run(0, 1, 1, 1, _push(1, n))
        rt.run(1, 2, 1, 1, _push(0, n))
    assert rt.pipelines_created == 2
    assert len(rt.descriptor_sets) == 2 and len(rt.pools) == 1
    sets = dict(rt.descriptor_sets)
    bigger = np.zeros(2 * n, np.uint32)
    rt.buffer(2, bigger.ctypes.data, bigger.nbytes, 0)  # a new device buffer: a new set
    rt.run(0, 1, 1, 1, _push(1, n))
    rt.run(1, 2, 1, 1, _push(0, n))
    assert len(rt.descriptor_sets) == 2  # the stale one was freed
    kept = [key for key in rt.descriptor_sets if key in sets]
    assert [key[0] for key in kept] == [0]
    rt.copy_to_host(2)
    np.testing.assert_array_equal(bigger[:n], (arrays[0] + 1) * 2)


def test_many_descriptor_sets_take_more_pools(make_runtime, two_kernels):
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a = np.arange(4, dtype=np.uint32)
    for size in range(4, 4 * 70, 4):  # each size a new output buffer, so a new set
        rt.buffer(0, a.ctypes.data, a.nbytes, 1)
        rt.buffer(1, a.ctypes.data, size, 0)
        rt.run(0, 1, 1, 1, _push(0, 1))
    assert len(rt.descriptor_sets) == 1  # stale sets are freed as their buffers go


def test_close_gives_the_memory_back(make_runtime, two_kernels):
    rt = make_runtime(two_kernels, two_kernels_manifest())
    a = np.zeros(1024, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    block = rt.buffers[0].region.block
    regions = block.regions
    rt.close()
    rt.close()  # twice is fine
    assert block.regions == regions - 1


# -- manifests the device cannot run ---------------------------------------------------------

def _device_without(monkeypatch, **changes):
    """Make runtimes see the process's device with some DeviceInfo fields changed."""
    ctx = vkrt.context()
    fake = replace(ctx, info=replace(ctx.info, **changes))
    monkeypatch.setattr(vkrt, "context", lambda: fake)


def test_a_feature_the_device_lacks_is_a_compile_error(two_kernels, vulkan_device,
                                                       monkeypatch):
    _device_without(monkeypatch, features=("int16",))
    with pytest.raises(CompileError, match=r"feature int8 \(shaderInt8\).*"
                                           + re.escape(vulkan_device.name)):
        VulkanRuntime(two_kernels, two_kernels_manifest(features=["int16", "int8"]),
                      HostMemory())


def test_a_vulkan_version_the_device_lacks_is_a_compile_error(two_kernels, vulkan_device,
                                                              monkeypatch):
    _device_without(monkeypatch, api_version=(1, 1, 0))
    with pytest.raises(CompileError, match="need Vulkan 1.2"):
        VulkanRuntime(two_kernels, two_kernels_manifest(vulkan=(1, 2)), HostMemory())


def test_every_feature_the_device_offers_is_enabled(make_runtime, two_kernels, vulkan_device):
    # lavapipe offers them all; the device was made with them, whatever the first pipeline.
    make_runtime(two_kernels, two_kernels_manifest(features=vulkan_device.features,
                                                   vulkan=(1, 2)))
    if "llvmpipe" in vulkan_device.name:
        assert set(vulkan_device.features) == set(vkrt.FEATURES)


def test_too_many_scalars_or_threads_is_a_compile_error(two_kernels, vulkan_device):
    manifest = two_kernels_manifest()
    manifest["kernels"][0]["push_constant_bytes"] = vulkan_device.max_push_constants + 4
    with pytest.raises(CompileError, match="push constants"):
        VulkanRuntime(two_kernels, manifest, HostMemory())
    manifest = two_kernels_manifest(add_size=vulkan_device.max_invocations * 2)
    with pytest.raises(CompileError, match="workgroup"):
        VulkanRuntime(two_kernels, manifest, HostMemory())


def test_bytes_that_are_not_spirv_are_refused(vulkan_device):
    with pytest.raises(CompileError, match="not binary SPIR-V"):
        VulkanRuntime(b"#version 450\n", two_kernels_manifest(), HostMemory())


def test_device_errors_name_the_vulkan_call(vulkan_device):
    vk = vkrt._vk()

    def vkQueueSubmit():
        raise vk.VkErrorDeviceLost()

    with pytest.raises(HalideError, match="vkQueueSubmit failed: VK_ERROR_DEVICE_LOST"):
        vkrt.call(vkQueueSubmit)


# -- the allocator ----------------------------------------------------------------------------

def test_sub_allocations_share_a_block(make_runtime, two_kernels):
    rt = make_runtime(two_kernels, two_kernels_manifest())
    arrays = [np.zeros(n, np.uint32) for n in (10, 100, 1000)]
    for bid, array in enumerate(arrays):
        rt.buffer(bid, array.ctypes.data, array.nbytes, 0)
    regions = [rt.buffers[bid].region for bid in range(3)]
    assert len({id(r.block) for r in regions}) == 1
    spans = sorted((r.offset, r.offset + r.size) for r in regions)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))
    assert all(r.size % 32 == 0 for r in regions)  # rounded to the nearest multiple


def test_block_first_fit_alignment_and_merging():
    block = Block(memory=None, type_index=0, size=1024)
    assert block.take(100, 64) == 0
    assert block.take(100, 64) == 128
    assert block.take(1000, 64) is None
    block.give(0, 100)
    assert block.take(50, 16) == 0  # first fit: the hole at the start
    block.give(0, 50)
    block.give(128, 100)
    assert block.free == [[0, 1024]] and block.empty


@pytest.mark.parametrize("text, values", [
    ("", (0, 32, 0, 0, 32)),
    ("64:8:256:16:64", (64, 8, 256, 16, 64)),
    ("64,8", (64, 8, 0, 0, 32)),
])
def test_alloc_config_from_the_environment(monkeypatch, text, values):
    monkeypatch.setenv("HL_VK_ALLOC_CONFIG", text)
    c = AllocConfig.from_env()
    mb = 1 << 20
    assert (c.maximum_pool_size // mb, c.minimum_block_size // mb, c.maximum_block_size // mb,
            c.maximum_block_count, c.nearest_multiple) == values


def test_a_bad_alloc_config_is_named(monkeypatch):
    monkeypatch.setenv("HL_VK_ALLOC_CONFIG", "1:two:3")
    with pytest.raises(HalideError, match="HL_VK_ALLOC_CONFIG=1:two:3"):
        AllocConfig.from_env()


# -- the environment, in subprocesses ------------------------------------------------------

PRELUDE = """
import json, struct, sys
import numpy as np
from webhal.errors import HalideError
from webhal.runtime import vulkan as vkrt
from webhal.runtime.webgpu import HostMemory

spirv = open(sys.argv[1], "rb").read()
manifest = json.loads(sys.argv[2])
out = {}

def add(n, k=5):
    rt = vkrt.VulkanRuntime(spirv, manifest, HostMemory())
    a, b = np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32)
    rt.buffer(0, a.ctypes.data, a.nbytes, 1)
    rt.buffer(1, b.ctypes.data, b.nbytes, 0)
    rt.run(0, -(-n // 64), 1, 1, struct.pack("<2I", k, n))
    rt.copy_to_host(1)
    rt.close()
    return bool((b == a + k).all())

def error(f, *args):
    try:
        f(*args)
    except HalideError as e:
        return f"{type(e).__name__}: {e.message}"
    return None
"""


def in_subprocess(body: str, spirv: bytes, tmp_path, manifest=None, **env) -> dict:
    """Run `body` after PRELUDE in a fresh Python with `env` added (None removes a variable);
    return the dict it leaves in `out`."""
    path = tmp_path / "module.spv"
    path.write_bytes(spirv)
    environment = dict(os.environ)
    for name in ("HL_VK_DEVICE_TYPE", "HL_VK_LAYERS", "VK_INSTANCE_LAYERS",
                 "HL_VK_ALLOC_CONFIG"):
        environment.pop(name, None)
    for name, value in env.items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    script = PRELUDE + textwrap.dedent(body) + "\nprint(json.dumps(out))\n"
    result = subprocess.run([sys.executable, "-c", script, str(path),
                             json.dumps(manifest or two_kernels_manifest())],
                            env=environment, cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]) | {"stderr": result.stderr}


def test_device_type_cpu_picks_lavapipe(two_kernels, vulkan_device, tmp_path):
    runtimes.require("lavapipe", find_lavapipe_icd)
    got = in_subprocess("""
        out["ok"] = add(100)
        out["device"] = vkrt.context().info.name
        out["type"] = vkrt.context().info.type
    """, two_kernels, tmp_path, HL_VK_DEVICE_TYPE="cpu")
    assert got["ok"] and got["type"] == "cpu" and "llvmpipe" in got["device"]


def test_a_device_type_with_no_device_is_a_clear_error(two_kernels, vulkan_device, tmp_path):
    offered = {d.type for d in vkrt.describe_devices()}
    absent = next((t for t in vkrt.DEVICE_TYPES if t not in offered), None)
    if absent is None:
        pytest.skip("this machine has a Vulkan device of every type")
    got = in_subprocess("""
        out["absent"] = error(vkrt.context)
        import os
        os.environ["HL_VK_DEVICE_TYPE"] = "tpu"
        vkrt.context.cache_clear()
        out["unknown"] = error(vkrt.context)
    """, two_kernels, tmp_path, HL_VK_DEVICE_TYPE=absent)
    assert got["absent"].startswith("HalideError: no Vulkan device of type " + absent)
    assert "HL_VK_DEVICE_TYPE" in got["absent"]
    assert "the devices are" in got["absent"]
    assert "HL_VK_DEVICE_TYPE=tpu is not a device type" in got["unknown"]


def test_alloc_config_limits(two_kernels, vulkan_device, tmp_path):
    got = in_subprocess("""
        import os
        def config(text):
            os.environ["HL_VK_ALLOC_CONFIG"] = text
            vkrt.context.cache_clear()  # a new device and allocator for each configuration
            return vkrt.context().allocator
        config("2:1:0:0:32")  # a 2 MB pool of 1 MB blocks
        out["small"] = add(1000)
        out["pool"] = error(add, 1 << 20)  # two 4 MB buffers
        config("0:1:1:0:32")  # blocks of at most 1 MB
        out["block_size"] = error(add, 1 << 19)
        allocator = config("0:1:0:1:32")  # a single block of 1 MB
        rt = vkrt.VulkanRuntime(spirv, manifest, HostMemory())
        a = np.zeros(50_000, np.uint32)
        rt.buffer(0, a.ctypes.data, a.nbytes, 1)  # two 200 KB buffers share it
        rt.buffer(1, a.ctypes.data, a.nbytes, 0)
        out["blocks"] = len(allocator.blocks)
        out["block_count"] = error(rt.buffer, 2, a.ctypes.data, 4 * a.nbytes, 0)  # 800 KB
        allocator = config("0:1:0:0:4096")
        rt = vkrt.VulkanRuntime(spirv, manifest, HostMemory())
        a = np.zeros(10, np.uint32)
        rt.buffer(0, a.ctypes.data, a.nbytes, 1)
        out["rounded"] = rt.buffers[0].region.size
    """, two_kernels, tmp_path)
    assert got["small"] and got["blocks"] == 1
    assert "maximum pool size of HL_VK_ALLOC_CONFIG=2:1:0:0:32" in got["pool"]
    assert "maximum block size of HL_VK_ALLOC_CONFIG=0:1:1:0:32" in got["block_size"]
    assert "1 blocks HL_VK_ALLOC_CONFIG=0:1:0:1:32 allows" in got["block_count"]
    assert got["rounded"] == 4096


VALIDATED_RUN = """
    clear = vkrt.clear_validation_messages
    out["messenger"] = vkrt.context().messenger is not None
    out["layers"] = list(vkrt.context().layers)
    for mapped in (True, False):
        vkrt.VulkanRuntime.map_device_buffers = mapped
        n = 1000
        rt = vkrt.VulkanRuntime(spirv, manifest, HostMemory())
        a = np.arange(n, dtype=np.uint32)
        b, c = np.zeros(n, np.uint32), np.zeros(2 * n, np.uint32)
        rt.buffer(0, a.ctypes.data, a.nbytes, 1)
        rt.buffer(1, b.ctypes.data, b.nbytes, 0)
        for size in (n, 2 * n):  # the second size replaces the device buffer
            rt.buffer(2, c.ctypes.data, 4 * size, 0)
            rt.run(0, -(-n // 64), 1, 1, struct.pack("<2I", 3, n))
            rt.run(1, -(-n // 32), 1, 1, struct.pack("<2I", 0, n))
            rt.copy_to_host(2)
        rt.replay(2)
        rt.close()
        out[f"ok_{mapped}"] = bool((c[:n] == (a + 3) * 2).all())
    out["messages"] = vkrt.validation_messages()
    vk = vkrt.context().vk  # and a mistake is reported, so no message means none was made
    try:
        vk.vkCreateBuffer(vkrt.context().device, vk.VkBufferCreateInfo(
            size=0, usage=vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), None)
    except Exception:
        pass
    out["caught"] = vkrt.validation_messages()
"""


@pytest.mark.parametrize("variable", ["VK_INSTANCE_LAYERS", "HL_VK_LAYERS"])
def test_the_validation_layer_reports_nothing(two_kernels, vulkan_device, tmp_path, variable):
    got = in_subprocess(VALIDATED_RUN, two_kernels, tmp_path,
                        **{variable: vkrt.VALIDATION_LAYER})
    assert got["layers"] == [vkrt.VALIDATION_LAYER] and got["messenger"]
    assert got["ok_True"] and got["ok_False"]
    assert got["messages"] == []
    assert any("VUID-VkBufferCreateInfo-size" in m for m in got["caught"])


def test_a_missing_layer_names_what_to_install(two_kernels, vulkan_device, tmp_path):
    got = in_subprocess("""
        out["nope"] = error(vkrt.context)
        import os
        os.environ["HL_VK_LAYERS"] = vkrt.VALIDATION_LAYER
        os.environ["VK_LAYER_PATH"] = os.environ["EMPTY"]  # where the loader looks for layers
        vkrt.context.cache_clear()
        out["validation"] = error(vkrt.context)
    """, two_kernels, tmp_path, HL_VK_LAYERS="VK_LAYER_NOPE_missing", EMPTY=str(tmp_path))
    assert "VK_LAYER_NOPE_missing" in got["nope"] and "not installed" in got["nope"]
    assert "apt-get install vulkan-validationlayers" in got["validation"]


def test_the_same_kernels_on_swiftshader(two_kernels, vulkan_device, tmp_path):
    icd = runtimes.require("SwiftShader's Vulkan driver", find_swiftshader_icd)
    got = in_subprocess("""
        out["device"] = vkrt.context().info.name
        out["ok"] = add(1000) and add(1)
        manifest["features"] = ["int16"]
        out["int16"] = error(add, 10) if "int16" not in vkrt.context().info.features else ""
    """, two_kernels, tmp_path, VK_DRIVER_FILES=icd.path, VK_ICD_FILENAMES=icd.path,
        VK_INSTANCE_LAYERS=vkrt.VALIDATION_LAYER)
    assert "SwiftShader" in got["device"]
    assert got["ok"]
    if got["int16"]:
        assert got["int16"].startswith("CompileError: the pipeline's kernels need the Vulkan "
                                       "feature int16 (shaderInt16)")
        assert "SwiftShader" in got["int16"] and "vk_int16" in got["int16"]
    assert "webhal Vulkan validation" not in got["stderr"]


# -- webhal doctor -------------------------------------------------------------------------

def _vulkan_checks():
    from webhal import doctor
    from webhal.toolchain import clear_caches

    clear_caches()
    try:
        return doctor, doctor.run_checks(tuple(c for c in doctor.CHECKS
                                               if c.enables == "Vulkan"))
    finally:
        clear_caches()


def test_doctor_reports_the_devices_and_the_validation_layer(vulkan_device):
    doctor, results = _vulkan_checks()
    devices, layer = results
    assert devices.ok and layer.ok, (devices.error, layer.error)
    assert vulkan_device.name in devices.detail and "Vulkan 1." in devices.detail
    assert devices.devices[0]["features"] == list(vulkan_device.features)
    report = json.loads(json.dumps(doctor.to_json(results)))
    assert report["capabilities"]["Vulkan"] is True
    assert report["vulkan_devices"][0]["name"] == vulkan_device.name


def test_doctor_without_a_driver_or_layer_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("VK_ICD_FILENAMES", str(tmp_path / "none.json"))
    monkeypatch.setenv("VK_DRIVER_FILES", str(tmp_path / "none.json"))
    monkeypatch.setenv("VK_LAYER_PATH", str(tmp_path))
    doctor, (devices, layer) = _vulkan_checks()
    assert not devices.ok and "mesa-vulkan-drivers" in devices.hint
    assert not layer.ok and not layer.required and "vulkan-validationlayers" in layer.hint
    assert doctor.enabled_capabilities([devices, layer])["Vulkan"] is False
