"""compile_to with an OutputFileType webhal does not write names it and those it writes."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_python_extension_is_not_written(tmp_path):
    f = hl.Func("f")
    f[x] = x
    with expect_error(hl.CompileError, "OutputFileType.python_extension", "static_library"):
        f.compile_to({hl.OutputFileType.python_extension: str(tmp_path / "f.py.cpp")}, [], "f",
                     hl.Target("x86-64-linux"))
