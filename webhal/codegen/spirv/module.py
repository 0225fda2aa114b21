"""A pipeline's SPIR-V module (binary, for Vulkan compute) and its binding manifest.

One module per pipeline, one GLCompute entry point per kernel, fed by the same GPU lowering and
legalization as the WGSL backend (codegen/wgsl/legalize), so the two differ only where the
languages do. Buffers are storage buffers in descriptor set 0, one binding each for the whole
module (NonWritable unless some kernel writes it); 8/16-bit elements are packed into 32-bit
words as in WGSL. A kernel variant whose accesses to a buffer are whole vectors
(passes/vector_buffers.py; the host picks it at run time) reaches that buffer through a
variable of its own at the same binding, an array of vec2/vec4 (of plain 32-bit words, for
8/16-bit elements): Vulkan allows variables that alias a binding, and each entry point uses one
of them. Each kernel's scalar arguments are one push-constant block of 4-byte fields.

The workgroup size of each entry point is a literal LocalSize: webhal's kernels are lowered for
the gpu_tile sizes of the schedule (thread loop extents, shared array sizes), so a runtime could
not change it without changing the kernel; the manifest's `spec_ids` is therefore None.

The SPIR-V version follows the target's Vulkan version feature: 1.0 by default and with vk_v10,
1.5 with vk_v12, 1.6 with vk_v13 (where every global is listed in the entry point's interface).
The manifest's `features` are the device features the module needs (int8, int16, int64,
float16, float64, storage8, storage16), each from a vk_* target feature."""

from __future__ import annotations

from webhal.codegen.manifest import buffer_entries
from webhal.codegen.spirv.builder import ModuleBuilder, instruction
from webhal.codegen.spirv.kernel import KernelEmitter, Memory
from webhal.codegen.spirv.spec import (
    EXECUTION_MODE_LOCAL_SIZE,
    EXECUTION_MODEL_GLCOMPUTE,
    BuiltIn,
    Capability,
    Decoration,
    Op,
    StorageClass,
)
from webhal.codegen.wgsl.legalize import WGSL, legalize
from webhal.codegen.wgsl.legalize.nodes import is_narrow
from webhal.debug import debug_level
from webhal.errors import CompileError
from webhal.ir.module import Kernel
from webhal.ir.types import Float, Int, UInt

# The manifest's device features -> the SPIR-V capability each one declares
CAPABILITIES = {"int8": Capability.Int8, "int16": Capability.Int16, "int64": Capability.Int64,
                "float16": Capability.Float16, "float64": Capability.Float64,
                "storage8": Capability.StorageBuffer8BitAccess,
                "storage16": Capability.StorageBuffer16BitAccess}

# Vulkan version feature -> (Vulkan version, SPIR-V version)
VERSIONS = {"vk_v13": ((1, 3), (1, 6)), "vk_v12": ((1, 2), (1, 5)), "vk_v10": ((1, 0), (1, 0))}


def versions(target) -> tuple[tuple[int, int], tuple[int, int]]:
    """(Vulkan version, SPIR-V version) that `target` asks for."""
    for feature, pair in VERSIONS.items():
        if target is not None and target.has_feature(feature):
            return pair
    return VERSIONS["vk_v10"]


def build_module(kernels: list[Kernel], buffer_ids: dict[str, int], target=None,
                 names: bool | None = None) -> tuple[bytes, dict]:
    """The SPIR-V binary and the manifest for a pipeline's kernels. Debug names (OpName of
    kernels, buffers, arrays) are kept with `names`, by default when the target has the
    `debug` feature or HL_DEBUG_CODEGEN is set, and stripped otherwise."""
    if names is None:
        names = debug_level() >= 1 or (target is not None and target.has_feature("debug"))
    vulkan, spirv = versions(target)
    m = ModuleBuilder(spirv, names)
    if spirv < (1, 3):  # core in SPIR-V 1.3 (Vulkan 1.1); lavapipe and every driver have it
        m.extensions.add("SPV_KHR_storage_buffer_storage_class")
    buffers = buffer_entries(kernels, buffer_ids)
    features: set[str] = set()
    memory = _declare_buffers(m, kernels, buffers, target, features)
    views = _declare_vector_views(m, kernels, buffers)
    builtins = []
    for builtin in (BuiltIn.WorkgroupId, BuiltIn.LocalInvocationId):
        var = m.variable(StorageClass.Input, m.vector(m.int(32, False), 3))
        m.decorate(var, Decoration.BuiltIn, builtin)
        builtins.append(var)
    manifest_kernels = [_declare_kernel(m, i, k, buffers, memory, views, builtins, target,
                                        features) for i, k in enumerate(kernels)]
    for feature in features:
        m.capabilities.add(CAPABILITIES[feature])
    if "storage16" in features and spirv < (1, 3):
        m.extensions.add("SPV_KHR_16bit_storage")
    if "storage8" in features and spirv < (1, 5):
        m.extensions.add("SPV_KHR_8bit_storage")
    manifest = {"buffers": sorted(buffers.values(), key=lambda b: b["id"]),
                "kernels": manifest_kernels, "features": sorted(features),
                "vulkan_version": list(vulkan), "spirv_version": list(spirv)}
    return m.binary(), manifest


def _declare_buffers(m: ModuleBuilder, kernels: list[Kernel], buffers: dict[str, dict],
                     target, features: set[str]) -> dict[str, Memory]:
    """One storage buffer variable per manifest buffer (set 0, its binding); notes in each
    entry whether it is packed (and atomic)."""
    native = {bits for bits, feature in ((8, "vk_int8"), (16, "vk_int16"))
              if target is not None and target.has_feature(feature)}
    memory: dict[str, Memory] = {}
    for b in sorted(buffers.values(), key=lambda b: b["id"]):
        t = next(k.buffers[b["name"]][0] for k in kernels if b["name"] in k.buffers)
        _check_type(t, target, f"buffer {b['name']}", features)
        # 8/16-bit integers are stored as they are where vk_int8/vk_int16 allow, else packed
        # into 32-bit words as in WGSL; arithmetic on them is 32-bit either way.
        packed = is_narrow(t) and t.bits not in native
        b["packed"], b["atomic"] = packed, packed and not b["read_only"]
        element = UInt(32) if packed else t
        if element.bits in (8, 16):
            features.add(f"storage{element.bits}")
            if element.is_int_or_uint():
                features.add(f"int{element.bits}")
        block = m.struct(m.runtime_array(m.type(element), element.bytes()))
        m.decorate(block, Decoration.Block)
        m.member_decorate(block, 0, Decoration.Offset, 0)
        var = m.variable(StorageClass.StorageBuffer, block)
        m.name(var, b["name"])
        m.decorate(var, Decoration.DescriptorSet, 0)
        m.decorate(var, Decoration.Binding, b["binding"])
        if b["read_only"]:
            m.decorate(var, Decoration.NonWritable)
        memory[b["name"]] = Memory(var, StorageClass.StorageBuffer, element, b["atomic"])
    return memory


def _declare_vector_views(m: ModuleBuilder, kernels: list[Kernel],
                          buffers: dict[str, dict]) -> dict[tuple[str, int], Memory]:
    """For each (buffer, width) that some kernel accesses as whole vectors, a storage buffer
    variable at the buffer's binding whose elements are those vectors (or, for 8/16-bit
    elements, plain 32-bit words: no word is shared between invocations, so not atomic)."""
    views: dict[tuple[str, int], Memory] = {}
    for k in kernels:
        for name, w in sorted(k.vector_buffers.items()):
            if (name, w) in views:
                continue
            b, t = buffers[name], k.buffers[name][0]
            element = UInt(32) if is_narrow(t) else t.with_lanes(w)
            block = m.struct(m.runtime_array(m.type(element), element.bytes() * element.lanes))
            m.decorate(block, Decoration.Block)
            m.member_decorate(block, 0, Decoration.Offset, 0)
            var = m.variable(StorageClass.StorageBuffer, block)
            m.name(var, f"{name}.v{w}")
            m.decorate(var, Decoration.DescriptorSet, 0)
            m.decorate(var, Decoration.Binding, b["binding"])
            if b["read_only"]:
                m.decorate(var, Decoration.NonWritable)
            views[name, w] = Memory(var, StorageClass.StorageBuffer, element)
    return views


def _declare_kernel(m: ModuleBuilder, index: int, original: Kernel, buffers: dict[str, dict],
                    memory: dict[str, Memory], views: dict[tuple[str, int], Memory],
                    builtins: list[int], target, features: set[str]) -> dict:
    """Kernel `original` as an entry point of m (legalized first: arrays, push constants,
    the function, its interface and LocalSize); returns its manifest entry."""
    k = legalize(original, WGSL, [n for n in original.buffers if buffers[n]["packed"]],
                 original.vector_buffers)
    kernel_memory = {n: views[n, original.vector_buffers[n]] if n in original.vector_buffers
                     else memory[n] for n in k.buffers}
    for name, (t, size) in sorted(k.shared.items()):
        _check_type(t, target, f"Func {name}", features)
        var = m.variable(StorageClass.Workgroup, m.array(m.type(t), size))
        m.name(var, f"{k.name}.{name}")
        kernel_memory[name] = Memory(var, StorageClass.Workgroup, t, in_block=False)
    emitter = KernelEmitter(m, kernel_memory, {}, None, k.workgroup, tuple(builtins))
    for name, (t, size) in sorted(k.local.items()):
        _check_type(t, target, f"Func {name}", features)
        var = emitter.local_variable(m.array(m.type(t), size))
        kernel_memory[name] = Memory(var, StorageClass.Function, t, in_block=False)
    if k.scalars:  # all 32-bit after legalization: one 4-byte field each
        block = m.struct(*(m.type(t) for _, t in k.scalars))
        m.decorate(block, Decoration.Block)
        for i, _ in enumerate(k.scalars):
            m.member_decorate(block, i, Decoration.Offset, 4 * i)
        emitter.push_constants = m.variable(StorageClass.PushConstant, block)
        m.name(emitter.push_constants, f"{k.name}.args")
        emitter.scalars = {n: (i, t) for i, (n, t) in enumerate(k.scalars)}
    fn = emitter.function(k.name, k.blocks, k.body)
    for t in (Float(16), Float(64), Int(64)):  # values of a type no buffer has
        if m.declares_scalar(t):
            _check_type(t, target, f"kernel {k.name}", features)
    interface = sorted(emitter.used_globals) if m.version >= (1, 4) else builtins
    m.entry_points += instruction(Op.EntryPoint, EXECUTION_MODEL_GLCOMPUTE, fn, k.name,
                                  interface)
    m.execution_modes += instruction(Op.ExecutionMode, fn, EXECUTION_MODE_LOCAL_SIZE,
                                     list(k.workgroup_size()))
    return {"name": k.name, "index": index, "workgroup_size": list(k.workgroup_size()),
            "spec_ids": None, "buffers": sorted(buffers[n]["binding"] for n in k.buffers),
            "scalars": [{"name": n, "type": str(t)} for n, t in original.scalars],
            "push_constant_bytes": 4 * len(k.scalars)}


def _check_type(t, target, what: str, features: set[str]) -> None:
    """Refuse a type the target's vk_* features do not allow, naming the feature to add, and
    note the device features an allowed one needs."""
    feature = {(True, 16): "float16", (True, 64): "float64",
               (False, 64): "int64"}.get((t.is_float(), t.bits))
    if feature is None:
        return
    if target is not None and not target.has_feature("vk_" + feature):
        raise CompileError(f"{what} has type {t} on the GPU, which needs the target feature "
                           f"vk_{feature} (add -vk_{feature} to {target})")
    features.add(feature)
