"""Files of Halide's own repository, for the tests that run Halide's Python code (its apps,
generator tests and tutorials) under webhal with only the import changed.

They are read from $HALIDE_SOURCE, a Halide work tree or a bare clone (read with `git show`),
by default the mirror this project's machines keep. Where it is missing the test skips, naming
what to set; under WEBHAL_EXPECT_ALL=1 (CI) it fails instead.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SOURCE = os.environ.get("HALIDE_SOURCE", "/work/.mirror/halide+Halide/repo")


def require() -> None:
    """Skip (fail under WEBHAL_EXPECT_ALL) unless SOURCE exists."""
    if not os.path.exists(SOURCE):
        _missing(f"no Halide sources at {SOURCE}")


def read(path: str) -> str:
    """The text of `path` (relative to the repository's root) at SOURCE."""
    require()
    if os.path.isfile(os.path.join(SOURCE, path)):
        return Path(SOURCE, path).read_text()
    done = subprocess.run(["git", "-C", SOURCE, "show", f"HEAD:{path}"],
                          capture_output=True, text=True)
    if done.returncode:
        _missing(f"{path} is not in the Halide sources at {SOURCE} "
                 f"({done.stderr.strip()[:100]})")
    return done.stdout


def _missing(what: str) -> None:
    message = (f"{what}: set HALIDE_SOURCE to a Halide checkout "
               "(git clone https://github.com/halide/Halide)")
    if os.environ.get("WEBHAL_EXPECT_ALL", "") not in ("", "0"):
        pytest.fail(message)
    pytest.skip(message)
