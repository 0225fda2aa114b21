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


@pytest.fixture(autouse=True)
def _vulkan_validation_layer_silent(vulkan_validation_silent):
    pass


@pytest.fixture(autouse=True)
def _every_wgsl_module_on_dawn(wgsl_checked_on_dawn):
    pass


@pytest.fixture(autouse=True)
def _every_spirv_module_validated(spirv_validated):
    pass
