"""PyPI halide, the test-only peer: imported by the tests that compare with it. Locally a
missing module skips the test module with what to install; under WEBHAL_EXPECT_ALL=1 (CI) it
fails, so no comparison is ever skipped silently there."""

from __future__ import annotations

import importlib
import os

import pytest


def require(*modules: str):
    """The imported modules (halide first), or a module-level skip naming what is missing."""
    try:
        return [importlib.import_module(m) for m in modules]
    except ImportError as exc:
        if os.environ.get("WEBHAL_EXPECT_ALL", "") not in ("", "0"):
            raise
        pytest.skip(f"{exc.name} is not installed (pip install -e '.[test]')",
                    allow_module_level=True)
