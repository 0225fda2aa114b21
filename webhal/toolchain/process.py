"""Running external tools with the environment they need, and turning failures into errors."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence

from webhal.errors import ToolchainError

# Debian's Emscripten needs `acorn` from node-acorn, which lives here and which Node does not
# search by default ("Cannot find module 'acorn'" otherwise).
DEBIAN_NODE_MODULES = "/usr/share/nodejs"

DEFAULT_TIMEOUT_S = 600.0


def tool_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of this process's environment fit for Emscripten and Node: NODE_PATH includes
    Debian's shared node modules when they exist; `extra` is applied last."""
    env = dict(os.environ)
    if os.path.isdir(DEBIAN_NODE_MODULES):
        parts = [p for p in env.get("NODE_PATH", "").split(os.pathsep) if p]
        if DEBIAN_NODE_MODULES not in parts:
            parts.append(DEBIAN_NODE_MODULES)
        env["NODE_PATH"] = os.pathsep.join(parts)
    if extra:
        env.update(extra)
    return env


def format_command(command: Sequence[str]) -> list[str]:
    """The command as a list of shell-quoted words, ready to paste into a terminal."""
    return [shlex.quote(str(word)) for word in command]


def run_tool(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    what: str | None = None,
    hint: str = "",
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `command`, capturing its output as text; return it when the exit status is 0.

    Raises ToolchainError (with the command line and the tail of stdout+stderr) when the tool
    cannot start, exits non-zero or outlives `timeout_s`. `env` defaults to `tool_env()`.
    """
    command = [str(word) for word in command]
    what = what or os.path.basename(command[0])
    try:
        result = subprocess.run(
            command,
            env=dict(env) if env is not None else tool_env(),
            cwd=cwd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            input=input_text,
        )
    except FileNotFoundError as exc:
        raise ToolchainError(f"{what}: cannot start it ({exc.strerror})",
                             command=format_command(command), hint=hint) from None
    except PermissionError as exc:
        raise ToolchainError(f"{what}: not executable ({exc.strerror})",
                             command=format_command(command), hint=hint) from None
    except subprocess.TimeoutExpired as exc:
        output = _text(exc.stdout) + _text(exc.stderr)
        raise ToolchainError(f"{what}: still running after {timeout_s:g} s, stopped",
                             command=format_command(command), output=output, hint=hint) from None
    if result.returncode != 0:
        raise ToolchainError(f"{what} failed (exit status {result.returncode})",
                             command=format_command(command),
                             output=(result.stdout or "") + (result.stderr or ""), hint=hint)
    return result


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode(errors="replace")


_runtime_dir: list[str] = []


def private_runtime_dir() -> str:
    """A private (0700) temporary directory for XDG_RUNTIME_DIR: Vulkan loaders and wgpu-native
    complain on stderr when it is unset or not private. Made once per process."""
    import tempfile

    if not _runtime_dir:
        _runtime_dir.append(tempfile.mkdtemp(prefix="webhal-xdg-"))
    return _runtime_dir[0]


def json_reply(result: subprocess.CompletedProcess[str], what: str):
    """The JSON value on the last non-empty stdout line of a probe; ToolchainError otherwise."""
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise ToolchainError(f"{what}: no JSON answer on stdout",
                             command=format_command(result.args),
                             output=result.stdout + result.stderr) from None
