"""Setting a GeneratorParam the generator does not declare."""

import webhal as hl

from ._util import expect_error

x, y = hl.Var("x"), hl.Var("y")


@hl.generator(name="errors_brighten")
class Brighten:
    gain = hl.GeneratorParam(1.5)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        g.output[x, y] = hl.u8(x)


def test_misspelt_param():
    with expect_error(hl.CompileError, "generator errors_brighten", "no GeneratorParam gian",
                      "it has gain"):
        Brighten(gian=2.0)


def test_create_generator_by_name():
    with expect_error(hl.CompileError, "generator errors_brighten", "no GeneratorParam level"):
        hl.create_generator("errors_brighten", level=3)
