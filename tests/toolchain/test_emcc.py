"""Running Emscripten for real: a compile error reads well, and a C program builds and runs."""

import os

import pytest

from webhal.errors import ToolchainError
from webhal.runners.node import run_node
from webhal.toolchain import emar, emcc, run_tool, tool_env
from webhal.toolchain.process import DEBIAN_NODE_MODULES


def test_failing_emcc_shows_command_and_output(emscripten, tmp_path):
    source = tmp_path / "broken.c"
    source.write_text("int main(void) { return missing_symbol_here; }\n")
    with pytest.raises(ToolchainError) as info:
        emcc(["-c", source, "-o", tmp_path / "broken.o"])
    text = str(info.value)
    assert "emcc failed (exit status" in text
    assert "command: " in text and str(source) in text
    assert "missing_symbol_here" in text  # from the compiler's output tail
    assert info.value.command[-1].endswith("broken.o")


def test_compile_archive_link_and_run(emscripten, node, tmp_path):
    (tmp_path / "add.c").write_text("int add(int a, int b) { return a + b; }\n")
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\nint add(int, int);\n'
        'int main(void) { printf("sum=%d\\n", add(40, 2)); return 0; }\n')
    emcc(["-O1", "-c", "add.c", "-o", "add.o"], cwd=tmp_path)
    emcc(["-O1", "-c", "main.c", "-o", "main.o"], cwd=tmp_path)
    emar(["rcs", "libadd.a", "add.o"], cwd=tmp_path)
    emcc(["-O1", "main.o", "libadd.a", "-o", "main.js"], cwd=tmp_path)
    assert (tmp_path / "main.wasm").is_file()
    result = run_node(tmp_path / "main.js", no_experimental_fetch=True, cwd=tmp_path)
    assert result.stdout.strip() == "sum=42"


def test_run_tool_reports_a_missing_program():
    with pytest.raises(ToolchainError, match="cannot start") as info:
        run_tool(["/nonexistent/webhal-tool", "--flag"], hint="install it")
    assert "/nonexistent/webhal-tool --flag" in str(info.value)
    assert "to fix: install it" in str(info.value)


def test_run_tool_stops_a_hung_program():
    with pytest.raises(ToolchainError, match="still running after"):
        run_tool(["sleep", "5"], timeout_s=0.2)


def test_tool_env_adds_debians_node_modules(monkeypatch):
    monkeypatch.setenv("NODE_PATH", "/somewhere/else")
    env = tool_env({"EXTRA": "1"})
    assert env["EXTRA"] == "1"
    parts = env["NODE_PATH"].split(os.pathsep)
    assert parts[0] == "/somewhere/else"
    assert (DEBIAN_NODE_MODULES in parts) == os.path.isdir(DEBIAN_NODE_MODULES)
