"""compile_to with an OutputFileType webhal does not write names it and those it writes."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def test_pytorch_wrapper_is_not_written(tmp_path):
    f = hl.Func("f")
    f[x] = x
    with expect_error(hl.CompileError, "OutputFileType.pytorch_wrapper", "static_library"):
        f.compile_to({hl.OutputFileType.pytorch_wrapper: str(tmp_path / "f.pytorch.h")}, [], "f",
                     hl.Target("x86-64-linux"))


def test_compile_to_c_names_what_to_use(tmp_path):
    f = hl.Func("f")
    f[x] = 100 * x
    with expect_error(hl.CompileError, "webhal has no C backend", "compile_to_static_library"):
        f.compile_to_c(str(tmp_path / "f.cpp"), [], "f")
