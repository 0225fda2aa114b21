"""Generators and the autoscheduler: autoscheduler=NAME and autoscheduler.PARAM=value on
Halide's generator command line, the warning an unscheduled generator gets when compiled
ahead of time (not on realize), and `webhal build --autoschedule`."""

from __future__ import annotations

import re

import webhal as hl
from webhal.cli import build_parser
from webhal.lang.generator_main import main


@hl.generator(name="as_box")
class Box:
    input = hl.InputBuffer(hl.UInt(8), 2)
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        x, y = hl.Var("x"), hl.Var("y")
        bx = hl.Func("bx")
        bx[x, y] = hl.u16(g.input[x, y]) + g.input[x + 1, y] + g.input[x + 2, y]
        g.output[x, y] = hl.u8((bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 9)
        if g.using_autoscheduler():
            g.input.set_estimates([(0, 1026), (0, 770)])
            g.output.set_estimates([(0, 1024), (0, 768)])


def test_generator_command_line_autoschedules(tmp_path, capsys):
    main(["-g", "as_box", "-o", str(tmp_path), "-e", "stmt", "target=host",
          "autoscheduler=Mullapudi2016", "autoscheduler.parallelism=4"])
    stmt = (tmp_path / "as_box.stmt").read_text()
    assert "parallel" in stmt and re.search(r"\bx(16|32|64)\(", stmt)  # vector types
    assert "no schedule" not in capsys.readouterr().err


def test_unscheduled_generator_gets_a_warning_saying_how_to_autoschedule(tmp_path, capsys):
    main(["-g", "as_box", "-o", str(tmp_path), "-e", "stmt", "target=host"])
    err = capsys.readouterr().err
    assert "generator as_box has no schedule and no autoscheduler" in err
    assert "autoscheduler=Webhal" in err and "webhal build --autoschedule" in err


def test_realize_does_not_warn(capsys):
    import numpy as np
    g = Box()
    p = g.build_pipeline()
    g.input.set(hl.Buffer(np.zeros((12, 12), np.uint8)))
    p.realize([10, 10], hl.Target("host"))
    out = capsys.readouterr()
    assert "no schedule" not in out.err + out.out


def test_webhal_build_flag_names_the_autoscheduler():
    from webhal.build import _with_autoscheduler
    args = build_parser().parse_args(["build", "f.py", "-g", "g", "-o", "out",
                                      "--autoschedule"])
    assert _with_autoscheduler({}, args.autoschedule) == {"autoscheduler": "Webhal"}
    args = build_parser().parse_args(["build", "f.py", "-g", "g", "-o", "out",
                                      "--autoschedule", "Adams2019"])
    assert _with_autoscheduler({}, args.autoschedule) == {"autoscheduler": "Adams2019"}
    args = build_parser().parse_args(["build", "f.py", "-g", "g", "-o", "out"])
    assert _with_autoscheduler({}, args.autoschedule) == {}
