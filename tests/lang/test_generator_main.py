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


TYPED_LATER = textwrap.dedent("""
    import webhal as hl
    x, y = hl.Var("x"), hl.Var("y")

    @hl.generator(name="scaled")
    class Scaled:
        input = hl.InputBuffer(hl.UInt(8), 2)
        output = hl.OutputBuffer(None, 2)  # its type comes from output.type=...

        def generate(g):
            g.output[x, y] = hl.cast(g.output.type(), g.input[x, y] * 2)

    if __name__ == "__main__":
        hl.main()
""")


def test_output_type_param_and_files_named_after_the_function(tmp_path):
    """As Halide's CMake rules run generators: -f names the function and, without -n, the
    files (its last namespace part); `output.type=` gives an Output declared without a type."""
    script = tmp_path / "typed_later.py"
    script.write_text(TYPED_LATER)

    def run(*argv):
        return subprocess.run([sys.executable, str(script), "-g", "scaled", "-o", "out",
                               "-e", "h,static_library", "target=host", *argv],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    done = run("-f", "ns::scaled_f32", "output.type=float32")
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "out")) == ["scaled_f32.a", "scaled_f32.h"]
    assert "int scaled_f32(" in (tmp_path / "out" / "scaled_f32.h").read_text()
    done = run()
    assert done.returncode != 0 and "output is declared without a type" in done.stderr and \
        "output.type=" in done.stderr
    done = run("output.type=uint99")
    assert done.returncode != 0 and "output.type=uint99: not a type name" in done.stderr


def test_python_extension_from_the_command_line(tmp_path):
    """lesson 16's CMake rule: -e static_library,c_header,python_extension, then the module."""
    import importlib.util
    import shutil
    import sysconfig

    import numpy as np
    done = _run(tmp_path, "webhal", "-g", "brighten", "-o", "out", "-f", "bright_ext", "-e",
                "static_library,c_header,python_extension", "target=host", "gain=3")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    assert sorted(os.listdir(out)) == ["bright_ext.a", "bright_ext.h", "bright_ext.py.cpp"]
    cxx = shutil.which("c++") or pytest.skip("no C++ compiler")
    so = out / ("bright_ext" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([cxx, "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}",
                    "bright_ext.py.cpp", "bright_ext.a", "-lpthread", "-o", str(so)],
                   check=True, cwd=out)
    spec = importlib.util.spec_from_file_location("bright_ext", so)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = np.arange(60, dtype=np.uint8).reshape(6, 10)
    result = np.zeros_like(data)
    module.bright_ext(data, 4, result)
    assert np.array_equal(result, (data * 3 + 4).astype(np.uint8))


def test_an_autoscheduler_without_estimates_is_a_named_error(tmp_path):
    """Halide's implicit autoscheduler GeneratorParams run webhal's autoscheduler (issue 29);
    a generator that gives no estimates gets Halide's error, naming the output and the fix;
    its options alone are taken."""
    done = _run(tmp_path, "webhal", "-g", "brighten", "-o", "out", "target=host",
                "autoscheduler=Mullapudi2016", "autoscheduler.parallelism=32")
    assert done.returncode != 0
    assert "has no estimate for dimension 0" in done.stderr
    done = _run(tmp_path, "webhal", "-g", "brighten", "-o", "out", "target=host",
                "autoscheduler.parallelism=32")
    assert done.returncode == 0, done.stderr


ALIASED = textwrap.dedent("""
    import webhal as hl
    x = hl.Var("x")

    @hl.alias(plus_seven={"offset": 7}, tuple_pair={"offset": 1})
    @hl.generator(name="plus")
    class Plus:
        offset = hl.GeneratorParam(0)
        input = hl.InputBuffer(hl.Int(32), 1)
        output = hl.OutputBuffer(None, 1)

        def generate(g):
            if len(g.output.types()) == 2:
                g.output[x] = (g.input[x] + g.offset, hl.f32(g.input[x]))
            else:
                g.output[x] = g.input[x] + g.offset

    if __name__ == "__main__":
        hl.main()
""")


def test_aliases_and_tuple_output_types_on_the_command_line(tmp_path):
    """`-g ALIAS` builds the variant with its GeneratorParams (function and files named after
    it); `output.type=int32,float32` declares a Tuple output; `webhal build` finds the
    aliases in the file too."""
    from webhal.build import load_generators
    script = tmp_path / "aliased.py"
    script.write_text(ALIASED)

    def run(*argv):
        return subprocess.run([sys.executable, str(script), "-o", "out", "-e", "h,stmt",
                               "target=host", *argv],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    done = run("-g", "plus_seven", "output.type=int32")
    assert done.returncode == 0, done.stderr
    assert "func plus_seven(input, output)" in (tmp_path / "out" / "plus_seven.stmt").read_text()
    assert "input.min.0)] + 7)" in (tmp_path / "out" / "plus_seven.stmt").read_text()
    done = run("-g", "tuple_pair", "output.type=int32,float32")
    assert done.returncode == 0, done.stderr
    header = (tmp_path / "out" / "tuple_pair.h").read_text()
    assert "_output_0_buffer" in header and "_output_1_buffer" in header
    assert {"plus", "plus_seven", "tuple_pair"} <= set(load_generators(str(script)))
