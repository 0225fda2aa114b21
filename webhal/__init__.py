"""webhal: Halide-style pipelines (algorithm + schedule) compiled for the web.

`import webhal as hl` gives the names of Halide's Python bindings.
"""

from webhal.errors import (
    BufferError,
    CompileError,
    HalideError,
    ScheduleError,
    TargetError,
    ToolchainError,
)

__all__ = [
    "BufferError",
    "CompileError",
    "HalideError",
    "ScheduleError",
    "TargetError",
    "ToolchainError",
]
