"""pyproject.toml lists every package by hand (three are repository folders mapped into webhal),
so these checks keep the list, the mapping and the package data in step with the tree."""

import fnmatch
import tomllib
from pathlib import Path

import pytest

from webhal.glue import package_data

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
IGNORED = {"__pycache__"}


def _package_dirs() -> dict[str, Path]:
    """Every package the tree has (each folder under a package root), by name."""
    roots = {"webhal": ROOT / "webhal"}
    roots |= {name: ROOT / folder for name, folder in SETUPTOOLS["package-dir"].items()}
    found = {}
    for name, root in roots.items():
        found[name] = root
        for path in root.rglob("*"):
            parts = path.relative_to(root).parts
            if path.is_dir() and not IGNORED & set(parts):
                found[".".join((name, *parts))] = path
    return found


def test_every_folder_is_a_listed_package():
    listed, tree = set(SETUPTOOLS["packages"]), set(_package_dirs())
    assert tree - listed == set(), ("folders missing from [tool.setuptools] packages in "
                                    "pyproject.toml (the wheel would leave them out)")
    assert listed - tree == set(), "packages in pyproject.toml with no folder"


def test_every_file_is_a_module_or_package_data():
    globs = SETUPTOOLS["package-data"]
    left_out = []
    for name, path in _package_dirs().items():
        for file in path.iterdir():
            if file.is_file() and file.suffix != ".py" and not any(
                    fnmatch.fnmatch(file.name, glob) for glob in globs.get(name, ())):
                left_out.append(str(file.relative_to(ROOT)))
    assert left_out == [], "add these to [tool.setuptools.package-data] in pyproject.toml"


def test_mapping_matches_the_locator():
    mapping = {package: folder for folder, package in package_data.PACKAGES.items()}
    assert SETUPTOOLS["package-dir"] == mapping


@pytest.mark.parametrize("name, file", [("templates", "run_pipeline.html.j2"),
                                        ("demos", "blur/blur.py"),
                                        ("demos", "images/camera.png")])
def test_shipped_folders_are_found(name, file):
    assert (package_data.folder(name) / file).is_file()
