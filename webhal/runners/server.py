"""`webhal serve`'s static file server: one folder, on 127.0.0.1 unless told otherwise, with the
cross-origin isolation headers (COOP/COEP) a page needs for SharedArrayBuffer (wasm threads)
and `application/wasm` for .wasm, and nothing outside the folder."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Mapping
from typing import Any

from webhal.errors import ToolchainError

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
