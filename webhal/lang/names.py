"""Unique names for things the user leaves unnamed (v0, f0, r0, ...), as Halide gives them."""

from __future__ import annotations

import itertools
import re
from collections import defaultdict

from webhal.errors import CompileError, user_location

_counters: defaultdict[str, itertools.count] = defaultdict(itertools.count)


def unique_name(prefix: str) -> str:
    return f"{prefix}{next(_counters[prefix])}"


_VALID = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def check_name(name: str, what: str) -> str:
    if not _VALID.match(name):
        raise CompileError(f"{what} name {name!r} is not valid: use letters, digits and _ "
                           "(starting with a letter or _)", user_location())
    return name
