"""What a pipeline is compiled for, written as Halide's target strings.

A target string is `arch-bits-os-feature-feature...` (`wasm-32-wasmrt-wasm_simd128-webgpu`,
`x86-64-linux-avx-avx2-fma`), or `host[-feature...]` for the machine Python runs on, or webhal's
own `reference` (the numpy evaluator). `Target` parses and formats them, checks each feature
against the architecture, and answers the questions the compiler asks: vector widths, the LLVM
triple and the LLVM feature string. A `Target` is immutable and compares and hashes by value.
"""

from __future__ import annotations

import difflib
import functools
import os
import platform
import re
import struct
import sys
from collections.abc import Iterable
from typing import Any

from webhal.errors import TargetArgumentError, TargetError
from webhal.target_features import (
    ALIASES,
    ARCH_UNKNOWN,
    ARCHS,
    BITS,
    FEATURE_ORDER,
    FEATURES,
    GPU_FEATURES,
    ORDER_INDEX,
    OS_UNKNOWN,
    OSES,
    REFERENCE,
    TRACE_ALL,
    TargetArch,
    TargetFeature,
    TargetOS,
)

__all__ = [
    "ARCHS",
    "FEATURE_ORDER",
    "FEATURES",
    "OSES",
    "Target",
    "TargetArch",
    "TargetFeature",
    "TargetOS",
    "get_host_target",
    "get_jit_target_from_environment",
    "get_target_from_environment",
]


_SYNTAX = ("target strings are arch-bits-os[-feature...] (e.g. wasm-32-wasmrt-wasm_simd128), "
           "host[-feature...], or reference")


def _fits(feature: str, arch: str) -> bool:
    archs = FEATURES[feature].archs
    return archs is None or arch in archs


def _valid_tokens(arch: str) -> list[str]:
    return [name for name in FEATURE_ORDER
            if name in ALIASES or _fits(name, arch) and FEATURES[name].supported]


def _closure(features: Iterable[str]) -> frozenset[str]:
    """The features plus everything they imply."""
    seen: set[str] = set()
    todo = list(features)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(FEATURES[name].implies)
    return frozenset(seen)


def _name(value: Any, what: str) -> str:
    if isinstance(value, str):  # StrEnum members are str too
        return str(value)
    raise TypeError(f"a target {what} must be a string or webhal.Target{what.title()}, "
                    f"not {type(value).__name__}")


def _expand_feature(token: str, arch: str, context: str) -> frozenset[str]:
    """The features a token names, after checking it exists and fits `arch`."""
    if token in ALIASES:
        return ALIASES[token]
    if token not in FEATURES:
        message = f"unknown target feature {token!r} in {context!r}."
        close = difflib.get_close_matches(token, FEATURE_ORDER, n=1)
        if close and close[0] in _valid_tokens(arch):
            message += f" Did you mean {close[0]!r}?"
        raise TargetError(f"{message}\nValid features for {arch}: {', '.join(_valid_tokens(arch))}")
    if not FEATURES[token].supported:
        raise TargetError(f"target feature {token!r} in {context!r} is Halide's, but webhal does "
                          f"not support it (no backend or option for it): leave it out.\n"
                          f"Valid features for {arch}: {', '.join(_valid_tokens(arch))}")
    if not _fits(token, arch):
        needs = "/".join(sorted(FEATURES[token].archs or ()))
        raise TargetError(
            f"target feature {token!r} in {context!r} is for {needs} targets, not {arch}.\n"
            f"Valid features for {arch}: {', '.join(_valid_tokens(arch))}")
    return frozenset({token})


def _check_base(arch: str, bits: int, os_name: str, context: str) -> None:
    if arch not in ARCHS:
        raise TargetError(f"unknown arch {arch!r} in {context!r}; expected one of "
                          f"{', '.join(ARCHS)} ({_SYNTAX})")
    if bits not in BITS:
        raise TargetError(f"bits must be 32 or 64, not {bits!r}, in {context!r} ({_SYNTAX})")
    if os_name not in OSES:
        raise TargetError(f"unknown os {os_name!r} in {context!r}; expected one of "
                          f"{', '.join(OSES)} ({_SYNTAX})")
    # webhal compiles wasm for one ABI only: 32-bit memories, run by a web or wasm runtime.
    if (arch == "wasm") != (os_name == "wasmrt") or (arch == "wasm" and bits != 32):
        raise TargetError(f"{context!r}: wasm targets are wasm-32-wasmrt in webhal, and os "
                          f"wasmrt is only for arch wasm (e.g. wasm-32-wasmrt-wasm_simd128)")


class Target:
    """A compilation target: arch, bits, os and a set of features.

    Target()                                   Halide's unknown target, arch_unknown-0-os_unknown,
                                               to set arch, bits and os on (Target("") and
                                               Target("host") are the host)
    Target("x86-64-linux-avx-avx2")            parsed from a target string
    Target("linux", "x86", 64, ["avx2"])       Halide's (os, arch, bits, features) order;
                                               TargetOS/TargetArch/TargetFeature or strings
    Target("reference")                        webhal's numpy evaluator

    `str()` gives the canonical string (features sorted as Halide prints them); feature order in
    the input does not matter. `with_feature` and `without_feature` return new Targets;
    `set_feature` and assigning `arch`, `bits` or `os` change this one, as in Halide.
    """

    __slots__ = ("_arch", "_bits", "_os", "_features")

    def __init__(self, *args: Any, features: Iterable[Any] | None = None):
        if features is not None and len(args) != 3:
            raise TypeError("features= goes with Target(os, arch, bits, features)")
        if len(args) == 0:
            arch, bits, os_name, feats = ARCH_UNKNOWN, 0, OS_UNKNOWN, frozenset()
        elif len(args) == 1 and isinstance(args[0], Target):
            arch, bits, os_name, feats = (args[0].arch, args[0].bits, args[0].os,
                                          args[0].features)
        elif len(args) == 1:
            arch, bits, os_name, feats = _parse(_name(args[0], "string"))
        elif len(args) in (3, 4):
            if len(args) == 4:
                features = args[3]
            arch, bits, os_name, feats = _from_parts(args[0], args[1], args[2], features or ())
        else:
            raise TypeError("Target() takes no arguments, a target string, or "
                            f"(os, arch, bits[, features]); got {len(args)} arguments")
        self._arch, self._bits, self._os, self._features = arch, bits, os_name, feats

    # --- what it is -------------------------------------------------------------------------

    @property
    def arch(self) -> str:
        """"x86", "arm", "wasm", "riscv", "powerpc", or "reference"."""
        return self._arch

    @arch.setter
    def arch(self, value) -> None:
        self._set_base(_name(value, "arch"), self._bits, self._os)

    @property
    def bits(self) -> int:
        """Pointer width: 32 or 64 (0 for the reference target)."""
        return self._bits

    @bits.setter
    def bits(self, value) -> None:
        self._set_base(self._arch, int(value), self._os)

    @property
    def os(self) -> str:
        """"linux", "osx", "windows", "android", "ios", "noos", "wasmrt", or "reference"."""
        return self._os

    @os.setter
    def os(self, value) -> None:
        self._set_base(self._arch, self._bits, _name(value, "os"))

    def _set_base(self, arch: str, bits: int, os_name: str) -> None:
        """Halide's in-place change of arch, bits or os (target.os = hl.TargetOS.Android),
        checked as a target string is once all three agree. Features that do not fit a new
        arch are dropped: Target() is the host, so `t = hl.Target(); t.arch = ARM` starts from
        the host's x86 features, which an ARM target cannot keep."""
        self._require_real("changing arch, bits or os")
        unknown = ARCH_UNKNOWN in (arch, os_name) or OS_UNKNOWN == os_name or bits == 0
        # checked once all three are known and agree (os set before arch: later)
        if not unknown and (arch == "wasm") == (os_name == "wasmrt"):
            _check_base(arch, bits, os_name, f"{arch}-{bits}-{os_name}")
        self._features = frozenset(f for f in self._features if _fits(f, arch))
        self._arch, self._bits, self._os = arch, bits, os_name

    def set_features(self, features, value: bool = True) -> None:
        """set_feature for each of `features`."""
        for f in features:
            self.set_feature(f, value)

    @property
    def features(self) -> frozenset[str]:
        """The features, as plain strings (`trace_all` appears as its three parts)."""
        return self._features

    @property
    def is_reference(self) -> bool:
        """True for webhal's `reference` target: realize() runs the numpy evaluator."""
        return self._arch == REFERENCE

    @property
    def is_wasm(self) -> bool:
        return self._arch == "wasm"

    def has_feature(self, feature: str) -> bool:
        """Whether the feature was given (literally: `avx2` does not report `avx`). Halide's
        features that webhal does not support (hvx, asan, ...) are never given: False."""
        name = _name(feature, "feature")
        if name in ALIASES:
            return ALIASES[name] <= self._features
        if name not in FEATURES:
            raise TargetError(f"unknown target feature {name!r}; valid features: "
                              f"{', '.join(FEATURE_ORDER)}")
        return name in self._features

    def features_all_of(self, features: Iterable[str]) -> bool:
        return all(self.has_feature(f) for f in features)

    def features_any_of(self, features: Iterable[str]) -> bool:
        return any(self.has_feature(f) for f in features)

    def has_gpu_feature(self) -> bool:
        """Whether some loops may go to a GPU API (webgpu, vulkan, cuda, opencl or metal)."""
        return bool(self._features & GPU_FEATURES)

    # --- new targets --------------------------------------------------------------------------

    def with_feature(self, feature: str) -> Target:
        """A copy with the feature added; TargetError if it is unknown or does not fit."""
        self._require_real("with_feature")
        added = _expand_feature(_name(feature, "feature"), self._arch, self.to_string())
        return self._replace(self._features | added)

    def without_feature(self, feature: str) -> Target:
        """A copy with the feature removed (a no-op if it was absent)."""
        name = _name(feature, "feature")
        if name not in FEATURES and name not in ALIASES:
            raise TargetError(f"unknown target feature {name!r}; valid features: "
                              f"{', '.join(FEATURE_ORDER)}")
        return self._replace(self._features - ALIASES.get(name, frozenset({name})))

    def set_feature(self, feature: str, value: bool = True) -> None:
        """Turn `feature` on (or off) in place, as Halide's Target.set_feature does;
        with_feature/without_feature return a new Target instead."""
        changed = self.with_feature(feature) if value else self.without_feature(feature)
        self._features = changed._features

    def supported(self) -> bool:
        """Whether webhal can compile for this target: its GPU API, if any, is one webhal has
        a backend for (WebGPU, Vulkan). Whether this machine can run it is another question
        (hl.host_supports_target_device)."""
        return not any(self.has_feature(f) for f in ("cuda", "opencl", "metal",
                                                     "d3d12compute"))

    def _replace(self, features: frozenset[str]) -> Target:
        new = object.__new__(Target)
        new._arch, new._bits, new._os, new._features = (self._arch, self._bits, self._os,
                                                         features)
        return new

    def _require_real(self, what: str) -> None:
        if self.is_reference:
            raise TargetError(f"the reference target has no arch, features or machine code; "
                              f"{what} needs a compiled target such as host or wasm-32-wasmrt")

    @property
    def is_unknown(self) -> bool:
        """Whether arch, bits or os is still unknown (Target() before they are set)."""
        return not self.is_reference and (ARCH_UNKNOWN == self._arch or OS_UNKNOWN == self._os
                                          or self._bits == 0)

    def _require_known(self, what: str) -> None:
        self._require_real(what)
        if self.is_unknown:
            raise TargetError(f"target {self} has no arch, bits or os yet (hl.Target() with no "
                              f"arguments is Halide's unknown target); set them (t.arch, t.bits, "
                              f"t.os) or use a target string such as host: {what} needs them")

    def has_large_buffers(self) -> bool:
        """Whether buffers may hold more than 2^31 - 1 bytes (the large_buffers feature)."""
        return "large_buffers" in self._features

    def maximum_buffer_size(self) -> int:
        """The largest buffer in bytes: 2^63 - 1 with large_buffers on 64 bits, else 2^31 - 1."""
        return (1 << 63) - 1 if self.has_large_buffers() and self._bits == 64 else (1 << 31) - 1

    def supports_device_api(self, api) -> bool:
        """Whether loops of DeviceAPI `api` may run on this target: Host and None always, a GPU
        API when its feature is given (Default_GPU with any GPU feature)."""
        name = getattr(api, "name", str(api))
        if name in ("None_", "None", "Host"):
            return True
        if name == "Default_GPU":
            return self.has_gpu_feature()
        feature = target_feature_for_device_api(api)
        return feature is not None and self.has_feature(feature)

    def supports_type(self, type: Any, device_api=None) -> bool:  # noqa: A002
        """Whether code for this target (for `device_api`'s kernels, if given) can hold values
        of `type`, as Halide answers: no 64-bit floats in Metal, D3D12 or WebGPU, and only with
        vk_float64 in Vulkan (likewise vk_int64 for 64-bit integers)."""
        bits = type.bits() if callable(getattr(type, "bits", None)) else type.bits
        is_float = type.is_float()
        api = getattr(device_api, "name", None)
        apis = [api] if api not in (None, "None_", "Host", "Default_GPU") else \
            [a for a in ("Metal", "D3D12Compute", "WebGPU", "Vulkan")
             if api == "Default_GPU" or api is None
             if self.has_feature(target_feature_for_device_api(a))]
        if bits == 64:
            for a in apis:
                if a in ("Metal", "D3D12Compute", "WebGPU") and is_float:
                    return False
                if a == "Vulkan" and not self.has_feature("vk_float64" if is_float
                                                          else "vk_int64"):
                    return False
        return True

    # --- vectors ------------------------------------------------------------------------------

    def _vector_bytes(self, is_float: bool) -> int:
        if self.is_reference or (self.is_wasm and "wasm_simd128" not in self._features):
            return 0
        if self._arch != "x86":
            return 16  # wasm simd128, NEON, and a default for the rest
        have = _closure(self._features)
        # AVX has 256-bit float ops but 128-bit integer ones; plain AVX-512F lacks byte and word
        # ops, so full-width integers need the Skylake set (Halide sizes them the same way).
        if is_float:
            return 64 if "avx512" in have else 32 if "avx" in have else 16
        return 64 if "avx512_skylake" in have else 32 if "avx2" in have else 16

    @property
    def vector_bits(self) -> int:
        """Width of the widest (floating-point) vector register the features give; 0: no SIMD."""
        return self._vector_bytes(is_float=True) * 8

    def natural_vector_size(self, type: Any) -> int:
        """Lanes of one native vector of `type`: 1 where the target has no SIMD.

        `type` is an hl.Type (anything with `.bits`, and `.code` or `.is_float()`), a numpy
        dtype or scalar type, or an int taken as a bit width of an integer type.
        """
        bits, is_float = _element_bits(type)
        element_bytes = max(1, (bits + 7) // 8)
        return max(1, self._vector_bytes(is_float) // element_bytes)

    # --- for the LLVM backend -----------------------------------------------------------------

    @property
    def llvm_triple(self) -> str:
        """The LLVM target triple: wasm32-unknown-emscripten, x86_64-unknown-linux-gnu, ..."""
        self._require_known("compiling")
        if self.is_wasm:
            return "wasm32-unknown-emscripten"
        apple = self._os in ("osx", "ios")
        machine = {
            ("x86", 32): "i386", ("x86", 64): "x86_64",
            ("arm", 32): "armv7s" if "armv7s" in self._features else "armv7",
            ("arm", 64): "arm64" if apple else "aarch64",
            ("riscv", 32): "riscv32", ("riscv", 64): "riscv64",
            ("powerpc", 32): "powerpc", ("powerpc", 64): "powerpc64le",
        }[self._arch, self._bits]
        eabi = "eabihf" if self._arch == "arm" and self._bits == 32 else ""
        system = {
            "linux": f"unknown-linux-gnu{eabi}",
            "android": "linux-androideabi" if eabi else "linux-android",
            "osx": "apple-macosx",
            "ios": "apple-ios",
            "windows": "pc-windows-msvc",
            "noos": "unknown-none",
        }[self._os]
        return f"{machine}-{system}"

    @property
    def llvm_cpu_features(self) -> str:
        """The feature string for llvmlite's create_target_machine(features=...).

        Absent features are switched off by name, so LLVM's defaults for the CPU do not leak in.
        Names LLVM learnt in version 20 are included only when llvmlite's LLVM knows them.
        """
        return self.llvm_cpu_features_for(_llvm_major())

    def llvm_cpu_features_for(self, llvm_major: int) -> str:
        """llvm_cpu_features for a given LLVM major version."""
        self._require_real("llvm_cpu_features")
        have = _closure(self._features)

        def flag(on: bool, *names: str) -> list[str]:
            return [("+" if on else "-") + n for n in names]

        if self.is_wasm:
            bulk = "wasm_bulk_memory" in have
            mvp = "wasm_mvponly" in have
            attrs = [
                *flag("wasm_simd128" in have, "simd128"),
                *flag("wasm_threads" in have, "atomics"),
                *flag(bulk, "bulk-memory"),
                # From LLVM 20 memory.copy/fill ride on bulk-memory-opt, which -bulk-memory
                # leaves on; without this an MVP target would still emit memory.copy.
                *(flag(False, "bulk-memory-opt") if llvm_major >= 20 and not bulk else []),
                *flag("wasm_threads" in have, "mutable-globals"),
                *flag(not mvp, "sign-ext", "nontrapping-fptoint"),
                # On by default in newer LLVM; no webhal feature asks for them, and older
                # Emscripten and runtimes do not expect them.
                *flag(False, "multivalue", "reference-types"),
                *(flag(False, "call-indirect-overlong") if llvm_major >= 20 else []),
            ]
            return ",".join(attrs)
        attrs = ["+neon"] if self._arch == "arm" and self._bits == 32 else []
        for name, info in FEATURES.items():
            if info.llvm and _fits(name, self._arch):
                attrs += flag(name in have, *info.llvm)
        return ",".join(attrs)

    # --- text ---------------------------------------------------------------------------------

    def to_string(self) -> str:
        """The canonical target string (features sorted by name, as Halide prints them)."""
        if self.is_reference:
            return REFERENCE
        tokens = set(self._features)
        if TRACE_ALL <= tokens and "trace_pipeline" not in tokens:
            tokens = (tokens - TRACE_ALL) | {"trace_all"}
        ordered = sorted(tokens, key=ORDER_INDEX.__getitem__)
        return "-".join([self._arch, str(self._bits), self._os, *ordered])

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"<halide.Target {self.to_string()}>"  # Halide's words

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Target):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self):
        return (Target, (self.to_string(),))

    def _key(self) -> tuple:
        return (self._arch, self._bits, self._os, self._features)

    @staticmethod
    def validate_target_string(text: str) -> bool:
        """Whether `text` parses as a target (Halide has the same static method). The empty
        string, which Target() reads as the host, is not a target string."""
        if not text.strip():
            return False
        try:
            _parse(text)
        except TargetError:
            return False
        return True


def target_feature_for_device_api(api) -> str | None:
    """The target feature a GPU DeviceAPI needs (TargetFeature.CUDA for DeviceAPI.CUDA, ...),
    None for the host and Default_GPU, as Halide's."""
    name = getattr(api, "name", str(api))
    for feature in TargetFeature:
        if feature.name == name:
            return feature
    return None


# --- parsing ------------------------------------------------------------------------------------

def _parse(text: str) -> tuple[str, int, str, frozenset[str]]:
    text = text.strip() or "host"  # Halide reads "" as the host
    if text == REFERENCE:
        return REFERENCE, 0, REFERENCE, frozenset()
    tokens = text.split("-")
    if tokens[0] == REFERENCE:
        raise TargetError(f"{text!r}: the reference target takes no features")
    if tokens[0] == "host":
        arch, bits, os_name, feats = _host_parts()
        rest = tokens[1:]
    else:
        if len(tokens) < 3 or not tokens[1].isdigit():
            raise TargetError(f"{text!r} is not a target: {_SYNTAX}{_did_you_mean(tokens)}")
        arch, bits, os_name, rest = tokens[0], int(tokens[1]), tokens[2], tokens[3:]
        _check_base(arch, bits, os_name, text)
        feats = frozenset()
    for token in rest:
        feats |= _expand_feature(token, arch, text)
    return arch, bits, os_name, feats


def _did_you_mean(tokens: list[str]) -> str:
    """A suggestion for an arch written with its bits (LLVM's wasm32, x86_64), else ""."""
    m = re.fullmatch(r"([a-z0-9]+?)[_-]?(32|64)", tokens[0])
    if m is None or m[1] not in ARCHS:
        return ""
    return f". Did you mean {'-'.join([m[1], m[2], *tokens[1:]])!r}?"


def _from_parts(os_value: Any, arch_value: Any, bits: Any,
                features: Iterable[Any]) -> tuple[str, int, str, frozenset[str]]:
    os_name, arch = _name(os_value, "os"), _name(arch_value, "arch")
    if os_name in ARCHS and arch in OSES:
        raise TargetError(f"Target({os_name!r}, {arch!r}, ...): the order is (os, arch, bits, "
                          f"features), as in Halide; write Target({arch!r}, {os_name!r}, ...)")
    if isinstance(bits, bool) or not isinstance(bits, int):
        raise TargetError(f"bits must be the int 32 or 64, not {bits!r}")
    context = f"{arch}-{bits}-{os_name}"
    if (arch, bits, os_name) != (ARCH_UNKNOWN, 0, OS_UNKNOWN):  # Halide's unknown target
        _check_base(arch, bits, os_name, context)
    feats: frozenset[str] = frozenset()
    for f in features:
        name = _name(f, "feature")
        if name not in FEATURES and name not in ALIASES:
            raise TargetArgumentError(
                f"Target(os, arch, bits, features): incompatible constructor arguments: {name!r} "
                f"is not a target feature (hl.TargetFeature members, or their names such as "
                f"'avx2')")
        feats |= _expand_feature(name, arch, context)
    return arch, bits, os_name, feats


def _element_bits(type: Any) -> tuple[int, bool]:
    """(bit width, is floating point) of whatever names an element type."""
    if isinstance(type, bool):
        raise TypeError("natural_vector_size takes a type or a bit width, not a bool")
    if isinstance(type, int):
        return type, False
    bits = getattr(type, "bits", None)
    if bits is not None:
        bits = bits() if callable(bits) else bits
        is_float = getattr(type, "is_float", None)
        if is_float is not None:
            return int(bits), bool(is_float() if callable(is_float) else is_float)
        return int(bits), "float" in str(getattr(type, "code", "")).lower()
    import numpy as np

    try:
        dtype = np.dtype(type)
    except TypeError:
        raise TypeError(f"natural_vector_size takes an hl.Type, a numpy dtype or a bit width, "
                        f"not {type!r}") from None
    return dtype.itemsize * 8, dtype.kind in "fc"


@functools.cache
def _llvm_major() -> int:
    try:
        from llvmlite import binding
    except ImportError:
        return 99  # no llvmlite, nothing to feed: answer for the newest LLVM
    return int(binding.llvm_version_info[0])


# --- the host -----------------------------------------------------------------------------------

_MACHINES = {
    "x86_64": "x86", "amd64": "x86", "i386": "x86", "i686": "x86", "x86": "x86",
    "aarch64": "arm", "arm64": "arm", "armv7l": "arm", "armv8l": "arm", "armv6l": "arm",
    "riscv64": "riscv", "ppc64le": "powerpc", "ppc64": "powerpc",
}
_PLATFORMS = {"linux": "linux", "darwin": "osx", "win32": "windows", "cygwin": "windows",
              "android": "android", "ios": "ios"}


def _features_from_cpuinfo(arch: str, text: str) -> frozenset[str]:
    """The features /proc/cpuinfo text shows, for x86 ("flags") or arm ("Features")."""
    key = {"x86": "flags", "arm": "features"}.get(arch)
    flags: set[str] = set()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() == key:
            flags.update(value.split())
            break
    found: set[str] = set()
    # FEATURES lists implied features before the ones implying them, so one pass suffices.
    for name, info in FEATURES.items():
        if (info.cpu_flags and _fits(name, arch) and set(info.cpu_flags) <= flags
                and set(info.implies) <= found):
            found.add(name)
    if arch == "x86" and "AuthenticAMD" not in text:
        # Halide names the zen feature sets on AMD hosts only; an Intel host with the same
        # flags is avx512_sapphirerapids, which implies them (so LLVM still gets them).
        found -= {"avx512_zen4", "avx512_zen5"}
    return frozenset(found)


@functools.cache
def _host_parts() -> tuple[str, int, str, frozenset[str]]:
    """This machine as (arch, bits, os, features); GPU features are never on by themselves."""
    if sys.platform in ("emscripten", "wasi"):
        return "wasm", 32, "wasmrt", frozenset()
    machine = platform.machine().lower()
    arch = _MACHINES.get(machine) or ("arm" if machine.startswith("arm") else None)
    os_name = _PLATFORMS.get(sys.platform)
    if arch is None or os_name is None:
        raise TargetError(f"cannot name this machine as a target (machine {machine!r}, "
                          f"platform {sys.platform!r}); give an explicit target, e.g. "
                          f"HL_TARGET=wasm-32-wasmrt-wasm_simd128")
    bits = struct.calcsize("P") * 8  # the Python process's pointer width, which the JIT shares
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            features = _features_from_cpuinfo(arch, f.read())
    except OSError:
        features = frozenset()  # no /proc (macOS, Windows): the baseline of the arch
    return arch, bits, os_name, features


def fuses_multiply_adds(target: Target) -> bool:
    """Whether float code for `target` may fuse a multiply into an add and round once, as
    Halide's LLVM code does (docs/semantics.md): x86 with FMA, unless strict_float. SIMD128
    has no fused instruction, so wasm always rounds twice, as the reference does."""
    return target.arch == "x86" and target.has_feature("fma") and \
        not target.has_feature("strict_float")


def get_host_target() -> Target:
    """The machine Python runs on, with the CPU features it has."""
    return Target("host")


def get_target_from_environment() -> Target:
    """HL_TARGET, the target for ahead-of-time compilation; the host when unset or empty."""
    return _from_env("HL_TARGET")


def get_jit_target_from_environment() -> Target:
    """HL_JIT_TARGET, the target realize() uses; the host when unset or empty.

    It must be runnable here: `reference`, a wasm target (run in wasmtime), or one with the
    host's arch, bits and os. As in Halide, compiled targets get the `jit` feature.
    """
    target = _from_env("HL_JIT_TARGET")
    if target.is_reference:
        return target
    host = get_host_target()
    if not target.is_wasm and (target.arch, target.bits, target.os) != (host.arch, host.bits,
                                                                       host.os):
        raise TargetError(
            f"HL_JIT_TARGET={target} cannot run on this machine ({host.arch}-{host.bits}-"
            f"{host.os}): realize() runs on the host, in wasmtime (wasm-32-wasmrt-...) or in "
            f"the reference evaluator; for other machines compile ahead of time with HL_TARGET")
    return target.with_feature("jit")


def _from_env(variable: str) -> Target:
    value = os.environ.get(variable, "").strip() or "host"
    try:
        return Target(value)
    except TargetError as e:
        raise TargetError(f"{variable}={value!r} is not a valid target: {e.message}") from None

