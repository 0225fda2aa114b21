"""Finders: the environment overrides win, a bad override is an error, misses carry a hint."""

import os
import stat
import sys

import pytest

from webhal.errors import ToolchainError
from webhal.toolchain import (
    clear_caches,
    find_chromium,
    find_dawn_node,
    find_emscripten,
    find_node,
    find_wasm_ld,
    find_wgpu_native,
    wgpu_native_env,
)
from webhal.toolchain.webgpu import _node_platform


@pytest.fixture(autouse=True)
def fresh_lookups():
    clear_caches()
    yield
    clear_caches()


def _script(path, body: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _fake_emscripten(directory, version: str, *, as_python: bool = False):
    banner = f"emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld) {version} ()"
    for tool in ("emcc", "em++", "emar"):
        if as_python:
            (directory / f"{tool}.py").parent.mkdir(parents=True, exist_ok=True)
            (directory / f"{tool}.py").write_text(f"print({banner!r})\n")
        else:
            _script(directory / tool, f"#!/bin/sh\necho '{banner}'\n")


def test_emsdk_comes_first(tmp_path, monkeypatch):
    _fake_emscripten(tmp_path / "upstream" / "emscripten", "4.0.12")
    monkeypatch.setenv("EMSDK", str(tmp_path))
    em = find_emscripten()
    assert em.found_by == "EMSDK"
    assert em.version == (4, 0, 12)
    assert em.emcc == (str(tmp_path / "upstream" / "emscripten" / "emcc"),)
    assert "jspi" in em.capabilities and "emdawnwebgpu" in em.capabilities


def test_emscripten_dir_with_python_scripts(tmp_path, monkeypatch):
    monkeypatch.delenv("EMSDK", raising=False)
    monkeypatch.setenv("EMSCRIPTEN", str(tmp_path))
    monkeypatch.setenv("EMSDK_PYTHON", sys.executable)
    _fake_emscripten(tmp_path, "3.1.59", as_python=True)
    em = find_emscripten()
    assert em.found_by == "EMSCRIPTEN"
    assert em.emcc == (sys.executable, str(tmp_path / "emcc.py"))
    assert em.version == (3, 1, 59)


def test_emsdk_without_emcc_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("EMSDK", str(tmp_path))
    with pytest.raises(ToolchainError, match="EMSDK=") as info:
        find_emscripten()
    assert "unset EMSDK" in info.value.hint


def test_dawn_node_override(tmp_path, monkeypatch):
    binding = tmp_path / "my-dawn.node"
    binding.write_bytes(b"\0")
    monkeypatch.setenv("HL_WEBGPU_NODE_BINDINGS", str(binding))
    assert find_dawn_node().path == str(binding)


def test_dawn_node_override_must_exist(tmp_path, monkeypatch):
    monkeypatch.setenv("HL_WEBGPU_NODE_BINDINGS", str(tmp_path / "missing.node"))
    with pytest.raises(ToolchainError, match="HL_WEBGPU_NODE_BINDINGS"):
        find_dawn_node()


def test_dawn_node_found_walking_up_from_cwd(tmp_path, monkeypatch):
    monkeypatch.delenv("HL_WEBGPU_NODE_BINDINGS", raising=False)
    package = tmp_path / "node_modules" / "webgpu"
    binding = package / "dist" / _node_platform() / "dawn.node"
    binding.parent.mkdir(parents=True)
    binding.write_bytes(b"\0")
    (package / "package.json").write_text('{"name": "webgpu", "version": "9.8.7"}')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    found = find_dawn_node()
    assert found.path == str(binding)
    assert found.version == (9, 8, 7)


def test_wgpu_native_override(tmp_path, monkeypatch):
    lib = tmp_path / "libwgpu_native.so"
    lib.write_bytes(b"\0")
    monkeypatch.setenv("HL_WEBGPU_NATIVE_LIB", str(lib))
    assert find_wgpu_native().path == str(lib)
    assert wgpu_native_env() == {"WGPU_LIB_PATH": str(lib)}


def test_wgpu_native_override_must_exist(tmp_path, monkeypatch):
    monkeypatch.setenv("HL_WEBGPU_NATIVE_LIB", str(tmp_path / "nope.so"))
    with pytest.raises(ToolchainError, match="HL_WEBGPU_NATIVE_LIB"):
        find_wgpu_native()


def test_wgpu_native_defaults_to_the_shipped_library(monkeypatch):
    monkeypatch.delenv("HL_WEBGPU_NATIVE_LIB", raising=False)
    try:
        lib = find_wgpu_native()
    except ToolchainError as exc:
        pytest.skip(f"wgpu is not installed: {exc.hint}")
    assert os.path.basename(lib.path).startswith(("libwgpu_native", "wgpu_native"))
    assert f"{os.sep}wgpu{os.sep}" in lib.path


def test_chrome_path_override(tmp_path, monkeypatch):
    fake = _script(tmp_path / "my-chrome", "#!/bin/sh\necho 'Chromium 1.2.3.4 built by hand'\n")
    monkeypatch.setenv("CHROME_PATH", str(fake))
    chromium = find_chromium()
    assert chromium.path == str(fake)
    assert chromium.version == (1, 2, 3, 4)


def test_chrome_path_must_be_executable(tmp_path, monkeypatch):
    monkeypatch.setenv("CHROME_PATH", str(tmp_path / "no-such-chrome"))
    with pytest.raises(ToolchainError, match="CHROME_PATH"):
        find_chromium()


def test_chromium_missing_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.delenv("CHROME_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolchainError, match="Chromium not found") as info:
        find_chromium()
    assert "apt-get install chromium" in info.value.hint
    assert "make setup" in info.value.hint


def test_newest_versioned_wasm_ld(tmp_path, monkeypatch):
    for major in (13, 15):
        _script(tmp_path / f"wasm-ld-{major}", f"#!/bin/sh\necho 'LLD {major}.0.1'\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    wasm_ld = find_wasm_ld()
    assert wasm_ld.path == str(tmp_path / "wasm-ld-15")
    assert wasm_ld.version == (15, 0, 1)


def test_lookups_are_cached_until_cleared(tmp_path, monkeypatch):
    _script(tmp_path / "node", "#!/bin/sh\necho v22.1.0\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    first = find_node()
    assert first.version == (22, 1, 0)
    _script(tmp_path / "node", "#!/bin/sh\necho v23.0.0\n")
    assert find_node() is first
    clear_caches()
    assert find_node().version == (23, 0, 0)


def test_old_node_is_refused(tmp_path, monkeypatch):
    _script(tmp_path / "node", "#!/bin/sh\necho v16.20.0\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolchainError, match="needs 20 or newer"):
        find_node()


def test_this_machines_emscripten(emscripten):
    assert emscripten.version >= (3, 1, 6)
    assert emscripten.capabilities.version == emscripten.version


def test_llvmlite_has_the_wasm_target(llvm_wasm):
    assert llvm_wasm.wasm_target
    assert llvm_wasm.llvm_version and llvm_wasm.llvm_version[0] >= 14
