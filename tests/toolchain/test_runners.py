"""The reusable runners: local static server, Node (with dawn.node), headless Chromium."""

import urllib.request
from pathlib import Path

import pytest

from webhal.errors import ToolchainError
from webhal.runners.browser import StaticServer
from webhal.runners.node import dawn_adapter_info, run_node_source


def test_static_server_sends_isolation_headers_and_wasm_type(tmp_path):
    (tmp_path / "m.wasm").write_bytes(b"\0asm\1\0\0\0")
    with StaticServer(tmp_path) as server:
        assert server.url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(server.url + "/m.wasm", timeout=10) as response:
            assert response.headers["Content-Type"] == "application/wasm"
            assert response.headers["Cross-Origin-Opener-Policy"] == "same-origin"
            assert response.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
            assert response.read() == b"\0asm\1\0\0\0"


def test_node_failure_shows_the_script_error(node):
    with pytest.raises(ToolchainError, match="exit status 1") as info:
        run_node_source("throw new Error('webhal-test-boom');\n")
    assert "webhal-test-boom" in str(info.value)
    assert info.value.command[0].endswith("node")


def test_dawn_node_gives_swiftshader(dawn_node):
    info = dawn_adapter_info()
    assert info.vendor == "google"
    assert info.architecture == "swiftshader"


@pytest.mark.slow
def test_browser_page_is_isolated_and_has_webgpu(browser):
    (Path(browser.server.directory) / "probe.html").write_text(
        "<!doctype html><script>window.done = true;</script>")
    page = browser.open("probe.html")
    page.wait_for_function("window.done === true")
    assert page.evaluate("self.crossOriginIsolated") is True
    assert page.evaluate("typeof SharedArrayBuffer") == "function"
    arch = page.evaluate("navigator.gpu.requestAdapter().then(a => a && a.info.architecture)")
    assert arch == "swiftshader"
    page.close()


def test_a_browser_session_inside_another_shares_its_driver(chromium, tmp_path):
    # Playwright's sync API cannot start twice in one thread: a page built while the
    # session-wide `browser` fixture runs must reuse its driver.
    from webhal.runners.browser import browser_session

    (tmp_path / "a.html").write_text("<title>inner</title>")
    with browser_session(tmp_path) as outer:
        with browser_session(tmp_path) as inner:
            assert inner.open("a.html").title() == "inner"
        assert outer.open("a.html").title() == "inner"  # the outer one still works
