"""One switch to forget every cached tool lookup (tests change the environment between cases)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)

_cached_functions: list = []


def cached(function: F) -> F:
    """`functools.cache`, registered so that `clear_caches()` reaches it.

    Only results are cached: a finder that raised is asked again next time.
    """
    wrapped = functools.cache(function)
    _cached_functions.append(wrapped)
    return wrapped  # type: ignore[return-value]


def clear_caches() -> None:
    """Forget every lookup; the next call looks at the environment and the disk again."""
    for function in _cached_functions:
        function.cache_clear()
