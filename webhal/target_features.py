"""The feature table behind hl.Target: Halide's architectures, operating systems and feature
names, and what webhal knows of each feature (the architectures it fits, what it implies, its
LLVM attributes, the /proc/cpuinfo flags that show the host has it)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TargetArch(StrEnum):
    """Architectures, under the member names of Halide's Python `TargetArch`."""

    ArchUnknown = "arch_unknown"  # Target()'s, until an arch is given
    ARM = "arm"
    POWERPC = "powerpc"
    RISCV = "riscv"
    WebAssembly = "wasm"
    X86 = "x86"


class TargetOS(StrEnum):
    """Operating systems, under the member names of Halide's Python `TargetOS`."""

    OSUnknown = "os_unknown"  # Target()'s, until an os is given
    Android = "android"
    IOS = "ios"
    Linux = "linux"
    NoOS = "noos"
    OSX = "osx"
    Windows = "windows"
    wasmrt = "wasmrt"


class TargetFeature(StrEnum):
    """Features, under the member names of Halide's Python `TargetFeature`.

    Members are strings, so `TargetFeature.AVX2 == "avx2"`; every API here takes either.
    """

    ARMDotProd = "arm_dot_prod"
    ARMFp16 = "arm_fp16"
    ARMv7s = "armv7s"
    AVX = "avx"
    AVX2 = "avx2"
    AVX512 = "avx512"
    AVX512_Cannonlake = "avx512_cannonlake"
    AVX512_SapphireRapids = "avx512_sapphirerapids"
    AVX512_Skylake = "avx512_skylake"
    AVX512_Zen4 = "avx512_zen4"
    AVX512_Zen5 = "avx512_zen5"
    AVXVNNI = "avxvnni"
    CPlusPlusMangling = "c_plus_plus_name_mangling"
    CUDA = "cuda"
    D3D12Compute = "d3d12compute"
    Debug = "debug"
    F16C = "f16c"
    FMA = "fma"
    JIT = "jit"
    LargeBuffers = "large_buffers"
    Metal = "metal"
    NoAsserts = "no_asserts"
    NoBoundsQuery = "no_bounds_query"
    NoRuntime = "no_runtime"
    OpenCL = "opencl"
    Profile = "profile"
    SSE41 = "sse41"
    StrictFloat = "strict_float"
    TraceLoads = "trace_loads"
    TracePipeline = "trace_pipeline"
    TraceRealizations = "trace_realizations"
    TraceStores = "trace_stores"
    UserContext = "user_context"
    Vulkan = "vulkan"
    VulkanFloat16 = "vk_float16"
    VulkanFloat64 = "vk_float64"
    VulkanInt16 = "vk_int16"
    VulkanInt64 = "vk_int64"
    VulkanInt8 = "vk_int8"
    VulkanV10 = "vk_v10"
    VulkanV12 = "vk_v12"
    VulkanV13 = "vk_v13"
    WasmBulkMemory = "wasm_bulk_memory"
    WasmMvpOnly = "wasm_mvponly"
    WasmSimd128 = "wasm_simd128"
    WasmThreads = "wasm_threads"
    WebGPU = "webgpu"


ARCH_UNKNOWN, OS_UNKNOWN = TargetArch.ArchUnknown.value, TargetOS.OSUnknown.value
ARCHS: tuple[str, ...] = tuple(sorted(a.value for a in TargetArch if a != ARCH_UNKNOWN))
OSES: tuple[str, ...] = tuple(sorted(o.value for o in TargetOS if o != OS_UNKNOWN))
BITS = (32, 64)
REFERENCE = "reference"


@dataclass(frozen=True)
class FeatureInfo:
    """What webhal knows about one feature.

    archs: the architectures it fits (None: every one). implies: features that come with it when
    code is generated (`avx2` needs `avx`), though `has_feature` stays literal. llvm: the LLVM
    attributes it turns on. cpu_flags: the /proc/cpuinfo flags that show the host has it.
    """

    archs: frozenset[str] | None = None
    implies: tuple[str, ...] = ()
    llvm: tuple[str, ...] = ()
    cpu_flags: tuple[str, ...] = ()


_X86 = frozenset({"x86"})
_ARM = frozenset({"arm"})
_WASM = frozenset({"wasm"})


def _x86(llvm: tuple[str, ...], flags: tuple[str, ...], implies: tuple[str, ...] = ()):
    return FeatureInfo(_X86, implies, llvm, flags)


# x86 rows are in order of growing capability; llvm_cpu_features lists them in this order.
FEATURES: dict[str, FeatureInfo] = {
    "sse41": _x86(("sse4.1",), ("sse4_1",)),
    "avx": _x86(("avx",), ("avx",), ("sse41",)),
    "avx2": _x86(("avx2",), ("avx2",), ("avx",)),
    "fma": _x86(("fma",), ("fma",), ("avx",)),
    "f16c": _x86(("f16c",), ("f16c",), ("avx",)),
    "avxvnni": _x86(("avxvnni",), ("avx_vnni",), ("avx2",)),
    "avx512": _x86(("avx512f", "avx512cd"), ("avx512f", "avx512cd"), ("avx2", "fma", "f16c")),
    "avx512_skylake": _x86(("avx512vl", "avx512bw", "avx512dq"),
                           ("avx512vl", "avx512bw", "avx512dq"), ("avx512",)),
    "avx512_cannonlake": _x86(("avx512ifma", "avx512vbmi"), ("avx512ifma", "avx512vbmi"),
                              ("avx512_skylake",)),
    "avx512_zen4": _x86(
        ("avx512vnni", "avx512bf16", "avx512vbmi2", "avx512bitalg", "avx512vpopcntdq"),
        ("avx512_vnni", "avx512_bf16", "avx512_vbmi2", "avx512_bitalg", "avx512_vpopcntdq"),
        ("avx512_cannonlake",)),
    "avx512_zen5": _x86(("avx512vp2intersect",), ("avx512_vp2intersect",),
                        ("avx512_zen4", "avxvnni")),
    "avx512_sapphirerapids": _x86(("avx512fp16",), ("avx512_fp16",), ("avx512_zen4", "avxvnni")),
    "arm_dot_prod": FeatureInfo(_ARM, llvm=("dotprod",), cpu_flags=("asimddp",)),
    "arm_fp16": FeatureInfo(_ARM, llvm=("fullfp16",), cpu_flags=("asimdhp",)),
    "armv7s": FeatureInfo(_ARM),  # Apple's 32-bit ARM variant: the armv7s triple
    "wasm_simd128": FeatureInfo(_WASM),
    "wasm_threads": FeatureInfo(_WASM, implies=("wasm_bulk_memory",)),
    "wasm_mvponly": FeatureInfo(_WASM),
    "wasm_bulk_memory": FeatureInfo(_WASM),
    **{name: FeatureInfo() for name in (
        "webgpu", "vulkan", "vk_int8", "vk_int16", "vk_int64", "vk_float16", "vk_float64",
        "vk_v10", "vk_v12", "vk_v13", "cuda", "opencl", "metal", "d3d12compute",
        "debug", "no_asserts", "no_bounds_query", "no_runtime", "jit", "profile",
        "large_buffers", "user_context", "c_plus_plus_name_mangling", "strict_float",
        "trace_loads", "trace_stores", "trace_realizations", "trace_pipeline",
    )},
}

# A token that stands for several features. Halide prints `trace_all` for exactly these three
# when `trace_pipeline` is off, and the three names one by one otherwise; webhal does the same.
TRACE_ALL = frozenset({"trace_loads", "trace_realizations", "trace_stores"})
ALIASES: dict[str, frozenset[str]] = {"trace_all": TRACE_ALL}

# The canonical order of features in a target string. Halide 21 prints features sorted by name
# (checked with str(halide.Target(s)); not in the order of its Feature enum), so webhal does too.
FEATURE_ORDER: tuple[str, ...] = tuple(sorted([*FEATURES, *ALIASES]))
ORDER_INDEX = {name: i for i, name in enumerate(FEATURE_ORDER)}

GPU_FEATURES = frozenset({"webgpu", "vulkan", "cuda", "opencl", "metal", "d3d12compute"})
