"""What a finder returns: a small, immutable record of one tool or runtime."""

from __future__ import annotations

import re
from dataclasses import dataclass

Version = tuple[int, ...]


def parse_version(text: str) -> Version | None:
    """The first dotted number in `text` ("v20.20.2" -> (20, 20, 2)), or None when there is none."""
    match = re.search(r"\d+(?:\.\d+)+", text)
    if match is None:
        return None
    return tuple(int(part) for part in match.group(0).split("."))


def format_version(version: Version | None) -> str:
    return "" if version is None else ".".join(str(part) for part in version)


@dataclass(frozen=True)
class Tool:
    """A tool or runtime that was found: where it is and which version it reports.

    `path` is a file (executable, shared library, ICD manifest) or a Python package directory.
    """

    name: str
    path: str
    version: Version | None = None

    @property
    def version_string(self) -> str:
        return format_version(self.version)
