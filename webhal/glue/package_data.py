"""The folders webhal ships beside its code: templates/ (the generated glue), demos/ (the demo
pipelines and images) and runtime_js/ (the JavaScript runtime).

They are top-level folders of the repository, installed as the packages webhal.templates,
webhal.demos and webhal.runtime_js (the package-dir mapping in pyproject.toml), and read through
importlib.resources, so an installed webhal needs no checkout.
"""

from __future__ import annotations

import importlib.resources
from importlib.resources.abc import Traversable
from pathlib import Path

from webhal.errors import ToolchainError

# Repository folder -> the package it is installed as.
PACKAGES = {
    "templates": "webhal.templates",
    "demos": "webhal.demos",
    "runtime_js": "webhal.runtime_js",
}

_CHECKOUT = Path(__file__).resolve().parents[2]


def folder(name: str) -> Traversable:
    """One shipped folder ("templates", "demos" or "runtime_js"), to read files from with
    `folder(name) / "file"`. In an installed wheel it is the package's data; in a checkout, or an
    editable install, the repository's folder. ToolchainError when neither is there."""
    package = PACKAGES[name]
    try:
        return importlib.resources.files(package)
    except ModuleNotFoundError:
        # setuptools' editable installs cannot import a mapped folder without __init__.py as a
        # subpackage of a regular package, and a plain checkout has no mapping at all.
        path = _CHECKOUT / name
        if path.is_dir():
            return path
    raise ToolchainError(f"webhal's {name}/ folder is missing: no package {package}, and no "
                         f"{path} beside the sources",
                         hint="reinstall webhal, or run it from a complete checkout")
