"""Finders for the JavaScript hosts: Node.js, Chromium (driven by Playwright) and Firefox
(driven by puppeteer-core)."""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys

from webhal.errors import ToolchainError
from webhal.toolchain.cache import cached
from webhal.toolchain.install import fix
from webhal.toolchain.process import run_tool
from webhal.toolchain.python_packages import python_package
from webhal.toolchain.tool import Tool, format_version, parse_version

NODE_MINIMUM = (20,)
NODE_HINT = ("install Node.js 20 or newer and put `node` on PATH "
             "(Debian 12's own nodejs package is 18: use NodeSource's)")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_HINT = fix("apt-get install chromium (Debian's, with SwiftShader for WebGPU), or "
                    "`python -m playwright install chromium` (downloads Playwright's)",
                    "apt-get install chromium; never `playwright install`, which downloads",
                    either="set CHROME_PATH to a Chromium or Chrome executable")
PLAYWRIGHT_HINT = fix("pip install playwright (it drives the Chromium found: Debian's, "
                      "CHROME_PATH's or Playwright's own)",
                      "pip install playwright, which drives Debian's chromium: no download")
FIREFOX_NAMES = ("firefox-esr", "firefox")
FIREFOX_HINT = fix("apt-get install firefox-esr", "apt-get install firefox-esr",
                   either="set FIREFOX_PATH to a Firefox executable")
PUPPETEER_HINT = fix("npm install puppeteer-core in this folder or one above it (it drives the "
                     "installed Firefox; it downloads no browser)",
                     "npm ci, which installs puppeteer-core; it drives the installed Firefox and "
                     "downloads no browser")


@cached
def find_node() -> Tool:
    """Node.js on PATH (`node`, else `nodejs`), at least NODE_MINIMUM. Raises ToolchainError."""
    path = shutil.which("node") or shutil.which("nodejs")
    if path is None:
        raise ToolchainError("Node.js (node) not found on PATH", hint=NODE_HINT)
    result = run_tool([path, "--version"], timeout_s=30, what="node --version", hint=NODE_HINT)
    version = parse_version(result.stdout)
    if version is None or version < NODE_MINIMUM:
        raise ToolchainError(
            f"Node.js at {path} is {result.stdout.strip()}; webhal needs "
            f"{format_version(NODE_MINIMUM)} or newer", hint=NODE_HINT)
    return Tool(name="node", path=path, version=version)


def _override(variable: str, hint: str) -> str | None:
    """The executable an environment variable names (CHROME_PATH, FIREFOX_PATH), or None when
    it is unset. Raises ToolchainError when it names no executable file."""
    path = os.environ.get(variable)
    if path and not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise ToolchainError(f"{variable}={path} is not an executable file",
                             hint=f"fix or unset {variable}; otherwise: {hint}")
    return path or None


@cached
def find_chromium() -> Tool:
    """The Chromium to drive: $CHROME_PATH, else the first of CHROMIUM_NAMES on PATH
    (Debian's /usr/bin/chromium is reached through PATH), else the newest Chromium that
    `python -m playwright install chromium` downloaded. Raises ToolchainError."""
    path = _override("CHROME_PATH", CHROMIUM_HINT)
    if path is None:
        path = next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None) or \
            _playwright_chromium()
        if path is None:
            raise ToolchainError("Chromium not found (CHROME_PATH is unset, none of "
                                 f"{', '.join(CHROMIUM_NAMES)} is on PATH, and Playwright has "
                                 f"downloaded none to {_playwright_browsers()})",
                                 hint=CHROMIUM_HINT)
    result = run_tool([path, "--version"], timeout_s=60, what="chromium --version",
                      hint=CHROMIUM_HINT)
    return Tool(name="chromium", path=path, version=parse_version(result.stdout))


def _playwright_browsers() -> str:
    """Where Playwright keeps the browsers it downloads (Linux and macOS)."""
    default = "~/Library/Caches/ms-playwright" if sys.platform == "darwin" else \
        "~/.cache/ms-playwright"
    return os.path.expanduser(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or default)


def _playwright_chromium() -> str | None:
    """The executable of the newest Chromium Playwright downloaded, or None."""
    found = glob.glob(os.path.join(_playwright_browsers(), "chromium-*", "chrome-linux*",
                                   "chrome"))
    found = [p for p in found if os.access(p, os.X_OK)]
    revision = lambda p: int(re.sub(r"\D", "", p.split(os.sep)[-3]) or 0)  # noqa: E731
    return max(found, key=revision, default=None)


@cached
def find_playwright() -> Tool:
    """The Playwright Python package (its driver only; browsers come from find_chromium)."""
    return python_package("playwright", hint=PLAYWRIGHT_HINT)


@cached
def find_firefox() -> Tool:
    """The Firefox to drive: $FIREFOX_PATH, else the first of FIREFOX_NAMES on PATH (Debian's
    firefox-esr). Raises ToolchainError."""
    path = _override("FIREFOX_PATH", FIREFOX_HINT)
    if path is None:
        path = next((p for p in map(shutil.which, FIREFOX_NAMES) if p), None)
        if path is None:
            raise ToolchainError("Firefox not found (FIREFOX_PATH is unset and none of "
                                 f"{', '.join(FIREFOX_NAMES)} is on PATH)", hint=FIREFOX_HINT)
    result = run_tool([path, "--version"], timeout_s=60, what="firefox --version",
                      hint=FIREFOX_HINT)
    return Tool(name="firefox", path=path, version=parse_version(result.stdout))


@cached
def find_puppeteer() -> Tool:
    """The npm package puppeteer-core (node_modules/puppeteer-core, found walking up from the
    current directory, then from webhal's own); `path` is its ES module entry."""
    from webhal.toolchain.webgpu import _package_version, _walk_up

    looked = []
    for start in (os.getcwd(), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
        for directory in _walk_up(start):
            package = os.path.join(directory, "node_modules", "puppeteer-core")
            entry = os.path.join(package, "lib", "esm", "puppeteer", "puppeteer-core.js")
            if os.path.isfile(entry):
                return Tool(name="puppeteer-core", path=entry,
                            version=_package_version(os.path.join(package, "package.json")))
        looked.append(start)
    raise ToolchainError("puppeteer-core not found (node_modules/puppeteer-core above "
                         f"{' or '.join(looked)})", hint=PUPPETEER_HINT)
