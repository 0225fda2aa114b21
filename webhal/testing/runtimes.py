"""Which runtimes this machine has, for tests: each function returns one, or ends the test.

A missing runtime skips the test with a message saying what to install; where the environment
variable WEBHAL_EXPECT_ALL is set (to anything but 0) it fails the test instead, so a CI run that
should have every runtime never passes by skipping. The functions call pytest.skip/pytest.fail,
so they belong in tests and fixtures only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

import pytest

from webhal.errors import ToolchainError
from webhal.toolchain import (
    AdapterInfo,
    Emscripten,
    Llvmlite,
    Tool,
    find_chromium,
    find_dawn_node,
    find_emscripten,
    find_llvmlite,
    find_node,
    find_playwright,
    find_wasm_ld,
    find_wasmtime,
    find_wgpu_native,
)
from webhal.toolchain.install import fix
from webhal.toolchain.webgpu import LAVAPIPE_HINT

T = TypeVar("T")

EXPECT_ALL_ENV = "WEBHAL_EXPECT_ALL"


def expect_all() -> bool:
    """Whether a missing runtime must fail the run (CI) rather than skip."""
    return os.environ.get(EXPECT_ALL_ENV, "") not in ("", "0")


def missing(what: str, reason: str, hint: str = "") -> None:
    """Skip (locally) or fail (under WEBHAL_EXPECT_ALL=1) because `what` is unavailable."""
    message = f"{what} is not available: {reason}"
    if hint:
        message += f"\nto fix: {hint}"
    if expect_all():
        pytest.fail(f"{message} ({EXPECT_ALL_ENV}=1 forbids skipping)", pytrace=False)
    pytest.skip(message)


def require(what: str, probe: Callable[[], T]) -> T:
    """`probe()`, or skip/fail with its install hint when it raises ToolchainError."""
    try:
        return probe()
    except ToolchainError as exc:
        missing_because(what, exc)
        raise  # unreachable: missing_because() always raises


def missing_because(what: str, exc: ToolchainError) -> None:
    """missing() with the reason and hint of the tool's error."""
    # The error's text ends with its hint; missing() states the hint itself.
    text = str(exc)
    if exc.hint and text.endswith("to fix: " + exc.hint):
        text = text[: -len("to fix: " + exc.hint)].rstrip()
    missing(what, text, exc.hint)


def llvm_wasm() -> Llvmlite:
    """llvmlite with its WebAssembly target registered."""
    llvmlite = require("llvmlite", find_llvmlite)
    if not llvmlite.wasm_target:
        missing("llvmlite's WebAssembly target", llvmlite.wasm_target_error,
                fix("pip install --force-reinstall llvmlite (PyPI's wheels have it)",
                    "pip install llvmlite, from PyPI"))
    return llvmlite


def emscripten() -> Emscripten:
    """The Emscripten in use: its version, capabilities and commands."""
    return require("Emscripten", find_emscripten)


def wasm_ld() -> Tool:
    return require("wasm-ld", find_wasm_ld)


def node() -> Tool:
    return require("Node.js", find_node)


def dawn_node() -> Tool:
    """dawn.node, once it has really offered a WebGPU adapter under Node."""
    from webhal.runners.node import dawn_adapter_info

    node()
    tool = require("dawn.node", find_dawn_node)
    require("a WebGPU adapter from dawn.node", dawn_adapter_info)
    return tool


def chromium() -> Tool:
    """Chromium, with Playwright available to drive it."""
    tool = require("Chromium", find_chromium)
    require("Playwright", find_playwright)
    return tool


def browser_webgpu() -> AdapterInfo:
    """The WebGPU adapter headless Chromium offers."""
    from webhal.runners.browser import webgpu_adapter_info

    chromium()
    return require("WebGPU in headless Chromium", webgpu_adapter_info)


def firefox() -> Tool:
    """Firefox, with Node.js and puppeteer-core available to drive it."""
    from webhal.toolchain.hosts import find_firefox, find_puppeteer

    node()
    tool = require("Firefox", find_firefox)
    require("puppeteer-core", find_puppeteer)
    return tool


def firefox_webgpu() -> AdapterInfo:
    """The WebGPU adapter headless Firefox offers (lavapipe on machines without a GPU)."""
    from webhal.runners.firefox import firefox_adapter_info

    firefox()
    return require("WebGPU in headless Firefox", firefox_adapter_info)


def wgpu_adapter():
    """A wgpu-py adapter in this process (lavapipe on machines without a GPU)."""
    lib = require("wgpu-native", find_wgpu_native)
    os.environ.setdefault("WGPU_LIB_PATH", lib.path)  # read when wgpu's backend loads
    import wgpu

    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    if adapter is None:
        missing("a wgpu-py WebGPU adapter", "request_adapter_sync() returned None",
                LAVAPIPE_HINT)
    return adapter


def vulkan_device():
    """The process's Vulkan device (webhal.runtime.vulkan.DeviceInfo): Mesa's lavapipe on
    machines without a GPU."""
    from webhal.errors import HalideError
    from webhal.runtime import vulkan

    try:
        return vulkan.context().info
    except HalideError as exc:
        missing("a Vulkan device", str(exc), vulkan.DRIVER_HINT)


def wasmtime_engine():
    """A wasmtime.Engine with SIMD and threads enabled."""
    require("wasmtime", find_wasmtime)
    import wasmtime

    config = wasmtime.Config()
    config.wasm_simd = True
    config.wasm_threads = True
    return wasmtime.Engine(config)
