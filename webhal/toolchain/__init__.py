"""Find and run the external tools webhal needs, and know what their versions can do.

Every finder returns a small frozen record (`Tool` or a richer one) or raises ToolchainError
with an install hint. Lookups are cached; `clear_caches()` forgets them.
"""

from webhal.toolchain.adapters import AdapterInfo, wgpu_adapter_info
from webhal.toolchain.cache import clear_caches
from webhal.toolchain.capabilities import (
    EMSCRIPTEN_CAPABILITIES,
    Capability,
    EmscriptenCapabilities,
    capabilities_for,
    parse_emcc_version,
)
from webhal.toolchain.emcc_flags import JsModule, emcc_flags, suspend_flags
from webhal.toolchain.emscripten import Emscripten, emar, emcc, empp, find_emscripten
from webhal.toolchain.hosts import find_chromium, find_node, find_playwright
from webhal.toolchain.process import private_runtime_dir, run_tool, tool_env
from webhal.toolchain.tool import Tool, Version, format_version, parse_version
from webhal.toolchain.wasm import Llvmlite, find_llvmlite, find_wasm_ld, find_wasmtime
from webhal.toolchain.webgpu import (
    find_dawn_node,
    find_lavapipe_icd,
    find_swiftshader_icd,
    find_wgpu_native,
    wgpu_native_env,
)

__all__ = [
    "EMSCRIPTEN_CAPABILITIES",
    "AdapterInfo",
    "Capability",
    "Emscripten",
    "EmscriptenCapabilities",
    "JsModule",
    "Llvmlite",
    "Tool",
    "Version",
    "capabilities_for",
    "clear_caches",
    "emar",
    "emcc",
    "emcc_flags",
    "empp",
    "find_chromium",
    "find_dawn_node",
    "find_emscripten",
    "find_lavapipe_icd",
    "find_llvmlite",
    "find_node",
    "find_playwright",
    "find_swiftshader_icd",
    "find_wasm_ld",
    "find_wasmtime",
    "find_wgpu_native",
    "format_version",
    "parse_emcc_version",
    "parse_version",
    "private_runtime_dir",
    "run_tool",
    "suspend_flags",
    "tool_env",
    "wgpu_adapter_info",
    "wgpu_native_env",
]
