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
    # Halide's features that webhal has no backend or option for (UNSUPPORTED below): known
    # names, so has_feature answers False for them, but a target may not set them.
    ARMv8a = "armv8a"
    ARMv81a = "armv81a"
    ARMv82a = "armv82a"
    ARMv83a = "armv83a"
    ARMv84a = "armv84a"
    ARMv85a = "armv85a"
    ARMv86a = "armv86a"
    ARMv87a = "armv87a"
    ARMv88a = "armv88a"
    ARMv89a = "armv89a"
    ASAN = "asan"
    AVX10_1 = "avx10_1"
    AVX512_KNL = "avx512_knl"
    CLAtomics64 = "cl_atomics64"
    CLDoubles = "cl_doubles"
    CLHalf = "cl_half"
    CUDACapability30 = "cuda_capability_30"
    CUDACapability32 = "cuda_capability_32"
    CUDACapability35 = "cuda_capability_35"
    CUDACapability50 = "cuda_capability_50"
    CUDACapability61 = "cuda_capability_61"
    CUDACapability70 = "cuda_capability_70"
    CUDACapability75 = "cuda_capability_75"
    CUDACapability80 = "cuda_capability_80"
    CUDACapability86 = "cuda_capability_86"
    CheckUnsafePromises = "check_unsafe_promises"
    EGL = "egl"
    EmbedBitcode = "embed_bitcode"
    EnableBacktraces = "enable_backtraces"
    EnableLLVMLoopOpt = "enable_llvm_loop_opt"
    FMA4 = "fma4"
    FuzzFloatStores = "fuzz_float_stores"
    HVX_128 = "hvx_128"
    HVX = "hvx_128"  # Halide's other name for HVX_128 (the same member)
    HVX_v62 = "hvx_v62"
    HVX_v65 = "hvx_v65"
    HVX_v66 = "hvx_v66"
    HVX_v68 = "hvx_v68"
    HexagonDma = "hexagon_dma"
    LLVMLargeCodeModel = "llvm_large_code_model"
    MSAN = "msan"
    NoNEON = "no_neon"
    POWER_ARCH_2_07 = "power_arch_2_07"
    ProfileByTimer = "profile_by_timer"
    RVV = "rvv"
    SPIRV = "spirv"
    SVE = "sve"
    SVE2 = "sve2"
    SanitizerCoverage = "sanitizer_coverage"
    Semihosting = "semihosting"
    Simulator = "simulator"
    SoftFloatABI = "soft_float_abi"
    TSAN = "tsan"
    VSX = "vsx"
    X86APX = "x86apx"


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
    supported: False for Halide's features webhal cannot honour (Hexagon, sanitizers, CUDA
    capabilities, ...): a target refuses them, and has_feature answers False.
    """

    archs: frozenset[str] | None = None
    implies: tuple[str, ...] = ()
    llvm: tuple[str, ...] = ()
    cpu_flags: tuple[str, ...] = ()
    supported: bool = True  # False: Halide's, but webhal has no backend or option for it


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
    # Halide's names with nothing behind them in webhal; "hvx" is Halide's other spelling of
    # hvx_128.
    **{name: FeatureInfo(supported=False) for name in (
        "armv8a", "armv81a", "armv82a", "armv83a", "armv84a", "armv85a", "armv86a", "armv87a",
        "armv88a", "armv89a", "asan", "avx10_1", "avx512_knl", "cl_atomics64", "cl_doubles",
        "cl_half", "cuda_capability_30", "cuda_capability_32", "cuda_capability_35",
        "cuda_capability_50", "cuda_capability_61", "cuda_capability_70", "cuda_capability_75",
        "cuda_capability_80", "cuda_capability_86", "check_unsafe_promises", "egl",
        "embed_bitcode", "enable_backtraces", "enable_llvm_loop_opt", "fma4",
        "fuzz_float_stores", "hvx", "hvx_128", "hvx_v62", "hvx_v65", "hvx_v66", "hvx_v68",
        "hexagon_dma", "llvm_large_code_model", "msan", "no_neon", "power_arch_2_07",
        "profile_by_timer", "rvv", "spirv", "sve", "sve2", "sanitizer_coverage", "semihosting",
        "simulator", "soft_float_abi", "tsan", "vsx", "x86apx",
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
