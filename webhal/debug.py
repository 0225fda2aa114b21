"""HL_DEBUG_CODEGEN, as Halide reads it: 0 is quiet, 1 prints pass timings and device code,
2 and more print the statement after every lowering pass."""

from __future__ import annotations

import os


def debug_level() -> int:
    try:
        return int(os.environ.get("HL_DEBUG_CODEGEN", "0"))
    except ValueError:
        return 0
