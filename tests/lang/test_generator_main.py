"""hl.main(): a generator script run as Halide's generator command line writes the files its
-e list names, as Halide 21's does."""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import {module} as hl
    x, y = hl.Var("x"), hl.Var("y")

    @hl.generator(name="brighten")
    class Brighten:
        gain = hl.GeneratorParam(2)
        input = hl.InputBuffer(hl.UInt(8), 2)
        offset = hl.InputScalar(hl.Int(32))
        output = hl.OutputBuffer(hl.UInt(8), 2)

        def generate(g):
            g.output[x, y] = hl.u8(g.input[x, y] * g.gain + g.offset)

    if __name__ == "__main__":
        hl.main()
""")


def _run(tmp_path, module: str, *argv: str) -> subprocess.CompletedProcess:
    script = tmp_path / f"gen_{module}.py"
    script.write_text(SCRIPT.format(module=module))
    return subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)


def test_emits_what_is_asked(tmp_path):
    done = _run(tmp_path, "webhal", "-g", "brighten", "-o", "out", "-f", "bright", "-n", "base",
                "-e", "o,h,static_library,stmt,stmt_html", "target=x86-64-linux", "gain=3")
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "out")) == \
        ["base.a", "base.h", "base.o", "base.stmt", "base.stmt.html"]
    header = (tmp_path / "out" / "base.h").read_text()
    assert "int bright(" in header
    assert "func bright(input, offset, output)" in (tmp_path / "out" / "base.stmt").read_text()
    assert "(uint8)3" in (tmp_path / "out" / "base.stmt").read_text()  # gain=3


def test_defaults_and_mistakes(tmp_path):
    done = _run(tmp_path, "webhal", "-g", "brighten", "-o", "out", "target=x86-64-linux")
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "out")) == ["brighten.a", "brighten.h"]
    done = _run(tmp_path, "webhal", "-g", "nosuch", "-o", "out", "target=host")
    assert done.returncode != 0 and "no generator nosuch" in done.stderr and \
        "brighten" in done.stderr
    done = _run(tmp_path, "webhal", "-g", "brighten", "-o", "out")
    assert done.returncode != 0 and "target=" in done.stderr


@pytest.mark.halide
def test_same_files_as_halide(tmp_path):
    pytest.importorskip("halide")
    argv = ["-g", "brighten", "-e", "o,h,static_library,stmt,stmt_html,llvm_assembly",
            "target=host", "gain=3"]
    for module in ("webhal", "halide"):
        (tmp_path / f"out_{module}").mkdir()  # Halide writes into existing directories only
        done = _run(tmp_path, module, "-o", f"out_{module}", *argv)
        assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "out_webhal")) == \
        sorted(os.listdir(tmp_path / "out_halide"))
