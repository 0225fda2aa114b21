"""A generator whose generate() leaves an output undefined."""

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


def test_output_never_assigned():
    @hl.generator(name="errors_forgetful")
    class Forgetful:
        input = hl.InputBuffer(hl.UInt(8), 2)
        result = hl.OutputBuffer(hl.UInt(8), 2)

        def generate(g):  # <- error
            doubled = hl.Func("doubled")
            doubled[x, y] = g.input[x, y] * 2

    with expect_error(hl.CompileError, "generator errors_forgetful",
                      "did not define its output result", "self.result["):
        Forgetful().build_pipeline()
