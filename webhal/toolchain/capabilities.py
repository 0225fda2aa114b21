"""What an Emscripten version can do, as data: a table of flags and the versions that have them.

Facts come from Emscripten's ChangeLog; webhal picks link flags from this table (through
`emcc_flags.emcc_flags`), never by trying a flag and seeing whether it fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webhal.toolchain.tool import Version, format_version


@dataclass(frozen=True)
class Capability:
    """A feature present from `since` (inclusive) until `until` (exclusive); None is unbounded."""

    name: str
    flag: str
    since: Version | None = None
    until: Version | None = None
    note: str = ""

    def available_in(self, version: Version) -> bool:
        if self.since is not None and version < self.since:
            return False
        return self.until is None or version < self.until


EMSCRIPTEN_CAPABILITIES: tuple[Capability, ...] = (
    Capability("simd128", "-msimd128",
               note="128-bit SIMD in the C that emcc compiles (targets with wasm_simd128)"),
    Capability("mvp", "-mcpu=mvp",
               note="C compiled for WebAssembly 1.0 only (targets with wasm_mvponly)"),
    Capability("pthreads", "-pthread",
               note="wasm threads on Web Workers (targets with wasm_threads); pages need "
                    "COOP/COEP headers for SharedArrayBuffer"),
    Capability("asyncify", "-sASYNCIFY",
               note="suspends wasm for async JS calls (WebGPU's mapAsync, requestAdapter)"),
    Capability("use_webgpu", "-sUSE_WEBGPU=1", until=(4, 0, 18),
               note="Emscripten's own webgpu.h bindings; deprecated in 4.0.10, removed in 4.0.18"),
    Capability("jspi", "-sJSPI", since=(3, 1, 59),
               note="JavaScript Promise Integration, a lighter alternative to ASYNCIFY"),
    Capability("emdawnwebgpu", "--use-port=emdawnwebgpu", since=(4, 0, 10),
               note="fetched from the network at build time: not usable offline"),
    Capability("pthread_worker_js", "-pthread", until=(3, 1, 58),
               note="pthreads builds emit a separate .worker.js next to the .js"),
)

# Capabilities that work only with network access during the build.
NEEDS_NETWORK = frozenset({"emdawnwebgpu"})


@dataclass(frozen=True)
class EmscriptenCapabilities:
    """The capabilities of one Emscripten version. `"jspi" in caps` asks for one by name."""

    version: Version
    names: frozenset[str]

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def flag(self, name: str) -> str:
        """The command-line flag of a capability this version has; KeyError otherwise."""
        if name not in self.names:
            raise KeyError(f"Emscripten {format_version(self.version)} has no {name!r}")
        return _BY_NAME[name].flag

    def notes(self) -> list[str]:
        """One line per capability present, saying what it is for and any caveat."""
        return [f"{c.flag}: {c.note}" for c in EMSCRIPTEN_CAPABILITIES if c.name in self.names]


_BY_NAME = {c.name: c for c in EMSCRIPTEN_CAPABILITIES}


def capabilities_for(version: Version) -> EmscriptenCapabilities:
    """Derive what `version` of Emscripten supports from `EMSCRIPTEN_CAPABILITIES`."""
    version = tuple(version) + (0,) * (3 - len(version))
    names = frozenset(c.name for c in EMSCRIPTEN_CAPABILITIES if c.available_in(version))
    return EmscriptenCapabilities(version, names)


_EMCC_VERSION = re.compile(r"\)\s+(\d+)\.(\d+)\.(\d+)")
_ANY_VERSION = re.compile(r"\b(\d+)\.(\d+)\.(\d+)\b")


def parse_emcc_version(text: str) -> Version:
    """The version in `emcc --version` output, e.g. (3, 1, 6) from
    "emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld) 3.1.6 ()".

    Raises ValueError when the text holds no version.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    match = _EMCC_VERSION.search(first) or _ANY_VERSION.search(first) or _ANY_VERSION.search(text)
    if match is None:
        raise ValueError(f"no version in emcc's output: {first!r}")
    return tuple(int(part) for part in match.groups())
