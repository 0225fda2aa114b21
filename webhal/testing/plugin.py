"""pytest fixtures and hooks for the runtimes webhal pipelines run on.

Installed with webhal (the `pytest11` entry point "webhal"), so any project's tests have them;
`-p no:webhal` turns it off. A test runs a generator with `webhal_run`:

    def test_blur(webhal_run, webhal_runtime):
        out = webhal_run(Blur, {"input": image}, runtime=webhal_runtime)

`webhal_runtime` parametrizes a test over every runtime (host, wgpu, wasmtime, node, browser,
firefox), and `webhal_run` compares each result with the reference evaluator. A test can also
ask for a runtime itself (`emscripten`, `node`, `chromium`, `browser`, `firefox`,
`wgpu_adapter`...). When a runtime is missing the test is skipped with an install hint, or fails
under WEBHAL_EXPECT_ALL=1 or
`--expect-all` (see webhal.testing.runtimes). Tests using browser or GPU fixtures are marked
`browser` / `gpu` automatically, so `-m "not slow and not browser"` deselects them.
"""

from __future__ import annotations

import os
import warnings
from contextlib import ExitStack

import pytest

from webhal.testing import harness, runtimes
from webhal.testing.runtimes import EXPECT_ALL_ENV, require
from webhal.toolchain import private_runtime_dir

# Fixture name -> marker its users get, so marker expressions see them.
FIXTURE_MARKERS = {
    "chromium": "browser",
    "browser": "browser",
    "browser_webgpu": "browser",
    "firefox": "browser",
    "firefox_webgpu": "browser",
    "wgpu_adapter": "gpu",
    "wgpu_device": "gpu",
    "vulkan_device": "gpu",
    "dawn_node": "gpu",
}

MARKERS = {
    "browser": "needs a headless browser (Chromium or Firefox)",
    "gpu": "needs a WebGPU adapter (wgpu-py or dawn.node) or a Vulkan device",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--expect-all", action="store_true",
                     help=f"a missing runtime fails instead of skipping (as {EXPECT_ALL_ENV}=1)")


def pytest_configure(config: pytest.Config) -> None:
    # Registered here too, so a project that loads the plugin passes --strict-markers.
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    if config.getoption("--expect-all"):
        os.environ[EXPECT_ALL_ENV] = "1"
    # wgpu-native and the Vulkan loader complain on stderr without a private runtime dir.
    if not os.path.isdir(os.environ.get("XDG_RUNTIME_DIR", "")):
        os.environ["XDG_RUNTIME_DIR"] = private_runtime_dir()


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        names = getattr(item, "fixturenames", ())
        wanted = {FIXTURE_MARKERS[n] for n in names if n in FIXTURE_MARKERS}
        runtime = getattr(getattr(item, "callspec", None), "params", {}).get("webhal_runtime")
        if runtime in RUNTIME_MARKERS:
            wanted.add(RUNTIME_MARKERS[runtime])
        for marker in sorted(wanted):
            item.add_marker(marker)


@pytest.fixture(scope="session")
def llvm_wasm():
    """llvmlite with its WebAssembly target registered (webhal.toolchain.Llvmlite)."""
    return runtimes.llvm_wasm()


@pytest.fixture(scope="session")
def emscripten():
    """The Emscripten in use (webhal.toolchain.Emscripten: version, capabilities, commands)."""
    return runtimes.emscripten()


@pytest.fixture(scope="session")
def emcc(emscripten):
    """The same record as `emscripten`, under the name of its compiler driver."""
    return emscripten


@pytest.fixture(scope="session")
def wasm_ld():
    return runtimes.wasm_ld()


@pytest.fixture(scope="session")
def node():
    return runtimes.node()


@pytest.fixture(scope="session")
def dawn_node(node):
    """dawn.node's Tool record, once it has really offered a WebGPU adapter under Node.
    Run scripts with webhal.runners.node.run_node(..., dawn=True)."""
    return runtimes.dawn_node()


@pytest.fixture(scope="session")
def chromium():
    """Chromium's Tool record, with Playwright available to drive it."""
    return runtimes.chromium()


@pytest.fixture(scope="session")
def browser_webgpu(chromium):
    """The WebGPU adapter headless Chromium offers (webhal.toolchain.AdapterInfo)."""
    return runtimes.browser_webgpu()


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
def firefox():
    """Firefox's Tool record, with Node.js and puppeteer-core available to drive it."""
    return runtimes.firefox()


@pytest.fixture(scope="session")
def firefox_webgpu(firefox):
    """The WebGPU adapter headless Firefox offers (webhal.toolchain.AdapterInfo)."""
    return runtimes.firefox_webgpu()


@pytest.fixture(scope="session")
def wgpu_adapter():
    """A wgpu-py adapter in this process (lavapipe on machines without a GPU)."""
    return runtimes.wgpu_adapter()


@pytest.fixture(scope="session")
def wgpu_device(wgpu_adapter):
    return wgpu_adapter.request_device_sync()


@pytest.fixture(scope="session")
def vulkan_device():
    """The process's Vulkan device (webhal.runtime.vulkan.DeviceInfo: name, type, API version,
    features); lavapipe on machines without a GPU."""
    return runtimes.vulkan_device()


@pytest.fixture(scope="session")
def wasmtime_engine():
    """A wasmtime.Engine with SIMD and threads enabled."""
    return runtimes.wasmtime_engine()


# The target each runtime compiles for unless a test names one.
DEFAULT_TARGET = {"reference": "reference", "host": "host", "wgpu": "host-webgpu",
                  "wasmtime": "wasm-32-wasmrt-wasm_simd128",
                  "node": "wasm-32-wasmrt-wasm_simd128", "browser": "wasm-32-wasmrt-wasm_simd128",
                  "firefox": "wasm-32-wasmrt-wasm_simd128"}
RUNTIME_MARKERS = {"browser": "browser", "firefox": "browser", "wgpu": "gpu"}


@pytest.fixture(params=harness.RUNTIMES)
def webhal_runtime(request) -> str:
    """Each runtime webhal runs on, one test per runtime (ids: host, wgpu, wasmtime, node,
    browser, firefox); `webhal_run(..., runtime=webhal_runtime)` runs there."""
    return request.param


@pytest.fixture(scope="session")
def _webhal_packages(tmp_path_factory):
    return {"root": tmp_path_factory.mktemp("webhal-packages"), "subjects": {}}


@pytest.fixture
def webhal_run(_webhal_packages):
    """`webhal_run(generator, inputs=None, *, runtime="host", target=None, outputs=None,
    params=None, tolerance=None, check=True)`: run a generator (its class, or "FILE.py:NAME")
    on `runtime` (host, wgpu, wasmtime, node, browser, firefox or reference) for `target` (a
    Halide target string; each runtime has a default) and return its output as a numpy array,
    or a dict of them by name when it has several. Inputs default to random ones and output
    shapes (numpy order) to the generator's test_output_shapes() or 48x64. With `check`, a
    result that differs from the reference evaluator's fails the test. npm packages (node,
    browser) are built once per session."""
    subjects = _webhal_packages["subjects"]

    def run(generator, inputs=None, *, runtime="host", target=None, outputs=None,
            params=None, tolerance=None, check=True):
        if runtime != "reference" and runtime not in harness.RUNTIMES:
            raise ValueError(f"webhal_run: unknown runtime {runtime!r}; one of "
                             f"{', '.join(harness.RUNTIMES)} or reference")
        target = target or DEFAULT_TARGET[runtime]
        key = (generator if isinstance(generator, str) else id(generator),
               tuple(sorted((params or {}).items())),
               None if inputs is None else id(inputs), repr(outputs), tolerance)
        subject = subjects.get(key)
        if subject is None:
            subject = harness.Subject(generator, params, inputs=inputs, output_shapes=outputs,
                                      tolerance=tolerance)
            subjects[key] = subject
        if runtime == "reference":
            produced = subject.reference()
        else:
            why = harness.missing_runtime(runtime, target)
            if why is not None:
                runtimes.missing_because(f"the {runtime} runtime", why)
            directory = _webhal_packages["root"] / f"{subject.name}-{len(subjects)}-{runtime}"
            case = harness.Case(runtime, target, _variant(runtime, target))
            outcome = harness.run_case(subject, case, package_dir=str(directory), samples=0)
            if not outcome.outputs:
                pytest.fail(f"{subject.name} on {case.id} ({target}): {outcome.message}",
                            pytrace=False)
            if check and not outcome.ok:
                pytest.fail(f"{subject.name} on {case.id} ({target}) differs from the "
                            f"reference: {outcome.message}", pytrace=False)
            produced = outcome.outputs
        return next(iter(produced.values())) if len(produced) == 1 else dict(produced)

    return run


def _variant(runtime: str, target: str) -> str:
    if runtime in ("wasmtime", "node", "browser", "firefox"):
        from webhal.glue.npm_package import variant_name
        from webhal.target import Target

        return variant_name(Target(target))
    return "webgpu" if "webgpu" in target.split("-") else "cpu"


def shared_dawn_shader_checker():
    """The session's webhal.runners.dawn_shaders.DawnShaderChecker (WGSL through Dawn's
    compiler, Tint), started on first use; a missing dawn.node skips, or fails in CI."""
    global _dawn_checker
    if _dawn_checker is None:
        from webhal.runners.dawn_shaders import DawnShaderChecker

        runtimes.dawn_node()
        _dawn_checker = require("dawn.node", DawnShaderChecker)
    return _dawn_checker


@pytest.fixture
def dawn_shader_checker(dawn_node):
    """The session's DawnShaderChecker (see shared_dawn_shader_checker)."""
    return shared_dawn_shader_checker()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _dawn_checker is not None:
        _dawn_checker.close()


def _recorded_builds(monkeypatch, builder: str) -> list[tuple]:
    """The (code, manifest) pairs webhal.codegen's `builder` (build_wgsl, build_spirv) makes
    while the test runs, in a list that fills as they are made."""
    import webhal.codegen

    produced: list[tuple] = []
    build = getattr(webhal.codegen, builder)

    def recording(*args, **kwargs):
        made = build(*args, **kwargs)
        produced.append(made)
        return made

    monkeypatch.setattr(webhal.codegen, builder, recording)
    return produced


@pytest.fixture
def wgsl_checked_on_dawn(monkeypatch):
    """Every WGSL module the test compiles is also created on dawn.node (shader module and
    compute pipelines), since code that naga (wgpu-py) accepts can be rejected by Tint (Dawn,
    Chromium). The test errors at teardown, with Dawn's messages, if any module is rejected.
    Use it as an autouse fixture in a conftest.py to cover a whole suite."""
    produced = _recorded_builds(monkeypatch, "build_wgsl")
    yield
    for source, manifest in produced:
        if source in _accepted_wgsl:
            continue
        verdict = shared_dawn_shader_checker().check(source, manifest)
        if verdict.errors:
            numbered = "\n".join(f"{i:4} {line}" for i, line in
                                 enumerate(source.splitlines(), 1))
            pytest.fail("Dawn (Tint) rejects WGSL that this test produced:\n  "
                        + "\n  ".join(verdict.errors) + f"\n{numbered}", pytrace=False)
        if verdict.unsupported:
            warnings.warn("dawn.node's adapter cannot run all of this test's WGSL: "
                          + "; ".join(verdict.unsupported), stacklevel=1)
        _accepted_wgsl.add(source)


@pytest.fixture
def spirv_validated(monkeypatch):
    """Every SPIR-V module the test compiles passes `spirv-val` (SPIRV-Tools) for the Vulkan
    version its manifest names; the test errors at teardown with spirv-val's complaint
    otherwise. Use it as an autouse fixture in a conftest.py to cover a whole suite."""
    from webhal.toolchain.spirv import validate

    produced = _recorded_builds(monkeypatch, "build_spirv")
    yield
    for binary, manifest in produced:
        key = (binary, tuple(manifest["vulkan_version"]))
        if key not in _valid_spirv:
            validate(binary, key[1])
            _valid_spirv.add(key)


_valid_spirv: set[tuple[bytes, tuple]] = set()  # modules spirv-val accepted in this session


@pytest.fixture
def vulkan_validation_silent():
    """The test fails at teardown if the Vulkan validation layer reported anything while it
    ran (a warning or an error: a misuse of the API by webhal's runtime or shaders). The layer
    is on when HL_VK_LAYERS or VK_INSTANCE_LAYERS names VK_LAYER_KHRONOS_validation before the
    process's Vulkan device is made. Use it as an autouse fixture in a conftest.py."""
    import sys
    vulkan = sys.modules.get("webhal.runtime.vulkan")
    if vulkan is not None:
        vulkan.clear_validation_messages()
    yield
    vulkan = sys.modules.get("webhal.runtime.vulkan")
    if vulkan is not None and vulkan.validation_messages():
        messages = vulkan.validation_messages()
        vulkan.clear_validation_messages()
        pytest.fail("the Vulkan validation layer reported:\n  " + "\n  ".join(messages[:10]),
                    pytrace=False)
_dawn_checker = None
_accepted_wgsl: set[str] = set()  # modules Dawn accepted in this session (each checked once)
