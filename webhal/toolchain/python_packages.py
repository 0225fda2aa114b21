"""Shared helpers for finders of Python packages webhal depends on."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os

from webhal.errors import ToolchainError
from webhal.toolchain.install import pip_install
from webhal.toolchain.tool import Tool, parse_version


def package_dir(module: str, distribution: str | None = None, hint: str = "") -> str:
    """The directory of an installed Python package, without importing it; ToolchainError with
    `hint` (default: how to install the distribution) when it is missing."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ToolchainError(f"Python package {distribution or module!r} is not installed",
                             hint=hint or pip_install(distribution or module))
    return os.path.abspath(list(spec.submodule_search_locations)[0])


def python_package(module: str, distribution: str | None = None,
                   hint: str = "") -> Tool:
    """A Tool for an installed Python package: its directory and distribution version."""
    path = package_dir(module, distribution, hint)
    try:
        version = parse_version(importlib.metadata.version(distribution or module))
    except importlib.metadata.PackageNotFoundError:
        version = None
    return Tool(name=distribution or module, path=path, version=version)
