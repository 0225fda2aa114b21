"""Shared test rules: the runtime fixtures come from webhal's pytest plugin.

A test that needs a runtime asks for it by fixture (webhal/testing/plugin.py). Locally a missing
runtime skips the test with a message saying what to install; under WEBHAL_EXPECT_ALL=1 (set by
.ci/run) or `--expect-all` it fails instead, so CI never skips silently.
"""

pytest_plugins = ["webhal.testing.plugin"]
