"""The reusable runners: local static server, Node (with dawn.node), headless Chromium."""

import http.client
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from webhal.errors import ToolchainError
from webhal.runners.node import dawn_adapter_info, run_node_source
from webhal.runners.server import StaticServer


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


def _get(server, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", path)  # sent as written: no client-side normalization
    response = connection.getresponse()
    return response.status, response.read()


def test_static_server_serves_nothing_outside_its_folder(tmp_path):
    served, outside = tmp_path / "served", tmp_path / "outside"
    served.mkdir()
    outside.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    (outside / "x.txt").write_text("secret")
    (served / "a.txt").write_text("public")
    (served / "inner").mkdir()
    (served / "inner" / "b.txt").write_text("public too")
    (served / "to_secret").symlink_to(tmp_path / "secret.txt")
    (served / "to_outside").symlink_to(outside)
    (served / "to_inner").symlink_to(served / "inner")  # a link that stays inside is fine
    with StaticServer(served) as server:
        assert _get(server, "/a.txt") == (200, b"public")
        assert _get(server, "/to_inner/b.txt") == (200, b"public too")
        for path in ("/to_secret", "/to_outside/x.txt"):
            assert _get(server, path)[0] == 403, path
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/inner/../../secret.txt",
                     "//" + str(tmp_path / "secret.txt"), "/%2E%2E%2Fsecret.txt"):
            status, body = _get(server, path)
            assert status == 404 and b"secret" not in body, path


def test_webhal_serve_command(tmp_path):
    (tmp_path / "index.html").write_text("<title>served</title>")
    webhal = Path(sys.executable).parent / "webhal"
    # Ctrl-C as in a terminal: a test run started in the background of a script inherits
    # SIGINT ignored, and so would the server
    process = subprocess.Popen([str(webhal), "serve", str(tmp_path), "--port", "0"],
                               stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = process.stdout.readline()
        url = line.split(" at ")[1].split("/ ")[0]
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "/index.html", timeout=10) as response:
            assert response.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
            assert b"served" in response.read()
    finally:
        process.send_signal(signal.SIGINT)  # stops it, with status 0
        try:
            assert process.wait(timeout=20) == 0
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    missing = subprocess.run([str(webhal), "serve", str(tmp_path / "nope")], text=True,
                             capture_output=True)
    assert missing.returncode == 1 and "not a folder" in missing.stderr
