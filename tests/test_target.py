"""webhal.target: parsing, formatting, features, vector sizes, host, environment, LLVM strings."""

import pickle
import platform

import numpy as np
import pytest

import webhal as hl
from webhal.errors import TargetError
from webhal.target import (
    FEATURE_ORDER,
    FEATURES,
    Target,
    TargetArch,
    TargetFeature,
    TargetOS,
    _features_from_cpuinfo,
    get_host_target,
    get_jit_target_from_environment,
    get_target_from_environment,
)

CANONICAL = [
    "wasm-32-wasmrt",
    "wasm-32-wasmrt-wasm_simd128",
    "wasm-32-wasmrt-wasm_simd128-wasm_threads-webgpu",
    "wasm-32-wasmrt-wasm_bulk_memory-wasm_mvponly",
    "x86-64-linux",
    "x86-64-linux-avx-avx2-f16c-fma-sse41",
    "x86-64-linux-avx512-avx512_skylake",
    "x86-64-linux-vk_int8-vk_v13-vulkan",
    "x86-64-linux-debug-jit-no_asserts",
    "x86-64-linux-debug-trace_all-user_context",
    "x86-64-osx-metal",
    "x86-64-windows-c_plus_plus_name_mangling-large_buffers-no_runtime-strict_float",
    "arm-64-osx-arm_dot_prod-arm_fp16",
    "arm-64-android-opencl",
    "x86-64-linux-cuda-profile-trace_loads-trace_pipeline-trace_realizations-trace_stores",
    "x86-64-linux-vk_float16-vk_float64-vk_int16-vk_int64-vk_v10-vk_v12",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_strings_round_trip(text):
    target = Target(text)
    assert str(target) == text
    assert target.to_string() == text
    assert Target(str(target)) == target


def test_feature_order_is_sorted_and_covers_every_feature():
    assert list(FEATURE_ORDER) == sorted(FEATURE_ORDER)
    assert set(FEATURES) | {"trace_all"} == set(FEATURE_ORDER)
    assert {f.value for f in TargetFeature} <= set(FEATURES)


def test_parse_is_order_insensitive():
    a = Target("wasm-32-wasmrt-webgpu-wasm_threads-wasm_simd128")
    b = Target("wasm-32-wasmrt-wasm_simd128-wasm_threads-webgpu")
    assert a == b and hash(a) == hash(b)
    assert str(a) == "wasm-32-wasmrt-wasm_simd128-wasm_threads-webgpu"
    assert str(Target("x86-64-linux-sse41-fma-avx2-f16c-avx")) == (
        "x86-64-linux-avx-avx2-f16c-fma-sse41")
    assert len({a, b, Target("wasm-32-wasmrt")}) == 2


def test_attributes():
    t = Target("wasm-32-wasmrt-wasm_simd128-webgpu")
    assert (t.arch, t.bits, t.os) == ("wasm", 32, "wasmrt")
    assert t.features == frozenset({"wasm_simd128", "webgpu"})
    assert t.is_wasm and not t.is_reference and t.has_gpu_feature()
    assert not Target("x86-64-linux-avx").has_gpu_feature()
    assert repr(t) == "<halide.Target wasm-32-wasmrt-wasm_simd128-webgpu>"


def test_constructor_from_parts_with_enums_and_strings():
    from_enums = Target(TargetOS.wasmrt, TargetArch.WebAssembly, 32,
                        [TargetFeature.WasmSimd128, TargetFeature.WebGPU])
    from_strings = Target("wasmrt", "wasm", 32, features=["webgpu", "wasm_simd128"])
    assert from_enums == from_strings == Target("wasm-32-wasmrt-wasm_simd128-webgpu")
    assert Target("linux", "x86", 64) == Target("x86-64-linux")
    assert type(from_enums.arch) is str and type(next(iter(from_enums.features))) is str


def test_constructor_in_wrong_order_says_the_order():
    with pytest.raises(TargetError, match=r"\(os, arch, bits, features\)"):
        Target("x86", "linux", 64)


def test_copy_and_pickle():
    t = Target("x86-64-linux-avx2-webgpu")
    assert Target(t) == t
    assert pickle.loads(pickle.dumps(t)) == t


def test_targets_change_in_place_as_halides():
    t = Target("x86-64-linux")
    t.os = TargetOS.Android
    t.arch, t.bits = "arm", 32
    t.set_feature(TargetFeature.ARMDotProd)
    assert str(t) == "arm-32-android-arm_dot_prod"
    t.set_feature("arm_dot_prod", False)
    assert str(t) == "arm-32-android" and t == Target("arm-32-android")
    w = Target("x86-64-linux")
    w.arch = "wasm"  # checked once os agrees: wasm is 32-bit wasmrt
    with pytest.raises(TargetError, match="wasm targets are wasm-32-wasmrt"):
        w.os = "wasmrt"
    u = Target("x86-64-linux-avx2-webgpu")
    assert str(u.with_feature("sse41")) != str(u)  # with_feature still returns a new one
    u.arch = "arm"  # x86's features cannot stay; the others do
    assert str(u) == "arm-64-linux-webgpu"
    u.set_features(["arm_fp16", "arm_dot_prod"])
    assert u.has_feature("arm_fp16") and u.has_feature("arm_dot_prod")


def test_supported_names_the_gpu_apis_webhal_compiles():
    assert Target("host-vulkan").supported() and Target("host-webgpu").supported()
    assert not Target("host-cuda").supported()


def test_reference_target():
    r = Target("reference")
    assert r.is_reference and not r.is_wasm and not r.has_gpu_feature()
    assert str(r) == "reference" and r == Target("reference")
    assert r.features == frozenset()
    assert r.natural_vector_size(32) == 1
    with pytest.raises(TargetError, match="no features"):
        Target("reference-debug")
    with pytest.raises(TargetError, match="reference"):
        _ = r.llvm_triple


def test_trace_all_stands_for_three_features():
    t = Target("x86-64-linux-trace_all")
    assert t.features == {"trace_loads", "trace_stores", "trace_realizations"}
    assert t.has_feature("trace_all")
    assert t == Target("x86-64-linux-trace_realizations-trace_stores-trace_loads")
    assert str(t.with_feature("trace_pipeline")) == (
        "x86-64-linux-trace_loads-trace_pipeline-trace_realizations-trace_stores")
    assert str(t.without_feature("trace_all")) == "x86-64-linux"


# --- host -------------------------------------------------------------------------------------

def test_host_is_this_machine():
    host = Target("host")
    assert Target("") == host == get_host_target()
    assert not host.has_gpu_feature()
    assert "host" not in str(host)
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert (host.arch, host.bits) == ("x86", 64)
    if platform.system() == "Linux":
        assert host.os == "linux"


def test_host_features_match_cpuinfo():
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        pytest.skip("no /proc/cpuinfo here: host features are the arch baseline")
    host = Target("host")
    assert host.features == _features_from_cpuinfo(host.arch, text)
    flags = set(next((ln.split(":", 1)[1].split() for ln in text.splitlines()
                      if ln.startswith("flags")), []))
    if host.arch == "x86":
        assert host.has_feature("sse41") == ("sse4_1" in flags)
        assert host.has_feature("avx2") == ("avx2" in flags and "avx" in flags)


def test_host_keeps_added_features():
    t = Target("host-webgpu")
    assert t.has_feature("webgpu")
    assert t.without_feature("webgpu") == Target("host")


def test_cpuinfo_flags_map_to_features():
    def features(flags):
        return _features_from_cpuinfo("x86", f"processor : 0\nflags\t\t: {flags}\n")

    assert features("sse2 sse4_1") == {"sse41"}
    assert features("sse4_1 avx avx2 fma f16c") == {"sse41", "avx", "avx2", "fma", "f16c"}
    skylake = "sse4_1 avx avx2 fma f16c avx512f avx512cd avx512vl avx512bw avx512dq"
    assert features(skylake) >= {"avx512", "avx512_skylake"}
    assert "avx512_cannonlake" not in features(skylake)
    # A feature whose prerequisites are missing is not claimed.
    assert features("avx2") == frozenset()
    arm = _features_from_cpuinfo("arm", "Features\t: fp asimd asimdhp asimddp\n")
    assert arm == {"arm_fp16", "arm_dot_prod"}


def test_zen_features_only_on_amd_hosts():
    """As Halide: the flags of avx512_zen4 on an Intel host are named by
    avx512_sapphirerapids (which implies them), not by zen4."""
    flags = ("sse4_1 avx avx2 fma f16c avx_vnni avx512f avx512cd avx512vl avx512bw avx512dq "
             "avx512ifma avx512vbmi avx512_vnni avx512_bf16 avx512_vbmi2 avx512_bitalg "
             "avx512_vpopcntdq avx512_fp16")
    intel = _features_from_cpuinfo("x86", f"vendor_id\t: GenuineIntel\nflags\t\t: {flags}\n")
    amd = _features_from_cpuinfo("x86", f"vendor_id\t: AuthenticAMD\nflags\t\t: {flags}\n")
    assert "avx512_sapphirerapids" in intel and "avx512_zen4" not in intel
    assert "avx512_zen4" in amd
    assert "+avx512vnni" in Target("x86-64-linux-avx512_sapphirerapids").llvm_cpu_features


# --- errors -----------------------------------------------------------------------------------

def test_unknown_feature_names_token_and_alternatives():
    with pytest.raises(TargetError) as e:
        Target("wasm-32-wasmrt-wasm_simd")
    message = str(e.value)
    assert "'wasm_simd'" in message and "wasm_simd128" in message
    assert "avx2" not in message  # only what fits wasm


def test_feature_for_wrong_arch():
    with pytest.raises(TargetError) as e:
        Target("x86-64-linux-wasm_simd128")
    message = str(e.value)
    assert "'wasm_simd128'" in message and "wasm" in message and "avx2" in message
    with pytest.raises(TargetError, match="arm_fp16"):
        Target("x86-64-linux-arm_fp16")
    with pytest.raises(TargetError, match="'avx'"):
        Target("wasm-32-wasmrt-avx")
    with pytest.raises(TargetError, match="'sse41'"):
        Target("wasmrt", "wasm", 32, ["sse41"])


@pytest.mark.parametrize("text, token", [
    ("mips-32-linux", "mips"),
    ("x86-16-linux", "16"),
    ("x86-64-beos", "beos"),
    ("x86-64", "x86-64"),
    ("wasm-64-wasmrt", "wasm-32-wasmrt"),
    ("wasm-32-linux", "wasm-32-wasmrt"),
    ("x86-64-wasmrt", "wasmrt"),
])
def test_bad_arch_bits_os(text, token):
    with pytest.raises(TargetError, match=token):
        Target(text)
    assert not Target.validate_target_string(text)


def test_the_empty_string_is_the_host_but_not_a_target_string():
    assert Target("") == Target("host") == Target("  ")
    assert not Target.validate_target_string("")


@pytest.mark.parametrize("text, meant", [
    ("wasm32-wasmrt", "wasm-32-wasmrt"),
    ("wasm32-wasmrt-wasm_simd128", "wasm-32-wasmrt-wasm_simd128"),
    ("x86_64-linux-avx", "x86-64-linux-avx"),
])
def test_an_arch_written_with_its_bits_gets_a_suggestion(text, meant):
    with pytest.raises(TargetError, match=f"Did you mean '{meant}'"):
        Target(text)


def test_the_enums_are_webhals_names_as_in_halide():
    t = hl.Target(hl.TargetOS.Linux, hl.TargetArch.X86, 64, [hl.TargetFeature.SSE41])
    assert str(t) == "x86-64-linux-sse41"
    assert t.os == hl.TargetOS.Linux and t.arch == hl.TargetArch.X86
    assert t.has_feature(hl.TargetFeature.SSE41) and not t.has_feature(hl.TargetFeature.AVX)
    assert t.with_feature(hl.TargetFeature.AVX).has_feature("avx")
    assert hl.Target("wasm-32-wasmrt").os == hl.TargetOS.wasmrt


def test_validate_target_string():
    assert Target.validate_target_string("wasm-32-wasmrt-wasm_simd128")
    assert not Target.validate_target_string("x86-64-linux-nope")


# --- features ---------------------------------------------------------------------------------

def test_with_and_without_feature():
    base = Target("wasm-32-wasmrt")
    simd = base.with_feature("wasm_simd128")
    assert simd is not base and str(simd) == "wasm-32-wasmrt-wasm_simd128"
    assert str(base) == "wasm-32-wasmrt"  # unchanged
    assert simd.without_feature(TargetFeature.WasmSimd128) == base
    assert base.without_feature("webgpu") == base
    with pytest.raises(TargetError, match="'avx2'"):
        base.with_feature("avx2")
    with pytest.raises(TargetError, match="'bogus'"):
        base.without_feature("bogus")


def test_has_feature_and_sets():
    t = Target("x86-64-linux-avx-avx2-webgpu")
    assert t.has_feature("avx2") and t.has_feature(TargetFeature.WebGPU)
    assert not t.has_feature("sse41")  # literal: implied features are not reported
    assert t.features_all_of(["avx", "avx2"]) and not t.features_all_of(["avx", "fma"])
    assert t.features_any_of(["fma", "avx2"]) and not t.features_any_of(["fma", "f16c"])
    with pytest.raises(TargetError, match="'avx3'"):
        t.has_feature("avx3")


def test_every_arch_specific_feature_is_refused_elsewhere():
    for name, info in FEATURES.items():
        for text in ("x86-64-linux", "arm-64-linux", "wasm-32-wasmrt"):
            target = Target(text)
            if not info.supported:  # Halide's, with nothing behind it in webhal
                with pytest.raises(TargetError, match="webhal does not support it"):
                    target.with_feature(name)
                assert not target.has_feature(name)
            elif info.archs is None or target.arch in info.archs:
                assert target.with_feature(name).has_feature(name)
            else:
                with pytest.raises(TargetError, match=name):
                    target.with_feature(name)


# --- vectors ----------------------------------------------------------------------------------

class FakeType:
    """Stands in for hl.Type: .bits and .code."""

    def __init__(self, code, bits):
        self.code, self.bits = code, bits


def test_natural_vector_size_wasm():
    simd = Target("wasm-32-wasmrt-wasm_simd128")
    assert [simd.natural_vector_size(b) for b in (8, 16, 32, 64)] == [16, 8, 4, 2]
    assert simd.natural_vector_size(np.float32) == 4
    assert simd.natural_vector_size(np.dtype("uint8")) == 16
    assert simd.natural_vector_size(FakeType("float", 64)) == 2
    assert simd.natural_vector_size(FakeType("uint", 1)) == 16  # bool: one byte a lane
    assert simd.vector_bits == 128
    scalar = Target("wasm-32-wasmrt")
    assert [scalar.natural_vector_size(b) for b in (8, 32)] == [1, 1]
    assert scalar.vector_bits == 0


def test_natural_vector_size_x86_and_arm():
    f32, i32, u8 = FakeType("float", 32), FakeType("int", 32), np.uint8
    sizes = {
        "x86-64-linux": (4, 4, 16),
        "x86-64-linux-sse41": (4, 4, 16),
        "x86-64-linux-avx": (8, 4, 16),  # AVX1: 256-bit floats, 128-bit integers
        "x86-64-linux-avx-avx2": (8, 8, 32),
        "x86-64-linux-avx2": (8, 8, 32),  # avx2 brings avx along
        "x86-64-linux-avx512": (16, 8, 32),
        "x86-64-linux-avx512_skylake": (16, 16, 64),
        "arm-64-linux": (4, 4, 16),
    }
    for text, expected in sizes.items():
        t = Target(text)
        assert tuple(t.natural_vector_size(x) for x in (f32, i32, u8)) == expected, text
    assert Target("x86-64-linux-avx2").vector_bits == 256
    assert Target("x86-64-linux-avx512_skylake").vector_bits == 512


def test_natural_vector_size_rejects_nonsense():
    with pytest.raises(TypeError):
        Target("x86-64-linux").natural_vector_size(object())


# --- environment ------------------------------------------------------------------------------

def test_target_from_environment(monkeypatch):
    monkeypatch.delenv("HL_TARGET", raising=False)
    assert get_target_from_environment() == Target("host")
    monkeypatch.setenv("HL_TARGET", "wasm-32-wasmrt-webgpu-wasm_simd128")
    assert str(get_target_from_environment()) == "wasm-32-wasmrt-wasm_simd128-webgpu"
    monkeypatch.setenv("HL_TARGET", "")
    assert get_target_from_environment() == Target("host")
    monkeypatch.setenv("HL_TARGET", "x86-64-linux-wasm_threads")
    with pytest.raises(TargetError, match="HL_TARGET=.*wasm_threads"):
        get_target_from_environment()


def test_jit_target_from_environment(monkeypatch):
    monkeypatch.delenv("HL_JIT_TARGET", raising=False)
    assert get_jit_target_from_environment() == Target("host-jit")
    monkeypatch.setenv("HL_JIT_TARGET", "reference")
    assert get_jit_target_from_environment().is_reference
    monkeypatch.setenv("HL_JIT_TARGET", "wasm-32-wasmrt-wasm_simd128")
    assert str(get_jit_target_from_environment()) == "wasm-32-wasmrt-jit-wasm_simd128"
    foreign = "arm-64-ios" if Target("host").arch != "arm" else "x86-64-windows"
    monkeypatch.setenv("HL_JIT_TARGET", foreign)
    with pytest.raises(TargetError, match="HL_JIT_TARGET"):
        get_jit_target_from_environment()


# --- LLVM -------------------------------------------------------------------------------------

def test_llvm_triples():
    assert Target("wasm-32-wasmrt").llvm_triple == "wasm32-unknown-emscripten"
    assert Target("x86-64-linux-avx").llvm_triple == "x86_64-unknown-linux-gnu"
    assert Target("x86-64-osx").llvm_triple == "x86_64-apple-macosx"
    assert Target("x86-64-windows").llvm_triple == "x86_64-pc-windows-msvc"
    assert Target("arm-64-linux").llvm_triple == "aarch64-unknown-linux-gnu"
    assert Target("arm-64-osx").llvm_triple == "arm64-apple-macosx"
    assert Target("arm-32-android").llvm_triple == "armv7-linux-androideabi"


def test_llvm_features_wasm():
    def attrs(text, major=22):
        return Target(text).llvm_cpu_features_for(major).split(",")

    full = attrs("wasm-32-wasmrt-wasm_simd128-wasm_threads")
    assert full[:6] == ["+simd128", "+atomics", "+bulk-memory", "+mutable-globals",
                        "+sign-ext", "+nontrapping-fptoint"]
    assert {"-multivalue", "-reference-types", "-call-indirect-overlong"} <= set(full)
    assert "-bulk-memory-opt" not in full
    mvp = attrs("wasm-32-wasmrt-wasm_mvponly")
    for name in ("simd128", "atomics", "bulk-memory", "bulk-memory-opt", "mutable-globals",
                 "sign-ext", "nontrapping-fptoint"):
        assert "-" + name in mvp
    assert "+bulk-memory" in attrs("wasm-32-wasmrt-wasm_bulk_memory")
    assert "-mutable-globals" in attrs("wasm-32-wasmrt-wasm_bulk_memory")
    old = attrs("wasm-32-wasmrt", major=15)  # names LLVM 15 does not know are left out
    assert "-bulk-memory-opt" not in old and "-call-indirect-overlong" not in old
    assert "+sign-ext" in old


def test_llvm_features_x86_and_arm():
    x86 = Target("x86-64-linux-sse41-avx-avx2-fma-f16c").llvm_cpu_features_for(22).split(",")
    assert x86[:5] == ["+sse4.1", "+avx", "+avx2", "+fma", "+f16c"]
    assert "-avx512f" in x86 and not any(a.startswith("+avx512") for a in x86)
    # Implied features are switched on, never off, so the string does not contradict itself.
    skylake = Target("x86-64-linux-avx512_skylake").llvm_cpu_features_for(22).split(",")
    assert {"+avx2", "+fma", "+avx512f", "+avx512bw"} <= set(skylake)
    assert not {"-avx2", "-avx", "-sse4.1"} & set(skylake)
    assert Target("arm-64-linux-arm_dot_prod").llvm_cpu_features_for(22) == (
        "+dotprod,-fullfp16")


def test_llvm_features_are_accepted_by_llvmlite(capfd):
    binding = pytest.importorskip("llvmlite.binding")
    for fn in ("initialize_all_targets", "initialize_all_asmprinters"):
        getattr(binding, fn)()
    for text in ("wasm-32-wasmrt-wasm_simd128-wasm_threads", "wasm-32-wasmrt-wasm_mvponly",
                 "x86-64-linux-avx512_sapphirerapids", "x86-64-linux-avx512_zen5",
                 "arm-64-linux-arm_dot_prod-arm_fp16", "arm-32-linux"):
        t = Target(text)
        machine = binding.Target.from_triple(t.llvm_triple).create_target_machine(
            features=t.llvm_cpu_features)
        assert machine.triple == t.llvm_triple
    assert "not a recognized feature" not in capfd.readouterr().err


# --- the same strings as Halide ---------------------------------------------------------------

@pytest.mark.halide
def test_formatting_agrees_with_halide():
    halide = pytest.importorskip("halide")
    inputs = CANONICAL + [
        "wasm-32-wasmrt-webgpu-wasm_threads-wasm_simd128",
        "x86-64-linux-sse41-avx-avx2-fma-f16c",
        "x86-64-linux-avx512_skylake-avx512",
        "x86-64-linux-vulkan-vk_v13-vk_int8",
        "x86-64-linux-no_asserts-debug-jit",
        "x86-64-linux-trace_all-avx-webgpu-trace_pipeline",
        "x86-64-linux-avxvnni-avx512_zen5-avx512_sapphirerapids-avx512_zen4-no_bounds_query",
    ]
    for text in inputs:
        assert str(Target(text)) == str(halide.Target(text)), text


@pytest.mark.halide
def test_host_agrees_with_halide_except_tuning():
    halide = pytest.importorskip("halide")
    theirs = [t for t in str(halide.get_host_target()).split("-") if not t.startswith("tune_")]
    known = set(FEATURE_ORDER)
    # Compare what webhal knows about; Halide may list features webhal does not model.
    theirs = theirs[:3] + [t for t in theirs[3:] if t in known]
    assert str(get_host_target()) == "-".join(theirs)


@pytest.mark.halide
def test_wrong_arch_is_refused_like_halide():
    halide = pytest.importorskip("halide")
    for text in ("x86-64-linux-wasm_simd128", "wasm-32-wasmrt-avx", "arm-64-linux-sse41",
                 "x86-64-linux-arm_fp16"):
        assert not Target.validate_target_string(text)
        with pytest.raises(Exception):  # noqa: B017 - halide raises its own HalideError
            halide.Target(text)


# --- Halide's unknown target and its questions ---------------------------------------------------

def test_no_argument_target_is_halides_unknown_target():
    import halide
    for lib in (halide, hl):
        t = lib.Target()
        assert (t.to_string(), repr(t)) == ("arch_unknown-0-os_unknown",
                                            "<halide.Target arch_unknown-0-os_unknown>")
        assert (t.os, t.arch, t.bits) == (lib.TargetOS.OSUnknown, lib.TargetArch.ArchUnknown, 0)
        assert not lib.Target.validate_target_string(t.to_string())
        t.os, t.arch, t.bits = lib.TargetOS.Linux, lib.TargetArch.ARM, 64
        assert t.to_string() == "arm-64-linux"


def test_an_unknown_target_is_not_compiled_for():
    f = hl.Func("f")
    x = hl.Var("x")
    f[x] = x
    with pytest.raises(hl.HalideError, match="cannot run code for arch_unknown-0-os_unknown"):
        f.realize([3], hl.Target())
    with pytest.raises(hl.HalideError, match="target arch_unknown-0-os_unknown has no arch, "
                       "bits or os yet"):
        f.compile_to_file("/nonexistent/f", [], "f", hl.Target())


def test_buffer_sizes_device_apis_and_types_as_halide():
    import halide
    for lib in (halide, hl):
        def t(*features, os=lib.TargetOS.Linux, lib=lib):
            return lib.Target(os, lib.TargetArch.X86, 64, list(features))
        assert t(lib.TargetFeature.LargeBuffers).maximum_buffer_size() == (1 << 63) - 1
        assert t().maximum_buffer_size() == (1 << 31) - 1 and not t().has_large_buffers()
        assert t(lib.TargetFeature.CUDA).supports_device_api(lib.DeviceAPI.CUDA)
        assert not t().supports_device_api(lib.DeviceAPI.CUDA)
        assert t().supports_device_api(lib.DeviceAPI.Host)
        metal = t(lib.TargetFeature.Metal, os=lib.TargetOS.OSX)
        assert not metal.supports_type(lib.Float(64))
        assert not metal.supports_type(lib.Float(64), lib.DeviceAPI.Metal)
        assert t().supports_type(lib.Float(64))
        assert (lib.target_feature_for_device_api(lib.DeviceAPI.OpenCL)
                == lib.TargetFeature.OpenCL)
        with pytest.raises(TypeError, match="incompatible constructor arguments"):
            lib.Target(lib.TargetOS.Linux, lib.TargetArch.X86, 32, ["this is a string"])
    webgpu = Target("host-webgpu")
    assert not webgpu.supports_type(hl.Float(64), hl.DeviceAPI.WebGPU)
    assert not webgpu.supports_type(hl.Float(64))  # as Halide's: some kernel could not
    assert not Target("host-vulkan").supports_type(hl.Int(64), hl.DeviceAPI.Vulkan)
    assert Target("host-vulkan-vk_int64").supports_type(hl.Int(64), hl.DeviceAPI.Vulkan)


@pytest.mark.halide
def test_every_feature_of_halides_enum_is_named_as_halide_names_it():
    halide = pytest.importorskip("halide")
    bare = halide.Target("x86-64-linux")
    for name, member in halide.TargetFeature.__members__.items():
        if name == "FeatureEnd":  # the enum's end marker, not a feature
            continue
        ours = getattr(TargetFeature, name)
        added = set(str(bare.with_feature(member)).split("-")) - set(str(bare).split("-"))
        assert ours.value in added, name
        assert not Target("x86-64-linux").has_feature(ours)  # answered, never an error
