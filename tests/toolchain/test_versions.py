"""Version parsing and the Emscripten capability table."""

import pytest

from webhal.toolchain import capabilities_for, parse_emcc_version, parse_version
from webhal.toolchain.capabilities import EMSCRIPTEN_CAPABILITIES, NEEDS_NETWORK

BANNER = "emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld)"

# Debian 12's emcc, verbatim.
DEBIAN_3_1_6 = f"""{BANNER} 3.1.6 ()
Copyright (C) 2014 the Emscripten authors (see AUTHORS.txt)
This is free and open source software under the MIT license.
There is NO warranty; not even for MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.
"""


@pytest.mark.parametrize(("text", "version"), [
    (DEBIAN_3_1_6, (3, 1, 6)),
    (f"{BANNER} 4.0.12 (6f625bd62ee64f4f8cd11476774741b961e4a2d5)\n", (4, 0, 12)),
    (f"{BANNER} 3.1.59 (0e4c5994eb5b8defd38367a416d0703fd506ad81)\n", (3, 1, 59)),
    (f"{BANNER} 4.0.19-git (dev)\n", (4, 0, 19)),
    (f"shared:INFO: (Emscripten: Running sanity checks)\n{BANNER} 3.1.6 ()\n", (3, 1, 6)),
])
def test_parse_emcc_version(text, version):
    assert parse_emcc_version(text) == version


def test_parse_emcc_version_rejects_text_without_a_version():
    with pytest.raises(ValueError, match="no version"):
        parse_emcc_version("emcc: command not found\n")


@pytest.mark.parametrize(("text", "version"), [
    ("v20.20.2\n", (20, 20, 2)),
    ("Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)", (156, 0, 8078, 114)),
    ("Debian LLD 14.0.6 (compatible with GNU linkers)", (14, 0, 6)),
    ("1.65", (1, 65)),
    ("no digits here", None),
])
def test_parse_version(text, version):
    assert parse_version(text) == version


@pytest.mark.parametrize(("version", "present", "absent"), [
    ((3, 1, 6), {"asyncify", "use_webgpu", "pthread_worker_js"}, {"jspi", "emdawnwebgpu"}),
    ((3, 1, 57), {"pthread_worker_js"}, {"jspi"}),
    ((3, 1, 58), {"use_webgpu"}, {"pthread_worker_js", "jspi"}),
    ((3, 1, 59), {"jspi", "use_webgpu"}, {"emdawnwebgpu"}),
    ((4, 0, 10), {"jspi", "use_webgpu", "emdawnwebgpu"}, {"pthread_worker_js"}),
    ((4, 0, 17), {"use_webgpu"}, set()),
    ((4, 0, 18), {"jspi", "emdawnwebgpu", "asyncify"}, {"use_webgpu"}),
    ((5, 0), {"jspi"}, {"use_webgpu"}),
])
def test_capabilities_follow_the_version(version, present, absent):
    caps = capabilities_for(version)
    assert present <= caps.names
    assert not absent & caps.names
    assert all(name in caps for name in present)


def test_capability_flags_and_notes():
    caps = capabilities_for((3, 1, 6))
    assert caps.flag("use_webgpu") == "-sUSE_WEBGPU=1"
    assert caps.flag("asyncify") == "-sASYNCIFY"
    with pytest.raises(KeyError, match="jspi"):
        caps.flag("jspi")
    assert any(".worker.js" in note for note in caps.notes())


def test_network_only_capabilities_say_so():
    by_name = {c.name: c for c in EMSCRIPTEN_CAPABILITIES}
    assert NEEDS_NETWORK <= by_name.keys()
    for name in NEEDS_NETWORK:
        assert "network" in by_name[name].note
