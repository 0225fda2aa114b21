"""Finders for WebGPU implementations and the Vulkan drivers they run on when there is no GPU:
wgpu-native (through wgpu-py) on Mesa's lavapipe, dawn.node on SwiftShader."""

from __future__ import annotations

import glob
import json
import os
import platform
import sys

from webhal.errors import ToolchainError
from webhal.toolchain.cache import cached
from webhal.toolchain.install import fix
from webhal.toolchain.python_packages import package_dir, python_package
from webhal.toolchain.tool import Tool, parse_version

ICD_DIRS = ("/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d")
SWIFTSHADER_ICD = "/usr/lib/chromium/vk_swiftshader_icd.json"

LAVAPIPE_HINT = fix("apt-get install mesa-vulkan-drivers libvulkan1 (Mesa's lavapipe: Vulkan on "
                    "the CPU)", "apt-get install mesa-vulkan-drivers libvulkan1")
SWIFTSHADER_HINT = fix("apt-get install chromium (Debian's ships SwiftShader's Vulkan driver)",
                       "apt-get install chromium, which ships SwiftShader's Vulkan driver",
                       either="set CHROME_PATH to a Chromium with vk_swiftshader_icd.json beside "
                              "it (as `python -m playwright install chromium` downloads)")
DAWN_NODE_HINT = fix("npm install webgpu (the package with dawn.node) in this folder or one "
                     "above it", "npm ci, which installs the `webgpu` package with dawn.node",
                     either="set HL_WEBGPU_NODE_BINDINGS to a dawn.node file")
WGPU_HINT = fix("pip install wgpu (it ships wgpu-native)",
                "pip install wgpu, which ships wgpu-native",
                either="set HL_WEBGPU_NATIVE_LIB to a libwgpu_native shared library")


def _icd(name: str, manifest: str) -> Tool | None:
    """A Tool for a Vulkan ICD manifest whose driver library exists, else None. No version:
    a manifest's api_version is often older than what the driver reports when asked."""
    try:
        with open(manifest) as f:
            library = json.load(f).get("ICD", {}).get("library_path", "")
    except (OSError, ValueError):
        return None
    if os.sep in library:
        library = os.path.join(os.path.dirname(manifest), library)
        if not os.path.isfile(library):
            return None
    return Tool(name=name, path=manifest) if library else None


@cached
def find_lavapipe_icd() -> Tool:
    """Mesa's lavapipe (Vulkan on the CPU) ICD manifest, for wgpu-py without a GPU."""
    for directory in ICD_DIRS:
        for manifest in sorted(glob.glob(os.path.join(directory, "lvp_icd*.json"))):
            if icd := _icd("lavapipe", manifest):
                return icd
    raise ToolchainError("Mesa's lavapipe Vulkan driver not found "
                         f"(no lvp_icd*.json in {', '.join(ICD_DIRS)})", hint=LAVAPIPE_HINT)


@cached
def find_swiftshader_icd() -> Tool:
    """SwiftShader's Vulkan ICD manifest, for dawn.node: Debian's chromium's, else the one
    beside the Chromium find_chromium() finds (CHROME_PATH's, Playwright's)."""
    if icd := _icd("swiftshader", SWIFTSHADER_ICD):
        return icd
    from webhal.toolchain.hosts import find_chromium

    try:
        chromium = os.path.dirname(os.path.realpath(find_chromium().path))
    except ToolchainError:
        chromium = None
    if chromium and (icd := _icd("swiftshader", os.path.join(chromium,
                                                              "vk_swiftshader_icd.json"))):
        return icd
    raise ToolchainError(f"SwiftShader's Vulkan driver not found ({SWIFTSHADER_ICD})",
                         hint=SWIFTSHADER_HINT)


def _node_platform() -> str:
    """Node's `${process.platform}-${process.arch}` for this machine, as the webgpu package
    names its dist folders (macOS builds are universal)."""
    if sys.platform == "darwin":
        return "darwin-universal"
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine,
                                                                                       machine)
    osname = "win32" if sys.platform.startswith("win") else sys.platform
    return f"{osname}-{arch}"


def _walk_up(start: str):
    directory = os.path.abspath(start)
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def _package_version(package_json: str):
    try:
        with open(package_json) as f:
            return parse_version(json.load(f).get("version", ""))
    except (OSError, ValueError):
        return None


@cached
def find_dawn_node() -> Tool:
    """dawn.node, Dawn's WebGPU for Node: $HL_WEBGPU_NODE_BINDINGS, else
    node_modules/webgpu/dist/<platform>/dawn.node found walking up from the current directory,
    then from webhal's own directory. Raises ToolchainError."""
    override = os.environ.get("HL_WEBGPU_NODE_BINDINGS")
    if override:
        if not os.path.isfile(override):
            raise ToolchainError(f"HL_WEBGPU_NODE_BINDINGS={override} is not a file",
                                 hint=f"fix or unset HL_WEBGPU_NODE_BINDINGS; or {DAWN_NODE_HINT}")
        return Tool(name="dawn.node", path=os.path.abspath(override))
    relative = os.path.join("node_modules", "webgpu", "dist", _node_platform(), "dawn.node")
    looked = []
    for start in (os.getcwd(), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
        for directory in _walk_up(start):
            candidate = os.path.join(directory, relative)
            if os.path.isfile(candidate):
                version = _package_version(os.path.join(directory, "node_modules", "webgpu",
                                                        "package.json"))
                return Tool(name="dawn.node", path=candidate, version=version)
        looked.append(start)
    raise ToolchainError(f"dawn.node not found ({relative} above {' or '.join(looked)})",
                         hint=DAWN_NODE_HINT)


def _shipped_wgpu_native() -> str:
    resources = os.path.join(package_dir("wgpu", hint=WGPU_HINT), "resources")
    names = {"darwin": "libwgpu_native*.dylib", "win32": "wgpu_native*.dll"}
    pattern = names.get(sys.platform, "libwgpu_native*.so")
    found = sorted(glob.glob(os.path.join(resources, pattern)))
    # Prefer the release build, which is what wgpu-py loads by default.
    found.sort(key=lambda path: "-release" not in os.path.basename(path))
    if not found:
        raise ToolchainError(f"the wgpu package ships no wgpu-native library in {resources}",
                             hint=WGPU_HINT)
    return found[0]


@cached
def find_wgpu_native() -> Tool:
    """The wgpu-native shared library: $HL_WEBGPU_NATIVE_LIB, else the one inside the wgpu
    package. `version` is wgpu-py's. Raises ToolchainError."""
    wgpu = python_package("wgpu", hint=WGPU_HINT)
    override = os.environ.get("HL_WEBGPU_NATIVE_LIB")
    if override:
        if not os.path.isfile(override):
            raise ToolchainError(f"HL_WEBGPU_NATIVE_LIB={override} is not a file",
                                 hint=f"fix or unset HL_WEBGPU_NATIVE_LIB; or {WGPU_HINT}")
        path = os.path.abspath(override)
    else:
        path = _shipped_wgpu_native()
    return Tool(name="wgpu-native", path=path, version=wgpu.version)


def wgpu_native_env() -> dict[str, str]:
    """Environment for a process that will import wgpu: WGPU_LIB_PATH names the library that
    find_wgpu_native() chose (wgpu-py reads it at import)."""
    return {"WGPU_LIB_PATH": find_wgpu_native().path}
