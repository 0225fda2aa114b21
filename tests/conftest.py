"""Shared test rules: the runtime fixtures come from webhal's pytest plugin, which pip's
install registers (the `pytest11` entry point), as it does in users' projects.

A test that needs a runtime asks for it by fixture (webhal/testing/plugin.py). Locally a missing
runtime skips the test with a message saying what to install; under WEBHAL_EXPECT_ALL=1 (set by
.ci/run) or `--expect-all` it fails instead, so CI never skips silently.

Every WGSL module a test produces is also created on dawn.node (Tint), beside the wgpu-py (naga)
runs, so that code only one implementation accepts is caught; every SPIR-V module passes
spirv-val for its Vulkan version, and every Vulkan run has the Khronos validation layer on
(Debian's vulkan-validationlayers) and must leave it silent.
"""

import os

import pytest

pytest_plugins = ["pytester"]


def pytest_configure(config):
    # Before any test makes the process's Vulkan device; a run may name other layers itself.
    if not os.environ.get("HL_VK_LAYERS") and not os.environ.get("VK_INSTANCE_LAYERS"):
        os.environ["HL_VK_LAYERS"] = "VK_LAYER_KHRONOS_validation"
    # One build cache for every test (and the `webhal` commands they start): an npm package's
    # variant is keyed by a digest of webhal's sources, the lowered code, the link glue and
    # emcc's version (webhal.glue.npm_package._variant_key), so the same generator built by
    # several test files is linked once (emcc takes ~3 s a variant), and again only when
    # something it depends on changed. It lives in pytest's cache folder (.pytest_cache: kept
    # between local runs, empty on CI's clean clone; --cache-clear empties it), not the user's
    # ~/.cache. Tests of the cache itself name their own folder.
    cache = getattr(config, "cache", None)
    if not os.environ.get("WEBHAL_CACHE_DIR") and cache is not None:
        os.environ["WEBHAL_CACHE_DIR"] = str(cache.mkdir("webhal"))


@pytest.fixture(autouse=True)
def _vulkan_validation_layer_silent(vulkan_validation_silent):
    pass


@pytest.fixture(autouse=True)
def _every_wgsl_module_on_dawn(wgsl_checked_on_dawn):
    pass


@pytest.fixture(autouse=True)
def _every_spirv_module_validated(spirv_validated):
    pass


# `make fast` (-m "not slow and not browser") is to take a few minutes on a 2-core machine:
# tests measured slow are listed in slow_tests.txt, and the matrices of tests/correctness and
# tests/gpu run one compiled case per file there (the first; reference cases all, each 10-20 ms,
# against 0.2-0.5 s for a compiled one). `make test` and CI run every case.
_SLOW_LIST = os.path.join(os.path.dirname(__file__), "slow_tests.txt")
_MATRICES = ("tests/correctness/", "tests/gpu/")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under `--dist loadscope` (`make test`, `make fast`) a test file goes to one worker, so its
    module fixtures are made once, except in the matrices of tests/correctness and tests/gpu,
    whose cases share nothing costly and are spread one by one: tests/gpu/test_gpu_schedules.py
    alone has over 600 compiled cases."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class MatricesSpread(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.startswith(_MATRICES) else super()._split_scope(nodeid)

    return MatricesSpread(config, log)


def _measured_slow() -> set[str]:
    with open(_SLOW_LIST, encoding="utf-8") as f:
        return {line.split(None, 1)[1].strip() for line in f
                if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(config, items):
    slow, kept = _measured_slow(), set()
    for item in items:
        if item.get_closest_marker("slow") or item.get_closest_marker("browser"):
            continue
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        target = params.get("target", params.get("compiled_target"))
        if not item.nodeid.startswith(_MATRICES) or target in (None, "reference"):
            continue
        file = item.nodeid.split("::")[0]
        if file in kept:
            item.add_marker(pytest.mark.slow)
        kept.add(file)
