"""Install hints that fit how webhal was installed.

In a checkout of webhal's repository (an editable install, or the sources on sys.path) `make
setup` installs everything at once. Installed from a wheel (pip), there is no Makefile: each
missing piece names the command that installs it (pip, npm, apt-get), and never `make`.
"""

from __future__ import annotations

import functools
from pathlib import Path

_SOURCES = Path(__file__).resolve().parents[2]  # the repository, when webhal runs from one


@functools.cache
def checkout() -> Path | None:
    """The repository webhal runs from (it has the Makefile whose `setup` installs every
    tool), or None when webhal was installed from a wheel."""
    makefile = _SOURCES / "Makefile"
    try:
        ours = (_SOURCES / "pyproject.toml").is_file() and "\nsetup:" in makefile.read_text()
    except OSError:
        return None
    return _SOURCES if ours else None


def fix(installed: str, repository: str = "", *, either: str = "",
        root: Path | None | bool = True) -> str:
    """The hint for a missing piece: in a checkout, `make setup` and `repository`, the command
    it runs for this piece; else `installed`, the command that works for a pip user; then
    `either`, a way that works for both (an environment variable naming a file), after ", or".
    `root` is the checkout (default: the one webhal runs from; None: a wheel), for tests of
    either form."""
    root = checkout() if root is True else root
    if root is None:
        hint = installed
    else:
        where = "" if Path.cwd() == root else f" in {root}"
        hint = f"run `make setup`{where}" + (f" (it runs {repository})" if repository else "")
    return f"{hint}, or {either}" if either else hint


def pip_install(distribution: str) -> str:
    """The hint for a missing Python package webhal depends on."""
    return fix(f"pip install {distribution} (webhal depends on it)",
               "pip install -e '.[test]' into .venv")
