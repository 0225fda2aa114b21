"""Errors webhal raises. Every one derives from `HalideError`, as in Halide's Python bindings.
Where those bindings raise a Python built-in instead (IndexError for a Buffer coordinate out of
range, KeyError for an RDom dimension that does not exist, TypeError and ValueError for arguments
of the wrong kind), webhal's error derives from that built-in too, so either `except` catches it.

A message names the culprit (the Func, Var, buffer or tool by name) and says what to do; errors
caused by user code carry the user's file and line, found by walking out of webhal's own frames.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
from dataclasses import dataclass

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class SourceLocation:
    """Where in the user's code something was written."""

    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"

    def excerpt(self) -> str:
        line = linecache.getline(self.filename, self.lineno).rstrip()
        return f"  {self}\n    {line.strip()}" if line else f"  {self}"


def user_location() -> SourceLocation | None:
    """The innermost frame of the call stack that is not webhal's own code."""
    frame = sys._getframe(1)
    while frame is not None:
        if not _is_webhal_file(frame.f_code.co_filename):
            return SourceLocation(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


@functools.lru_cache(maxsize=1024)
def _is_webhal_file(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


class HalideError(Exception):
    """Base class of every error webhal raises (Halide's Python bindings use the same name)."""

    def __init__(self, message: str, where: SourceLocation | None = None):
        self.message = message
        self.where = where
        text = message if where is None else f"{message}\n{where.excerpt()}"
        super().__init__(text)

    def __str__(self) -> str:
        # "Error: " first, as Halide's messages read. KeyError would print the repr of the
        # text (quotes, escaped newlines); every error here prints its text as it is.
        return f"Error: {self.args[0]}" if self.args else "Error"


class CompileError(HalideError):
    """A pipeline's definition is wrong: bad arity, types, use before definition."""


class ScheduleError(CompileError):
    """A schedule directive cannot apply: unknown Var, bad split, GPU rules broken."""


class ArgumentError(HalideError, TypeError):
    """A function of webhal's API was called with arguments of the wrong kind (a TypeError in
    Halide's bindings)."""


class ArgumentValueError(HalideError, ValueError):
    """An argument has the right kind but a value webhal cannot use (a ValueError in Halide's
    bindings)."""


class TruthValueError(CompileError, ValueError):
    """Python's `if`, `and`, `or`, `not` on an Expr, which has no truth value until run (a
    ValueError in Halide's bindings)."""


class RDomDimensionError(CompileError, KeyError):
    """An RDom indexed with a dimension it does not have, `r[-1]` included (a KeyError in
    Halide's bindings)."""


class BufferError(HalideError):
    """A buffer does not fit the pipeline: wrong type, dimensions, or too small for what is read."""


class BufferIndexError(BufferError, IndexError):
    """A Buffer read or written at a coordinate outside it. An IndexError, as in Halide's
    bindings, so that iterating over a one-dimensional Buffer stops at its end."""


class BufferDimensionsError(BufferError, ValueError):
    """A Buffer indexed with the wrong number of coordinates (a ValueError in Halide's bindings)."""


class TargetError(HalideError):
    """A target string names an unknown feature or one that does not fit the architecture."""

    def __init__(self, message: str, where: SourceLocation | None = None):
        # Targets are parsed deep inside webhal; the user's line is where the string was given.
        super().__init__(message, where if where is not None else user_location())


class TargetArgumentError(TargetError, TypeError):
    """Target(os, arch, bits, features) given something that is no feature: a TypeError too,
    as Halide's bindings raise ("incompatible constructor arguments")."""


class ToolchainError(HalideError):
    """An external tool (emcc, wasm-ld, node, chromium) is missing or failed."""

    def __init__(self, message: str, command: list[str] | None = None, output: str = "",
                 hint: str = ""):
        parts = [message]
        if command:
            parts.append("command: " + " ".join(command))
        if output:
            tail = "\n".join(output.rstrip().splitlines()[-25:])
            parts.append("output (last lines):\n" + tail)
        if hint:
            parts.append("to fix: " + hint)
        self.command = command
        self.output = output
        self.hint = hint
        super().__init__("\n".join(parts))


class BrowserError(HalideError):
    """A page failed in the browser: it threw, the browser crashed, or it ran past its time.
    The message is the browser's own; `console` holds the page's console lines until then."""

    def __init__(self, message: str, console: list[str] | tuple[str, ...] = (),
                 hint: str = ""):
        self.console = list(console)
        self.hint = hint
        parts = [message]
        if self.console:
            parts.append("console (last lines):\n" + "\n".join(self.console[-25:]))
        if hint:
            parts.append("to fix: " + hint)
        super().__init__("\n".join(parts))
