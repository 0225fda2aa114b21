"""Headless Chromium through Playwright, on pages from a local static file server.

Pages come from http://127.0.0.1:<port> because WebGPU needs a secure context (about:blank and
file:// have no navigator.gpu), and the server sends the cross-origin isolation headers without
which a page gets no SharedArrayBuffer (wasm threads). Debian's Chromium is used as installed:
never `playwright install`, which downloads a browser.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from webhal.errors import BrowserError, ToolchainError
from webhal.runners.server import StaticServer
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


# The Playwright driver of this thread, started on first use and stopped when the process
# exits: its sync API cannot start a second one in a thread while one runs, so every session
# (a test fixture, the shared runner, a page build inside either) launches its browser on it.
_drivers = threading.local()


def _driver(sync_playwright) -> Any:
    running = getattr(_drivers, "running", None)
    if running is None:
        running = _drivers.running = sync_playwright().start()
        atexit.register(_stop_driver, running)
    return running


def _stop_driver(running) -> None:
    try:
        running.stop()
    except Exception:  # noqa: BLE001 - already gone at exit: nothing left to release
        pass


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

    with StaticServer(directory) as server:
        playwright = _driver(sync_playwright)
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


# The runner's page: it reports an uncaught error or rejection as the run's reply, so that a
# page that throws ends the wait at once with the browser's message.
_RUNNER_PAGE = """<!doctype html>
<meta charset="utf-8">
<title>webhal runner</title>
<link rel="icon" href="data:,">
<script>
const fail = (what, e) => { window.webhalReply ??= { error: what + String(e && e.stack || e) }; };
addEventListener('error', (ev) => fail('uncaught: ', ev.error ?? ev.message));
addEventListener('unhandledrejection', (ev) => fail('unhandled rejection: ', ev.reason));
</script>
"""

# Starts runtime_js/harness.js on a package; the reply lands in window.webhalReply.
_START_PACKAGE = """([index, spec]) => {
  window.webhalReply = undefined;
  Promise.all([import('/harness.js'), import(index)])
    .then(([harness, pkg]) => harness.runPackage(pkg.create, spec))
    .then((reply) => { window.webhalReply = { reply }; },
          (e) => { window.webhalReply = { error: String(e && e.stack || e) }; });
}"""


class _Observed:
    """A page's console lines and page errors as they come."""

    def __init__(self, page):
        self.console: list[str] = []
        self.errors: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", self._error)
        page.on("crash", lambda _: self.console.append("crash: the page's renderer died"))

    def _error(self, error) -> None:
        self.errors.append(str(error))
        self.console.append(f"pageerror: {error}")


class BrowserRunner:
    """One headless Chromium and one local server for many runs in this process: built
    packages run on a chosen variant through runtime_js/harness.js (`run_package`), pages run
    until they report (`run_page`). Use `shared_runner()` rather than making one per run.

    A page that throws, a crash of the browser and a run past its time raise BrowserError
    with the browser's own message and the page's console lines."""

    def __init__(self, *, extra_args: Sequence[str] = (), timeout_s: float = 120):
        from webhal.glue import package_data

        self.timeout_s = timeout_s
        self._stack = ExitStack()
        self.root = self._stack.enter_context(tempfile.TemporaryDirectory(prefix="webhal-run-"))
        with open(os.path.join(self.root, "runner.html"), "w") as f:
            f.write(_RUNNER_PAGE)
        harness = package_data.folder("runtime_js") / "harness.js"
        with open(os.path.join(self.root, "harness.js"), "w") as f:
            f.write(harness.read_text(encoding="utf-8"))
        self._mounted: dict[str, tuple[int, str]] = {}
        self.session = self._start(extra_args, timeout_s)

    def _start(self, extra_args: Sequence[str], timeout_s: float):
        """The browser serving self.root, closed with self._stack (a subclass drives another
        browser: webhal.runners.firefox)."""
        return self._stack.enter_context(
            browser_session(self.root, extra_args=extra_args, timeout_s=timeout_s))

    @property
    def alive(self) -> bool:
        try:
            return self.session.browser.is_connected()
        except Exception:  # noqa: BLE001 - its driver is gone
            return False

    def mount(self, directory: str | os.PathLike) -> str:
        """Copy `directory` under the served root (again when a file in it changed) and return
        its URL path, "/name-N"."""
        real = os.path.realpath(directory)
        if not os.path.isdir(real):
            raise ToolchainError(f"cannot serve {directory}: not a folder")
        stamp = max((os.stat(os.path.join(d, f)).st_mtime_ns for d, _, files in os.walk(real)
                     for f in files), default=0)
        known = self._mounted.get(real)
        if known and known[0] == stamp:
            return known[1]
        name = f"/{os.path.basename(real)}-{len(self._mounted)}"
        shutil.copytree(real, self.root + name, dirs_exist_ok=True)
        self._mounted[real] = (stamp, name)
        return name

    def run_package(self, directory: str | os.PathLike, inputs: Mapping[str, object],
                    output_shapes: Mapping[str, Sequence[int]], *, variant: str | None = None,
                    samples: int = 0, min_batch_ms: float = 20, timeout_s: float | None = None,
                    init_script: str | None = None, screenshot: str | os.PathLike | None = None):
        """Run the npm package in `directory` in a fresh page (inputs and shapes as in
        webhal.runners.package_run.spec); returns a PackageRun. `init_script` runs before the
        page's own scripts (to take WebGPU away, say); `screenshot` saves a PNG of the page."""
        from webhal.runners import package_run

        where = f"{os.path.basename(os.path.realpath(directory))}"
        where += f" ({variant} variant)" if variant else ""
        index = self.mount(directory) + "/index.js"
        run_spec = package_run.spec(variant, inputs, output_shapes, samples, min_batch_ms)
        reply, console = self._run("/runner.html", where, timeout_s, init_script,
                                   start=(_START_PACKAGE, [index, run_spec]),
                                   screenshot=screenshot)
        return package_run.result(reply, console)

    def run_page(self, path: str, *, result: str = "window.webhalResult",
                 timeout_s: float | None = None, screenshot: str | os.PathLike | None = None,
                 full_page: bool = True) -> tuple[Any, list[str]]:
        """Open `path` (under the served root; see `mount`), wait until the expression `result`
        is defined, and return its value and the console lines; a page reporting
        { error } raises. With `screenshot`, a PNG of the page is saved there afterwards."""
        return self._run(path, path, timeout_s, None, result=result, screenshot=screenshot,
                         full_page=full_page)

    def _run(self, path, where, timeout_s, init_script, *, start=None,
             result="window.webhalReply", screenshot=None, full_page=True):
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        timeout_s = timeout_s or self.timeout_s
        page = self.session.browser.new_page()
        observed = _Observed(page)
        try:
            if init_script:
                page.add_init_script(init_script)
            page.set_default_timeout(timeout_s * 1000)
            page.goto(self.session.url + path)
            if start:
                page.evaluate(*start)
            page.wait_for_function(f"() => ({result}) !== undefined", timeout=timeout_s * 1000)
            value = page.evaluate(result)
            if screenshot:
                page.screenshot(path=os.fspath(screenshot), full_page=full_page)
        except PlaywrightTimeout:
            raise BrowserError(f"{where} did not finish in Chromium within {timeout_s:g} s",
                               observed.console,
                               hint="a longer timeout_s, or see the console lines") from None
        except PlaywrightError as exc:
            raise BrowserError(f"{where} failed in Chromium: {exc.message.strip()}",
                               observed.console) from None
        finally:
            if self.alive:
                page.close()
        if isinstance(value, dict) and "error" in value:
            raise BrowserError(f"{where} failed in Chromium: {value['error']}", observed.console)
        if observed.errors:  # thrown where the page's listeners could not see it
            raise BrowserError(f"{where} threw in Chromium: {observed.errors[0]}",
                               observed.console)
        return (value["reply"] if start else value), observed.console

    def close(self) -> None:
        self._stack.close()


# One runner per thread: Playwright's sync objects belong to the thread that made them.
_runners = threading.local()


def shared_runner() -> BrowserRunner:
    """This thread's BrowserRunner, started on first use (and again if its browser died);
    closed when the process exits."""
    runner = getattr(_runners, "runner", None)
    if runner is None or not runner.alive:
        if runner is not None:
            _close(runner)
        runner = _runners.runner = BrowserRunner()
        atexit.register(_close, runner)
    return runner


def _close(runner: BrowserRunner) -> None:
    try:
        runner.close()
    except Exception:  # noqa: BLE001 - the browser went first at exit
        pass


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
    # A browser of its own: `webhal doctor` probes on a worker thread, which ends after.
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
