"""Headless Firefox, the second browser: SpiderMonkey for wasm and its own WebGPU (wgpu, naga).

Stock Firefox (Debian's firefox-esr) is driven by the npm package puppeteer-core over WebDriver
BiDi (Playwright drives only its own patched Firefox builds, which cannot be downloaded here):
one long-lived Node process, runtime_js/firefox_driver.js, owns the browser and answers JSON
requests on stdio, one a line. Pages, the runner page and the harness are those of
webhal.runners.browser, so that a package runs in both browsers the same way.

WebGPU in Firefox needs the prefs of FIREFOX_PREFS and, on machines without a GPU, a Vulkan
driver on the CPU: Mesa's lavapipe (VK_ICD_FILENAMES); without it Firefox offers no adapter.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webhal.errors import BrowserError, ToolchainError
from webhal.runners.browser import _ADAPTER_PROBE, BrowserRunner
from webhal.runners.server import StaticServer
from webhal.toolchain.adapters import AdapterInfo
from webhal.toolchain.cache import cached
from webhal.toolchain.hosts import (
    FIREFOX_HINT,
    PUPPETEER_HINT,
    find_firefox,
    find_node,
    find_puppeteer,
)
from webhal.toolchain.process import private_runtime_dir

# WebGPU is behind prefs in Firefox ESR on Linux, and blocklisted for software drivers.
FIREFOX_PREFS = {
    "dom.webgpu.enabled": True,
    "gfx.webgpu.ignore-blocklist": True,
    "gfx.webgpu.force-enabled": True,
}


def firefox_env() -> dict[str, str]:
    """The driver's (and so Firefox's) environment: lavapipe as the Vulkan driver unless the
    caller chose one (VK_ICD_FILENAMES / VK_DRIVER_FILES), and a private XDG_RUNTIME_DIR."""
    from webhal.toolchain.webgpu import find_lavapipe_icd

    env = dict(os.environ)
    if not (env.get("VK_ICD_FILENAMES") or env.get("VK_DRIVER_FILES")):
        try:
            env["VK_ICD_FILENAMES"] = find_lavapipe_icd().path
        except ToolchainError:
            pass  # wasm variants still run; a webgpu one says there is no adapter
    if not os.path.isdir(env.get("XDG_RUNTIME_DIR", "")):
        env["XDG_RUNTIME_DIR"] = private_runtime_dir()
    return env


@dataclass
class FirefoxSession:
    """A running firefox_driver.js (and its Firefox) and the server of the folder it browses."""

    server: StaticServer
    process: subprocess.Popen
    replies: queue.Queue
    firefox_path: str
    version: str
    log_path: str

    @property
    def url(self) -> str:
        return self.server.url

    def log_tail(self, lines: int = 15) -> str:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-lines:]).strip()
        except OSError:
            return ""


def _read_replies(stream, replies: queue.Queue) -> None:
    for line in stream:
        if line.strip():
            replies.put(line)
    replies.put(None)  # the driver ended


class FirefoxRunner(BrowserRunner):
    """BrowserRunner in headless Firefox: `run_package`, `run_page` and `mount` as there, with
    errors naming Firefox. Use `shared_firefox_runner()` rather than making one per run."""

    engine = "Firefox"

    def __init__(self, *, prefs: dict | None = None, timeout_s: float = 120):
        self._prefs = {**FIREFOX_PREFS, **(prefs or {})}
        self._lock = threading.Lock()  # one request at a time on the driver's stdio
        self._ids = itertools.count(1)
        super().__init__(timeout_s=timeout_s)

    def _start(self, extra_args: Sequence[str], timeout_s: float) -> FirefoxSession:
        from webhal.glue import package_data

        firefox, node, puppeteer = find_firefox(), find_node(), find_puppeteer()
        server = self._stack.enter_context(StaticServer(self.root))
        driver = package_data.folder("runtime_js") / "firefox_driver.js"
        log_path = os.path.join(self.root, "..", os.path.basename(self.root) + "-driver.log")
        env = {**firefox_env(), "WEBHAL_PUPPETEER": "file://" + puppeteer.path,
               "WEBHAL_FIREFOX": firefox.path, "WEBHAL_ROOT_URL": server.url,
               "WEBHAL_FIREFOX_PREFS": json.dumps(self._prefs)}
        with open(log_path, "w") as log:
            process = subprocess.Popen([node.path, str(driver)], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=log, env=env, text=True,
                                       encoding="utf-8", bufsize=1)
        self._stack.callback(os.unlink, log_path)
        self._stack.callback(_stop, process)
        replies: queue.Queue = queue.Queue()
        threading.Thread(target=_read_replies, args=(process.stdout, replies), daemon=True,
                         name="webhal-firefox-driver").start()
        session = FirefoxSession(server, process, replies, firefox.path, "", log_path)
        self._driver_name = _vulkan_driver(env)
        ready = self._reply(session, timeout_s, "starting")
        if not ready.get("ready"):
            raise ToolchainError(f"headless Firefox did not start: {ready.get('fatal')}",
                                 command=[node.path, str(driver)],
                                 hint=f"{FIREFOX_HINT}; puppeteer-core: {PUPPETEER_HINT}")
        session.version = ready["version"]
        return session

    def _reply(self, session: FirefoxSession, timeout_s: float, doing: str) -> dict:
        try:
            line = session.replies.get(timeout=timeout_s)
        except queue.Empty:
            _stop(session.process)
            line = None
            why = f"no answer from the Firefox driver in {timeout_s:g} s while {doing}"
        else:
            why = f"the Firefox driver ended while {doing}"
        if line is None:
            tail = session.log_tail()
            raise ToolchainError(why + (f"; its log ends:\n{tail}" if tail else ""),
                                 hint=FIREFOX_HINT)
        return json.loads(line)

    @property
    def alive(self) -> bool:
        session = getattr(self, "session", None)
        return session is not None and session.process.poll() is None

    @property
    def version(self) -> str:
        """Firefox's own version, as the browser reports it (firefox/153.8.0esr)."""
        return self.session.version

    def _run(self, path, where, timeout_s, init_script, *, start=None,
             result="window.webhalReply", screenshot=None, full_page=True):
        timeout_s = timeout_s or self.timeout_s
        request = {"path": path, "init": init_script, "start": start, "result": result,
                   "timeoutMs": int(timeout_s * 1000), "fullPage": full_page,
                   "screenshot": os.fspath(screenshot) if screenshot else None}
        with self._lock:
            request["id"] = next(self._ids)
            try:
                self.session.process.stdin.write(json.dumps(request) + "\n")
                self.session.process.stdin.flush()
            except OSError:
                pass  # it died: _reply says so with its log
            reply = self._reply(self.session, timeout_s + 30, f"running {where}")
            while reply.get("id") != request["id"] and "fatal" not in reply:
                reply = self._reply(self.session, timeout_s + 30, f"running {where}")
        if "fatal" in reply:
            raise BrowserError(f"{where} failed in Firefox: {reply['fatal']}",
                               [self.session.log_tail()])
        console = reply["console"]
        if reply["errors"]:  # thrown where the page's listeners could not see it
            raise BrowserError(f"{where} threw in Firefox: {reply['errors'][0]}", console)
        if reply.get("kind") == "timeout":
            raise BrowserError(f"{where} did not finish in Firefox within {timeout_s:g} s",
                               console, hint="a longer timeout_s, or see the console lines")
        if "error" in reply:
            raise BrowserError(f"{where} failed in Firefox: {reply['error']}", console)
        value = _named_adapters(reply["value"], self._driver_name)
        if isinstance(value, dict) and "error" in value:
            raise BrowserError(f"{where} failed in Firefox: {value['error']}", console)
        return (value["reply"] if start else value), console


def _vulkan_driver(env: dict[str, str]) -> str:
    """The Vulkan driver Firefox was given, in a few words ("lavapipe")."""
    icd = env.get("VK_ICD_FILENAMES") or env.get("VK_DRIVER_FILES") or ""
    name = os.path.basename(icd.split(os.pathsep)[0])
    return "lavapipe" if name.startswith("lvp_icd") else name or "the system's Vulkan driver"


def _named_adapters(value: Any, driver: str) -> Any:
    """`value` with each reported adapter (an "adapter" entry, in a run's reply or a demo
    page's variants) that Firefox left blank described by the Vulkan driver it was given:
    Firefox's GPUAdapterInfo has empty vendor, architecture, device and description."""
    if isinstance(value, dict):
        adapter = value.get("adapter")
        if isinstance(adapter, dict) and not any(adapter.get(k) for k in
                                                 ("vendor", "architecture", "description")):
            value = {**value, "adapter": {**adapter, "description": f"{driver} (Vulkan)"}}
        return {k: _named_adapters(v, driver) if k != "adapter" else v
                for k, v in value.items()}
    return value


def _stop(process: subprocess.Popen) -> None:
    """Close the driver's stdin (it closes Firefox and exits), then make sure it is gone."""
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


_shared: list[FirefoxRunner] = []
_shared_lock = threading.Lock()


def shared_firefox_runner() -> FirefoxRunner:
    """The process's FirefoxRunner, started on first use (and again if Firefox died); closed
    when the process exits. Any thread may use it: requests take turns."""
    with _shared_lock:
        if _shared and not _shared[0].alive:
            _close(_shared.pop())
        if not _shared:
            _shared.append(FirefoxRunner())
            atexit.register(_close, _shared[0])
        return _shared[0]


def _close(runner: FirefoxRunner) -> None:
    try:
        runner.close()
    except Exception:  # noqa: BLE001 - the driver went first at exit
        pass


@cached
def firefox_adapter_info(timeout_s: float = 60) -> AdapterInfo:
    """The WebGPU adapter headless Firefox offers a page (here lavapipe). Raises
    ToolchainError when there is none."""
    runner = shared_firefox_runner()
    with tempfile.TemporaryDirectory(prefix="webhal-probe-") as directory:
        with open(os.path.join(directory, "index.html"), "w") as f:
            f.write("<!doctype html><title>webhal WebGPU probe</title>\n<script>\n"
                    f"({_ADAPTER_PROBE})().then((info) => {{ window.webhalResult = info; }},\n"
                    "  (e) => { window.webhalResult = { error: String(e) }; });\n</script>\n")
        try:
            info, _ = runner.run_page(runner.mount(directory) + "/index.html",
                                      timeout_s=timeout_s)
        except BrowserError as exc:
            info = {"error": str(exc)}
    if "error" in info:
        raise ToolchainError(f"headless Firefox offered no WebGPU adapter: {info['error']}",
                             hint="set the prefs of webhal.runners.firefox.FIREFOX_PREFS and "
                                  "give Firefox a Vulkan driver: apt-get install "
                                  "mesa-vulkan-drivers (lavapipe)")
    if not any(info.get(k) for k in ("vendor", "architecture", "description")):
        info["description"] = f"{runner._driver_name} (Vulkan)"  # Firefox leaves them empty
    return AdapterInfo.from_dict("firefox", info)
