"""A webhal package in the tools web apps are built with: Vite's dev server and `vite build`,
webpack's dev server and production build, esbuild, Rollup, a plain `<script type="module">`
page and a Web Worker. Each app imports the package by name from node_modules (as npm installs
it), runs every variant (webgpu, threads, simd, scalar) in headless Chromium on a page with
COOP/COEP headers (the only configuration an app adds), then in a worker of its own, and the
outputs are compared with the reference evaluator.

esbuild and Rollup leave `new URL('./x.wasm', import.meta.url)` as it is; the package's export
conditions give them its inline entry (inline.js, every file inside), so their apps too build
with no configuration, no copy step and no assetBase. The package's files served elsewhere (a
CDN) are named by `create({ assetBase })`, and a file that is not where the entry looks is an
error naming it and the fix. Dev servers are real processes on a free port, stopped after."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

import numpy as np
import pytest

from tests.packaging.conftest import AMOUNT, GENERATOR, HEIGHT, VARIANTS, WIDTH
from webhal.runners.server import ISOLATION_HEADERS, StaticServer
from webhal.testing import runtimes
from webhal.toolchain.process import run_tool

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODULES = ROOT / "node_modules"
TOOLS = {"vite": MODULES / "vite" / "bin" / "vite.js",
         "webpack": MODULES / "webpack-cli" / "bin" / "cli.js",
         "esbuild": MODULES / "esbuild" / "bin" / "esbuild",
         "rollup": MODULES / "rollup" / "dist" / "bin" / "rollup",
         "node-resolve": MODULES / "@rollup" / "plugin-node-resolve" / "dist" / "es" / "index.js"}
HEADERS = {k: v for k, v in ISOLATION_HEADERS.items() if k.startswith("Cross-Origin-")}

# The app: run.js runs the variants named in the page's query (each created, run on the same
# input, disposed), in the page or, with #worker, in a module worker of the app's own.
_RUN = """import { create } from %(package)s;
const W = %(width)d, H = %(height)d;
const withTimeout = (promise, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`${what} timed out`)), 60000))]);
export async function runAll({ variants, assetBase }) {
  const data = new Uint8Array(W * H).map((_, i) => (i * 37 + 11) %% 256);
  const results = {};
  for (const variant of variants) {
    try {
      const options = variant === 'auto' ? {} : { variant };
      if (assetBase) options.assetBase = assetBase;
      const p = await withTimeout(create(options), `create(${variant})`);
      const out = await withTimeout(p.run({ input: { data, shape: [W, H] }, amount: %(amount)s },
                                          { shape: [W, H] }), `run(${variant})`);
      results[variant] = { variant: p.variant, data: Array.from(out.data) };
      await p.dispose?.();
    } catch (e) {
      results[variant] = { error: String(e && e.stack || e).slice(0, 1500) };
    }
  }
  return results;
}
"""
_MAIN = """import { runAll } from './run.js';
const query = new URLSearchParams(location.search);
const spec = { variants: query.get('variants').split(','), assetBase: query.get('assetBase') };
const report = (value) => { window.webhalResult = value; };
if (location.hash === '#worker') {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (e) => report({ isolated: crossOriginIsolated, results: e.data });
  worker.onerror = (e) => report({ error: `the app's worker failed: ${e.message || 'to load'}` });
  worker.postMessage(spec);
} else {
  runAll(spec).then((results) => report({ isolated: crossOriginIsolated, results }),
                    (e) => report({ error: String(e && e.stack || e) }));
}
"""
_WORKER = """import { runAll } from './run.js';
self.onmessage = async (e) => self.postMessage(await runAll(e.data));
"""
_HTML = '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">' \
        '<script %s src="%s"></script>\n'


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _app(root: pathlib.Path, package: pathlib.Path, *, import_from: str = GENERATOR,
         html: str = _HTML % ('type="module"', "./main.js")) -> pathlib.Path:
    """An app folder with the package in node_modules (copied, as npm installs it)."""
    root.mkdir()
    shutil.copytree(package, root / "node_modules" / GENERATOR)
    (root / "package.json").write_text('{"name": "app", "private": true, "type": "module"}\n')
    (root / "run.js").write_text(_RUN % {"package": json.dumps(import_from), "width": WIDTH,
                                         "height": HEIGHT, "amount": AMOUNT})
    (root / "main.js").write_text(_MAIN)
    (root / "worker.js").write_text(_WORKER)
    (root / "index.html").write_text(html)
    return root


def _tool(name: str) -> str:
    path = TOOLS[name]
    if not path.is_file():
        runtimes.missing(name, f"{path} is missing", "npm ci (webhal's package.json has it)")
    return str(path)


def _build(command: list[str], cwd: pathlib.Path, what: str) -> None:
    node = [] if command[0] == str(TOOLS["esbuild"]) else [shutil.which("node") or "node"]
    run_tool([*node, *command], cwd=cwd, what=what)


class _DevServer:
    """A bundler's dev server (its own process group), up once `url` answers."""

    def __init__(self, command: list[str], cwd: pathlib.Path, port: int, what: str):
        self.url, self.what = f"http://127.0.0.1:{port}", what
        self.log = cwd / f"{what.replace(' ', '-')}.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen([shutil.which("node") or "node", *command], cwd=cwd,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.url + "/index.html", timeout=5).read()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise AssertionError(f"{what} did not start:\n{self.log.read_text()}") from None
                time.sleep(0.3)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture(scope="module")
def chromium_browser(chromium, tmp_path_factory):
    """One headless Chromium for every app of this module (each served on its own)."""
    from webhal.runners.browser import browser_session

    with browser_session(tmp_path_factory.mktemp("unused")) as session:
        yield session.browser


def _run_pages(browser, url: str, *, query: str = "") -> dict:
    """The app's results in the page and in its worker: {"page": ..., "worker": ...}."""
    variants = ",".join([*VARIANTS, "auto"])
    found = {}
    for where, hash_ in (("page", ""), ("worker", "#worker")):
        page = browser.new_page()
        console: list[str] = []
        page.on("console", lambda m, console=console: console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e, console=console: console.append(f"pageerror: {e}"))
        try:
            page.goto(f"{url}/index.html?variants={variants}{query}{hash_}")
            page.wait_for_function("window.webhalResult !== undefined", timeout=240_000)
            found[where] = page.evaluate("window.webhalResult")
        except Exception as exc:  # noqa: BLE001 - reported with the console below
            found[where] = {"error": f"{exc}".splitlines()[0]}
        found[where]["console"] = console[-8:]
        page.close()
    return found


def _check(found: dict, expected: np.ndarray) -> None:
    """Every variant gave the reference's bytes, in the page and in the worker."""
    failures = []
    for where, result in found.items():
        if "error" in result:
            failures.append(f"{where}: {result['error']} (console: {result['console']})")
            continue
        assert result["isolated"], f"{where}: not crossOriginIsolated"
        for variant, got in result["results"].items():
            if "error" in got:
                failures.append(f"{where}/{variant}: {got['error']}")
            elif variant != "auto" and got["variant"] != variant:
                failures.append(f"{where}/{variant}: ran {got['variant']}")
            elif got["data"] != expected.ravel().tolist():
                failures.append(f"{where}/{variant}: output differs from the reference")
    assert not failures, "\n".join(failures)


def test_plain_module_page(every_variant_package, expected_output, chromium_browser, tmp_path):
    # No bundler: the page imports the package's index.js by path (an import map does not
    # reach workers), from any static server with COOP/COEP.
    app = _app(tmp_path / "plain", every_variant_package,
               import_from=f"./node_modules/{GENERATOR}/index.js")
    with StaticServer(app) as server:
        _check(_run_pages(chromium_browser, server.url), expected_output)


def test_vite_dev_server(every_variant_package, expected_output, chromium_browser, tmp_path):
    app = _app(tmp_path / "vite-dev", every_variant_package,
               html=_HTML % ('type="module"', "/main.js"))
    (app / "vite.config.js").write_text(
        f"export default {{ server: {{ headers: {json.dumps(HEADERS)} }} }};\n")
    port = _free_port()
    server = _DevServer([_tool("vite"), "--port", str(port), "--strictPort", "--host",
                         "127.0.0.1"], app, port, "vite dev server")
    try:
        _check(_run_pages(chromium_browser, server.url), expected_output)
    finally:
        server.close()


def test_vite_build(every_variant_package, expected_output, chromium_browser, tmp_path):
    app = _app(tmp_path / "vite-build", every_variant_package,
               html=_HTML % ('type="module"', "/main.js"))
    _build([_tool("vite"), "build", "--logLevel", "warn"], app, "vite build")
    with StaticServer(app / "dist") as server:
        _check(_run_pages(chromium_browser, server.url), expected_output)


_WEBPACK_CONFIG = """import path from 'node:path';
export default {
  mode: '%(mode)s',
  entry: './main.js',
  output: { path: path.resolve('dist'), filename: 'main.js', clean: true },
  devServer: { headers: %(headers)s, static: { directory: path.resolve('public') },
               client: false, hot: false, liveReload: false },
};
"""


def _webpack_app(tmp_path, package, mode) -> pathlib.Path:
    app = _app(tmp_path / f"webpack-{mode}", package)
    (app / "public").mkdir()
    (app / "public" / "index.html").write_text(_HTML % ("defer", "/main.js"))
    (app / "webpack.config.js").write_text(_WEBPACK_CONFIG % {"mode": mode,
                                                              "headers": json.dumps(HEADERS)})
    return app


def test_webpack_dev_server(every_variant_package, expected_output, chromium_browser, tmp_path):
    app = _webpack_app(tmp_path, every_variant_package, "development")
    port = _free_port()
    server = _DevServer([_tool("webpack"), "serve", "--port", str(port), "--host", "127.0.0.1"],
                        app, port, "webpack dev server")
    try:
        _check(_run_pages(chromium_browser, server.url), expected_output)
    finally:
        server.close()


def test_webpack_production_build(every_variant_package, expected_output, chromium_browser,
                                  tmp_path):
    app = _webpack_app(tmp_path, every_variant_package, "production")
    _build([_tool("webpack"), "build"], app, "webpack build")
    shutil.copy(app / "public" / "index.html", app / "dist" / "index.html")
    with StaticServer(app / "dist") as server:
        _check(_run_pages(chromium_browser, server.url), expected_output)


def _esbuild_app(app: pathlib.Path) -> pathlib.Path:
    """esbuild's bundle of the app as its docs show it (no plugin, no loader), in app/dist."""
    _build([_tool("esbuild"), "main.js", "worker.js", "--bundle", "--format=esm",
            "--outdir=dist", "--log-level=warning"], app, "esbuild")
    shutil.copy(app / "index.html", app / "dist" / "index.html")
    return app / "dist"


def _rollup_app(app: pathlib.Path, resolve: str = "") -> pathlib.Path:
    """Rollup's bundle of the app with @rollup/plugin-node-resolve only (given the options
    `resolve`, a JavaScript object's source), in app/dist."""
    (app / "rollup.config.mjs").write_text(
        f"import resolve from {json.dumps(TOOLS['node-resolve'].as_uri())};\n"
        f"export default {{ input: ['main.js', 'worker.js'], plugins: [resolve({resolve})],\n"
        "  output: { dir: 'dist', format: 'es' } };\n")
    _tool("node-resolve")
    _build([_tool("rollup"), "--config", "rollup.config.mjs", "--silent"], app, "rollup")
    shutil.copy(app / "index.html", app / "dist" / "index.html")
    return app / "dist"


def _only_the_bundle(dist: pathlib.Path) -> None:
    """The bundle is the app's JavaScript (its chunks) and page, nothing else: no file copied."""
    names = sorted(p.name for p in dist.iterdir())
    assert all(n == "index.html" or (n.endswith(".js") and (dist / n).is_file())
               for n in names), names


def test_esbuild_bundle(every_variant_package, expected_output, chromium_browser, tmp_path):
    # No configuration: esbuild resolves the package to inline.js (condition "default").
    dist = _esbuild_app(_app(tmp_path / "esbuild", every_variant_package))
    _only_the_bundle(dist)
    with StaticServer(dist) as server:
        _check(_run_pages(chromium_browser, server.url), expected_output)


def test_rollup_bundle(every_variant_package, expected_output, chromium_browser, tmp_path):
    dist = _rollup_app(_app(tmp_path / "rollup", every_variant_package))
    _only_the_bundle(dist)
    with StaticServer(dist) as server:
        _check(_run_pages(chromium_browser, server.url), expected_output)


def test_rollup_browser_resolve_with_the_inline_entry(every_variant_package, expected_output,
                                                     chromium_browser, tmp_path):
    # resolve({ browser: true }) has Vite's conditions (browser, production), so the package's
    # name gives index.js there; "PKG/inline", as the README says for it, needs no copy step.
    app = _app(tmp_path / "rollup-browser", every_variant_package,
               import_from=f"{GENERATOR}/inline")
    dist = _rollup_app(app, "{ browser: true }")
    _only_the_bundle(dist)
    assert "AGFzbQ" in "".join(p.read_text() for p in dist.glob("*.js"))  # "\0asm" in base64
    with StaticServer(dist) as server:
        _check(_run_pages(chromium_browser, server.url), expected_output)


def test_rollup_bundle_with_an_asset_base(every_variant_package, expected_output,
                                          chromium_browser, tmp_path):
    # The package's folder served elsewhere, named by create({ assetBase }): the inline entry
    # then takes its files from there (its own copies would be the same files).
    dist = _rollup_app(_app(tmp_path / "rollup", every_variant_package))
    shutil.copytree(every_variant_package, dist / "vendor" / GENERATOR)
    with StaticServer(dist) as server:
        found = _run_pages(chromium_browser, server.url, query=f"&assetBase=/vendor/{GENERATOR}/")
        _check(found, expected_output)


def test_files_entry_without_its_files_names_the_fix(every_variant_package, chromium_browser,
                                                     tmp_path):
    # index.js ("PKG/files") bundled by esbuild with its files not copied, on a host that
    # answers a missing file with the app's page (as a dev server's or SPA host's fallback
    # does): each variant's error names its file, what came back and the two fixes.
    dist = _esbuild_app(_app(tmp_path / "missing", every_variant_package,
                             import_from=f"{GENERATOR}/files"))
    page = (dist / "index.html").read_bytes()
    for variant in VARIANTS:
        (dist / variant).mkdir()
        for name in os.listdir(every_variant_package / variant):
            (dist / variant / name).write_bytes(page)
    with StaticServer(dist) as server:
        found = _run_pages(chromium_browser, server.url)
    for where, result in found.items():
        assert "results" in result, f"{where}: {result}"
        for variant in VARIANTS:
            error = result["results"][variant].get("error", "")
            assert f"{variant}/{GENERATOR}." in error, f"{where}/{variant}: {error}"
            assert "an HTML page" in error and "<!doctype html>" in error, error
            assert "create({ assetBase })" in error and f'"{GENERATOR}/inline"' in error, error


def test_assets_from_another_origin(every_variant_package, expected_output, chromium_browser,
                                    tmp_path):
    # As from a CDN: the app's esbuild bundle on one origin, the package's files on another
    # that allows it (CORS, CORP), named by create({ assetBase }); the pthreads' module workers
    # come through same-origin blob: URLs that import them. The app imports "PKG/files"
    # (index.js, whose files are not in the bundle), as the README says for a CDN.
    app = _app(tmp_path / "cdn", every_variant_package, import_from=f"{GENERATOR}/files")
    _esbuild_app(app)
    cdn_headers = {**ISOLATION_HEADERS, "Cross-Origin-Resource-Policy": "cross-origin",
                   "Access-Control-Allow-Origin": "*"}
    with StaticServer(app / "dist") as server, \
            StaticServer(every_variant_package, headers=cdn_headers) as cdn:
        assert server.url != cdn.url
        found = _run_pages(chromium_browser, server.url, query=f"&assetBase={cdn.url}/")
        _check(found, expected_output)
