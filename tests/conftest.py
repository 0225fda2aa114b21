"""Shared test rules and runtime fixtures.

A test that needs a runtime asks for it by fixture. Locally a missing runtime skips the test with
a message saying what to install; under WEBHAL_EXPECT_ALL=1 (set by .ci/run) or `--expect-all`
it fails instead, so CI never skips silently. Tests using browser or GPU fixtures are marked
`browser` / `gpu` automatically, so `-m "not slow and not browser"` deselects them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack
from typing import TypeVar

import pytest

from webhal.errors import ToolchainError
from webhal.toolchain import (
    find_chromium,
    find_dawn_node,
    find_emscripten,
    find_llvmlite,
    find_node,
    find_playwright,
    find_wasm_ld,
    find_wasmtime,
    find_wgpu_native,
    private_runtime_dir,
)

T = TypeVar("T")

EXPECT_ALL_ENV = "WEBHAL_EXPECT_ALL"

# Fixture name -> marker its users get, so marker expressions see them.
FIXTURE_MARKERS = {
    "chromium": "browser",
    "browser": "browser",
    "browser_webgpu": "browser",
    "wgpu_adapter": "gpu",
    "wgpu_device": "gpu",
    "dawn_node": "gpu",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--expect-all", action="store_true",
                     help=f"a missing runtime fails instead of skipping (as {EXPECT_ALL_ENV}=1)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--expect-all"):
        os.environ[EXPECT_ALL_ENV] = "1"
    # wgpu-native and the Vulkan loader complain on stderr without a private runtime dir.
    if not os.path.isdir(os.environ.get("XDG_RUNTIME_DIR", "")):
        os.environ["XDG_RUNTIME_DIR"] = private_runtime_dir()


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        names = getattr(item, "fixturenames", ())
        for marker in sorted({FIXTURE_MARKERS[n] for n in names if n in FIXTURE_MARKERS}):
            item.add_marker(marker)


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
        # The error's text ends with its hint; missing() states the hint itself.
        text = str(exc)
        if exc.hint and text.endswith("to fix: " + exc.hint):
            text = text[: -len("to fix: " + exc.hint)].rstrip()
        missing(what, text, exc.hint)
        raise  # unreachable: missing() always raises


@pytest.fixture(scope="session")
def llvm_wasm():
    """llvmlite with its WebAssembly target registered (webhal.toolchain.Llvmlite)."""
    llvmlite = require("llvmlite", find_llvmlite)
    if not llvmlite.wasm_target:
        missing("llvmlite's WebAssembly target", llvmlite.wasm_target_error,
                "an llvmlite wheel from PyPI (`make setup`)")
    return llvmlite


@pytest.fixture(scope="session")
def emscripten():
    """The Emscripten in use (webhal.toolchain.Emscripten: version, capabilities, commands)."""
    return require("Emscripten", find_emscripten)


@pytest.fixture(scope="session")
def emcc(emscripten):
    """The same record as `emscripten`, under the name of its compiler driver."""
    return emscripten


@pytest.fixture(scope="session")
def wasm_ld():
    return require("wasm-ld", find_wasm_ld)


@pytest.fixture(scope="session")
def node():
    return require("Node.js", find_node)


@pytest.fixture(scope="session")
def dawn_node(node):
    """dawn.node's Tool record, once it has really offered a WebGPU adapter under Node.
    Run scripts with webhal.runners.node.run_node(..., dawn=True)."""
    from webhal.runners.node import dawn_adapter_info

    tool = require("dawn.node", find_dawn_node)
    require("a WebGPU adapter from dawn.node", dawn_adapter_info)
    return tool


@pytest.fixture(scope="session")
def chromium():
    """Chromium's Tool record, with Playwright available to drive it."""
    tool = require("Chromium", find_chromium)
    require("Playwright", find_playwright)
    return tool


@pytest.fixture(scope="session")
def browser_webgpu(chromium):
    """The WebGPU adapter headless Chromium offers (webhal.toolchain.AdapterInfo)."""
    from webhal.runners.browser import webgpu_adapter_info

    return require("WebGPU in headless Chromium", webgpu_adapter_info)


@pytest.fixture(scope="session")
def browser(chromium, tmp_path_factory):
    """A headless Chromium and a server of an empty directory (`browser.server.directory`):
    write pages there, then `browser.open("page.html")`."""
    from webhal.runners.browser import browser_session

    directory = tmp_path_factory.mktemp("browser-pages")
    with ExitStack() as stack:
        yield require("headless Chromium",
                      lambda: stack.enter_context(browser_session(directory)))


@pytest.fixture(scope="session")
def wgpu_adapter():
    """A wgpu-py adapter in this process (lavapipe on machines without a GPU)."""
    lib = require("wgpu-native", find_wgpu_native)
    os.environ.setdefault("WGPU_LIB_PATH", lib.path)  # read when wgpu's backend loads
    import wgpu

    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    if adapter is None:
        missing("a wgpu-py WebGPU adapter", "request_adapter_sync() returned None",
                "apt-get install mesa-vulkan-drivers libvulkan1 (lavapipe)")
    return adapter


@pytest.fixture(scope="session")
def wgpu_device(wgpu_adapter):
    return wgpu_adapter.request_device_sync()


@pytest.fixture(scope="session")
def wasmtime_engine():
    """A wasmtime.Engine with SIMD and threads enabled."""
    require("wasmtime", find_wasmtime)
    import wasmtime

    config = wasmtime.Config()
    config.wasm_simd = True
    config.wasm_threads = True
    return wasmtime.Engine(config)
