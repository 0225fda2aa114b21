"""Finders for the wasm side: llvmlite's WebAssembly target, wasm-ld, wasmtime."""

from __future__ import annotations

import glob
import os
import re
import shutil
from dataclasses import dataclass

from webhal.errors import ToolchainError
from webhal.toolchain.cache import cached
from webhal.toolchain.install import fix, pip_install
from webhal.toolchain.process import run_tool
from webhal.toolchain.python_packages import python_package
from webhal.toolchain.tool import Tool, Version, parse_version

WASM_TRIPLE = "wasm32-unknown-emscripten"

WASM_LD_HINT = fix("apt-get install lld (Debian's emscripten package pulls in lld-14)",
                   "apt-get install emscripten, which pulls in lld-14")


@dataclass(frozen=True)
class Llvmlite(Tool):
    """llvmlite, the LLVM it bundles, and whether that LLVM can emit WebAssembly."""

    llvm_version: Version | None = None
    wasm_target: bool = False
    wasm_target_error: str = ""


@cached
def find_llvmlite() -> Llvmlite:
    """llvmlite and its LLVM; `wasm_target` says whether wasm32-unknown-emscripten is registered.

    Raises ToolchainError when llvmlite is missing (a missing wasm target is reported, not raised:
    check `.wasm_target`)."""
    package = python_package("llvmlite")
    try:
        import llvmlite.binding as llvm
    except ImportError as exc:
        raise ToolchainError(f"llvmlite does not import: {exc}",
                             hint=pip_install("llvmlite")) from None
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        llvm.Target.from_triple(WASM_TRIPLE)
        wasm_target, error = True, ""
    except RuntimeError as exc:
        wasm_target, error = False, str(exc).strip()
    return Llvmlite(name="llvmlite", path=package.path, version=package.version,
                    llvm_version=tuple(llvm.llvm_version_info), wasm_target=wasm_target,
                    wasm_target_error=error)


def _wasm_ld_candidates() -> list[str]:
    found = []
    plain = shutil.which("wasm-ld")
    if plain:
        found.append(plain)
    # Debian names it by LLVM version (wasm-ld-14); prefer the newest.
    versioned = {}
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        for path in glob.glob(os.path.join(directory or ".", "wasm-ld-*")):
            match = re.fullmatch(r"wasm-ld-(\d+)", os.path.basename(path))
            if match and os.access(path, os.X_OK):
                versioned.setdefault(int(match.group(1)), path)
    found.extend(versioned[major] for major in sorted(versioned, reverse=True))
    found.extend(sorted(glob.glob("/usr/lib/llvm-*/bin/wasm-ld"), reverse=True))
    return found


@cached
def find_wasm_ld() -> Tool:
    """LLVM's WebAssembly linker: `wasm-ld` on PATH, then `wasm-ld-N` (newest first), then
    /usr/lib/llvm-*/bin. Raises ToolchainError with an install hint."""
    candidates = _wasm_ld_candidates()
    if not candidates:
        raise ToolchainError("wasm-ld (LLVM's WebAssembly linker) not found", hint=WASM_LD_HINT)
    path = candidates[0]
    result = run_tool([path, "--version"], timeout_s=30, what="wasm-ld --version",
                      hint=WASM_LD_HINT)
    return Tool(name="wasm-ld", path=path, version=parse_version(result.stdout))


@cached
def find_wasmtime() -> Tool:
    """The wasmtime Python package (it bundles the runtime). Raises ToolchainError."""
    package = python_package("wasmtime")
    try:
        import wasmtime  # noqa: F401  (loads the bundled native library)
    except (ImportError, OSError) as exc:
        raise ToolchainError(f"wasmtime does not import: {exc}",
                             hint=pip_install("wasmtime")) from None
    return package
