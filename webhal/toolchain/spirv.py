"""SPIRV-Tools (Debian's spirv-tools): `spirv-val` checks the modules the SPIR-V backend writes
against the Vulkan environment they are for, `spirv-dis` prints them (HL_DEBUG_CODEGEN=3,
golden tests). webhal writes binary SPIR-V itself; these tools only read it."""

from __future__ import annotations

import os
import shutil
import tempfile

from webhal.errors import ToolchainError
from webhal.toolchain.cache import cached
from webhal.toolchain.install import fix
from webhal.toolchain.process import run_tool
from webhal.toolchain.tool import Tool, parse_version

HINT = fix("apt-get install spirv-tools", "apt-get install spirv-tools")

# Vulkan version -> spirv-val's target environment
ENVIRONMENTS = {(1, 0): "vulkan1.0", (1, 1): "vulkan1.1", (1, 2): "vulkan1.2",
                (1, 3): "vulkan1.3"}


@cached
def find_spirv_tool(name: str) -> Tool:
    """`spirv-val`, `spirv-dis`, ... on PATH. Raises ToolchainError with an install hint."""
    path = shutil.which(name)
    if path is None:
        raise ToolchainError(f"{name} (SPIRV-Tools) not found", hint=HINT)
    result = run_tool([path, "--version"], timeout_s=30, what=f"{name} --version", hint=HINT)
    return Tool(name=name, path=path, version=parse_version(result.stdout))


def _with_file(binary: bytes, command) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.spv")
        with open(path, "wb") as f:
            f.write(binary)
        return command(path)


def validate(binary: bytes, vulkan: tuple[int, int] = (1, 0)) -> None:
    """Raise ToolchainError (with spirv-val's complaint) unless `binary` is valid SPIR-V for
    Vulkan `vulkan`."""
    tool = find_spirv_tool("spirv-val")
    _with_file(binary, lambda path: run_tool(
        [tool.path, "--target-env", ENVIRONMENTS[tuple(vulkan)], path], timeout_s=60,
        what="spirv-val (a webhal bug: please report it)", hint=HINT))


def disassemble(binary: bytes, raw_ids: bool = False) -> str:
    """spirv-dis's text of `binary` (friendly names unless raw_ids)."""
    tool = find_spirv_tool("spirv-dis")
    flags = ["--raw-id"] if raw_ids else []
    return _with_file(binary, lambda path: run_tool(
        [tool.path, *flags, "--no-color", path], timeout_s=60, what="spirv-dis",
        hint=HINT).stdout)
