"""Headless Chromium through Playwright, on pages from a local static file server.

Pages come from http://127.0.0.1:<port> because WebGPU needs a secure context (about:blank and
file:// have no navigator.gpu), and the server sends the cross-origin isolation headers without
which a page gets no SharedArrayBuffer (wasm threads). Debian's Chromium is used as installed:
never `playwright install`, which downloads a browser.
"""

from __future__ import annotations

import functools
import http.server
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from webhal.errors import ToolchainError
from webhal.toolchain.adapters import AdapterInfo
from webhal.toolchain.cache import cached
from webhal.toolchain.hosts import CHROMIUM_HINT, PLAYWRIGHT_HINT, find_chromium, find_playwright

# Headless WebGPU on SwiftShader, and nothing that reaches the network or asks questions.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)

# Cross-origin isolation (SharedArrayBuffer for wasm threads), and no stale cached builds.
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}

MIME_TYPES = {
    ".wasm": "application/wasm",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".wgsl": "text/plain",
    ".map": "application/json",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    extra_headers: Mapping[str, str] = ISOLATION_HEADERS
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def send_head(self):
        # translate_path already drops `..` (also when percent-encoded) and absolute parts;
        # what it cannot see is a symbolic link inside the folder that points out of it.
        root = os.path.realpath(self.directory)
        real = os.path.realpath(self.translate_path(self.path))
        if os.path.commonpath([root, real]) != root:
            self.send_error(403, "outside the served folder")
            return None
        return super().send_head()

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class StaticServer:
    """A threaded HTTP server for one directory, on 127.0.0.1 unless `host` says otherwise
    (ephemeral port by default). Nothing outside the directory is served: `..`, encoded or
    not, and absolute paths stay inside it, and a symbolic link that leads out is refused (403).

    Use as a context manager; `url` is "http://<host>:<port>". Every response carries
    `headers` (default: COOP/COEP/CORP and no-store)."""

    def __init__(self, directory: str | os.PathLike, *, port: int = 0, host: str = "127.0.0.1",
                 headers: Mapping[str, str] = ISOLATION_HEADERS):
        handler_class = type("Handler", (_Handler,), {"extra_headers": dict(headers)})
        self.directory = os.fspath(directory)
        if not os.path.isdir(self.directory):
            raise ToolchainError(f"cannot serve {self.directory}: not a folder")
        self.host = host
        handler = functools.partial(handler_class, directory=self.directory)
        try:
            self._server = http.server.ThreadingHTTPServer((host, port), handler)
        except OSError as exc:
            raise ToolchainError(f"cannot serve on {host}:{port}: {exc.strerror}",
                                 hint="choose another --port, or stop what uses it") from None
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="webhal-static-server", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def serve_forever(self) -> None:
        """Block until interrupted (the `webhal serve` command)."""
        self._thread.join()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> StaticServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass
class BrowserSession:
    """A running headless Chromium and the server of the directory it browses."""

    server: StaticServer
    browser: Any  # playwright.sync_api.Browser
    chromium_path: str

    @property
    def url(self) -> str:
        return self.server.url

    def open(self, path: str = "/", *, timeout_s: float = 60) -> Any:
        """A new page (playwright.sync_api.Page) navigated to `path` on the server."""
        page = self.browser.new_page()
        page.set_default_timeout(timeout_s * 1000)
        page.goto(self.url + "/" + path.lstrip("/"))
        return page


# The Playwright driver this thread runs, shared by nested sessions: its sync API cannot start
# a second time in a thread while one runs (a session-wide test fixture, a page build inside).
_drivers = threading.local()


@contextmanager
def _playwright(sync_playwright) -> Iterator[Any]:
    running = getattr(_drivers, "running", None)
    if running is not None:
        yield running
        return
    with sync_playwright() as playwright:
        _drivers.running = playwright
        try:
            yield playwright
        finally:
            _drivers.running = None


@contextmanager
def browser_session(directory: str | os.PathLike, *, extra_args: Sequence[str] = (),
                    timeout_s: float = 60) -> Iterator[BrowserSession]:
    """Serve `directory` and launch headless Chromium (found by find_chromium) with
    CHROMIUM_ARGS + `extra_args`; both stop when the block ends.

    Playwright's sync API: call from a thread without a running asyncio loop.
    Raises ToolchainError when Chromium or Playwright is missing or the launch fails."""
    chromium = find_chromium()
    find_playwright()
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with StaticServer(directory) as server, _playwright(sync_playwright) as playwright:
        try:
            browser = playwright.chromium.launch(
                executable_path=chromium.path, headless=True,
                args=[*CHROMIUM_ARGS, *extra_args], timeout=timeout_s * 1000)
        except PlaywrightError as exc:
            raise ToolchainError(f"headless Chromium did not start: {exc.message.strip()}",
                                 command=[chromium.path, *CHROMIUM_ARGS, *extra_args],
                                 hint=f"{CHROMIUM_HINT}; Playwright: {PLAYWRIGHT_HINT}") from None
        try:
            yield BrowserSession(server=server, browser=browser, chromium_path=chromium.path)
        finally:
            browser.close()


_ADAPTER_PROBE = """async () => {
  if (!navigator.gpu) return {error: "navigator.gpu is missing (not a secure context?)"};
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return {error: "requestAdapter() returned null"};
  const i = adapter.info;
  return {vendor: i.vendor, architecture: i.architecture, device: i.device,
          description: i.description, isolated: self.crossOriginIsolated};
}"""


@cached
def webgpu_adapter_info(timeout_s: float = 60) -> AdapterInfo:
    """The WebGPU adapter headless Chromium offers a page (here SwiftShader: vendor "google",
    architecture "swiftshader"). Raises ToolchainError when there is none."""
    with tempfile.TemporaryDirectory(prefix="webhal-probe-") as directory:
        with open(os.path.join(directory, "index.html"), "w") as f:
            f.write("<!doctype html><title>webhal WebGPU probe</title>\n")
        with browser_session(directory, timeout_s=timeout_s) as session:
            page = session.open("/index.html", timeout_s=timeout_s)
            info = page.evaluate(_ADAPTER_PROBE)
    if "error" in info:
        raise ToolchainError(f"headless Chromium offered no WebGPU adapter: {info['error']}",
                             hint="launch Chromium with --enable-unsafe-webgpu "
                                  "(browser.CHROMIUM_ARGS) on a page served from 127.0.0.1")
    return AdapterInfo.from_dict("chromium", info)
