"""pytest support for projects that test webhal pipelines: which runtimes this machine has, and
fixtures that hand them to tests.

`runtimes` finds each runtime (llvmlite's wasm target, Emscripten, Node, Chromium, a WebGPU
adapter...) and, when one is missing, skips the test with an install hint, or fails it where
WEBHAL_EXPECT_ALL=1 says nothing may be skipped (CI). `plugin` wraps those as pytest fixtures and
hooks; load it with `pytest_plugins = ["webhal.testing.plugin"]` in a top-level conftest.py.
"""
