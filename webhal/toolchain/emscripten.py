"""Find Emscripten (emcc, em++, emar), learn its version, and run it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from webhal.errors import ToolchainError
from webhal.toolchain.cache import cached
from webhal.toolchain.capabilities import (
    EmscriptenCapabilities,
    capabilities_for,
    parse_emcc_version,
)
from webhal.toolchain.install import fix
from webhal.toolchain.process import DEFAULT_TIMEOUT_S, run_tool, tool_env
from webhal.toolchain.tool import Version, format_version

# Where Debian's `emscripten` package keeps the Python scripts behind /usr/bin/emcc.
DEBIAN_EMSCRIPTEN = "/usr/share/emscripten"

INSTALL_HINT = fix("apt-get install emscripten", "apt-get install emscripten",
                   either="set EMSDK to an activated emsdk checkout")


@dataclass(frozen=True)
class Emscripten:
    """One Emscripten installation. `emcc`, `empp` and `emar` are command prefixes: the
    executable alone, or a Python interpreter followed by the script."""

    root: str
    emcc: tuple[str, ...]
    empp: tuple[str, ...]
    emar: tuple[str, ...]
    version: Version
    found_by: str

    name = "emcc"

    @property
    def path(self) -> str:
        return self.emcc[-1]

    @property
    def version_string(self) -> str:
        return format_version(self.version)

    @property
    def capabilities(self) -> EmscriptenCapabilities:
        return capabilities_for(self.version)


def _commands_in(directory: str) -> dict[str, tuple[str, ...]] | None:
    """Command prefixes for emcc/em++/emar in an Emscripten directory, or None if it has none."""
    commands = {}
    for tool in ("emcc", "em++", "emar"):
        executable = os.path.join(directory, tool)
        script = executable + ".py"
        if os.path.isfile(executable) and os.access(executable, os.X_OK):
            commands[tool] = (executable,)
        elif os.path.isfile(script):
            python = os.environ.get("EMSDK_PYTHON") or shutil.which("python3") or sys.executable
            commands[tool] = (python, script)
        else:
            return None
    return commands


def _candidates() -> list[tuple[str, str]]:
    """(directory, how it was found) in the order they are tried."""
    found = []
    if os.environ.get("EMSDK"):
        found.append((os.path.join(os.environ["EMSDK"], "upstream", "emscripten"), "EMSDK"))
    if os.environ.get("EMSCRIPTEN"):
        found.append((os.environ["EMSCRIPTEN"], "EMSCRIPTEN"))
    on_path = shutil.which("emcc")
    if on_path:
        found.append((os.path.dirname(on_path), "PATH"))
    found.append((DEBIAN_EMSCRIPTEN, "Debian layout"))
    return found


@cached
def find_emscripten() -> Emscripten:
    """The Emscripten to use: $EMSDK, then $EMSCRIPTEN, then `emcc` on PATH, then Debian's
    /usr/share/emscripten. An environment variable that points at no Emscripten is an error,
    not a reason to look elsewhere. Raises ToolchainError with an install hint."""
    for directory, found_by in _candidates():
        commands = _commands_in(directory)
        if commands is None:
            if found_by in ("EMSDK", "EMSCRIPTEN"):
                raise ToolchainError(
                    f"{found_by}={os.environ[found_by]} holds no emcc (looked in {directory})",
                    hint=f"fix or unset {found_by}; otherwise: {INSTALL_HINT}")
            continue
        result = run_tool([*commands["emcc"], "--version"], env=tool_env(), timeout_s=60,
                          what="emcc --version", hint=INSTALL_HINT)
        try:
            version = parse_emcc_version(result.stdout)
        except ValueError as exc:
            raise ToolchainError(str(exc), command=[*commands["emcc"], "--version"],
                                 output=result.stdout + result.stderr, hint=INSTALL_HINT) from None
        root = os.path.dirname(os.path.realpath(commands["emcc"][-1]))
        return Emscripten(root=root, emcc=commands["emcc"], empp=commands["em++"],
                          emar=commands["emar"], version=version, found_by=found_by)
    raise ToolchainError("Emscripten (emcc) not found", hint=INSTALL_HINT)


def _run(which: str, args: Sequence[str], cwd, timeout_s: float,
         env: dict[str, str] | None) -> subprocess.CompletedProcess[str]:
    em = find_emscripten()
    prefix = {"emcc": em.emcc, "em++": em.empp, "emar": em.emar}[which]
    return run_tool([*prefix, *map(str, args)], env=tool_env(env), cwd=cwd, timeout_s=timeout_s,
                    what=which)


def emcc(args: Sequence[str | os.PathLike], *, cwd=None, timeout_s: float = DEFAULT_TIMEOUT_S,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `emcc args...` with NODE_PATH set for Debian's acorn; ToolchainError on failure
    (the message shows the command line and the last lines of its output)."""
    return _run("emcc", args, cwd, timeout_s, env)


def empp(args: Sequence[str | os.PathLike], *, cwd=None, timeout_s: float = DEFAULT_TIMEOUT_S,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `em++ args...`, as `emcc` does."""
    return _run("em++", args, cwd, timeout_s, env)


def emar(args: Sequence[str | os.PathLike], *, cwd=None, timeout_s: float = DEFAULT_TIMEOUT_S,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `emar args...` (e.g. ["rcs", "lib.a", "a.o"]), as `emcc` does."""
    return _run("emar", args, cwd, timeout_s, env)
