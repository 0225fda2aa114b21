"""Func.trace_stores/trace_loads/trace_realizations print Halide's lines: the same text as
Halide 21 on compiled targets (the schedule's order); the reference prints the same stores and
realizations in its own order (every Func computed whole at first use)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")

# What Halide 21 prints for _traced() realized over 2x2 (checked with PyPI halide).
EXPECTED = """\
Begin pipeline g.0()
Tag f.0() tag = "func_type_and_dim: 1 0 32 1 2 0 2 0 2"
Tag g.0() tag = "func_type_and_dim: 1 0 32 1 2 0 2 0 2"
Begin realization g.0(0, 2, 0, 2)
Begin realization f.0(0, 2, 0, 2)
Produce f.0(0, 2, 0, 2)
0 hello 2.500000 0.000000 0 0.000000e+00
Store f.0(0, 0) = 0
1 hello 2.500000 0.333333 0 1.100000e+00
Store f.0(1, 0) = 1
1 hello 2.500000 0.000000 1 0.000000e+00
Store f.0(0, 1) = 1
2 hello 2.500000 0.333333 1 1.100000e+00
Store f.0(1, 1) = 2
End produce f.0(0, 2, 0, 2)
Consume f.0(0, 2, 0, 2)
Produce g.0(0, 2, 0, 2)
Load f.0(0, 0) = 0
Store g.0(0, 0) = 0
Load f.0(1, 0) = 1
0 is y
Store g.0(1, 0) = 1
Load f.0(0, 1) = 1
Store g.0(0, 1) = 2
Load f.0(1, 1) = 2
1 is y
Store g.0(1, 1) = 3
End produce g.0(0, 2, 0, 2)
End consume f.0(0, 2, 0, 2)
End realization f.0(0, 2, 0, 2)
End realization g.0(0, 2, 0, 2)
End pipeline g.0()
"""

PIPELINE = """
x, y = hl.Var("x"), hl.Var("y")
f, g, h = hl.Func("f"), hl.Func("g"), hl.Func("h")
f[x, y] = hl.f32(x + y) / 3
g[x, y] = hl.u8(f[x, y] + f[x + 1, y]) + hl.u8(hl.print_when(x == 1, y, "is y"))
f.compute_at(g, y)
f.trace_realizations().trace_loads()
g.trace_stores().trace_realizations()
h[x] = x
h[x] += 2
h.trace_stores().trace_realizations()
"""


def _traced():
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = hl.print(x + y, "hello", 2.5, hl.f32(x) / 3, hl.u8(y), hl.f64(x) * hl.f64(1.1))
    g[x, y] = f[x, y] + hl.print_when(x == 1, y, "is y")
    f.compute_root()
    f.trace_stores().trace_loads().trace_realizations()
    g.trace_stores().trace_realizations()
    return g


def test_trace_on_compiled_targets(compiled_target, capsys):
    out = _traced().realize([2, 2], hl.Target(compiled_target))
    assert capsys.readouterr().out == EXPECTED
    np.testing.assert_array_equal(np.asarray(out), [[0, 1], [2, 3]])


def test_reference_traces_the_same_stores_and_loads(capsys):
    _traced().realize([2, 2], hl.Target("reference"))
    lines = capsys.readouterr().out.splitlines()
    for kind in ("Store ", "Load ", "Begin realization", "Produce ", "End produce",
                 "End realization"):
        assert sorted(line for line in lines if line.startswith(kind)) == \
            sorted(line for line in EXPECTED.splitlines() if line.startswith(kind))
    assert lines[0] == "Begin pipeline g.0()" and lines[-1] == "End pipeline g.0()"


def test_trace_of_an_update_on_every_target(target, capsys):
    h = hl.Func("h")
    h[x] = x
    h[x] += 2
    h.trace_stores()
    h.realize([2], hl.Target(target))
    stores = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Store")]
    assert stores == ["Store h.0(0) = 0", "Store h.0(1) = 1", "Store h.0(0) = 2",
                      "Store h.0(1) = 3"]


def _run(module: str, target: str) -> str:
    code = f"import sys\nimport {module} as hl\n" + PIPELINE + \
        f"g.realize([3, 2]{', hl.Target(' + repr(target) + ')' if target else ''})\n" \
        f"h.realize([3]{', hl.Target(' + repr(target) + ')' if target else ''})\n"
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.halide
def test_trace_matches_halide(compiled_target):
    pytest.importorskip("halide")
    assert _run("webhal", compiled_target) == _run("halide", "")


def test_printed_coordinates_and_loads_once(compiled_target, capsys):
    """hl.print's value and a traced load's coordinates are computed once: each line once per
    point (Halide prints the same lines; its order within one expression differs)."""
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x * 2
    g[x] = hl.print(f[x], "read") + f[hl.print(x)]
    f.compute_root().trace_loads()
    out = g.realize([2], hl.Target(compiled_target))
    np.testing.assert_array_equal(np.asarray(out), [0, 4])
    assert sorted(capsys.readouterr().out.splitlines()) == sorted([
        "Begin pipeline g.0()", 'Tag f.0() tag = "func_type_and_dim: 1 0 32 1 1 0 2"',
        "0", "Load f.0(0) = 0", "Load f.0(0) = 0", "0 read",
        "1", "Load f.0(1) = 2", "Load f.0(1) = 2", "2 read", "End pipeline g.0()"])


# What Halide 21 prints for a vectorized Func that prints and traces its stores (PyPI halide).
VECTORIZED = """\
Begin pipeline k.0()
Tag k.0() tag = "func_type_and_dim: 1 0 32 1 2 0 8 0 1"
0 at 0 0.000000
2 at 0 1.000000
4 at 0 2.000000
6 at 0 3.000000
Store k.0(<0, 1, 2, 3>, <0, 0, 0, 0>) = <0, 2, 4, 6>
8 at 0 4.000000
10 at 0 5.000000
12 at 0 6.000000
14 at 0 7.000000
Store k.0(<4, 5, 6, 7>, <0, 0, 0, 0>) = <8, 10, 12, 14>
End pipeline k.0()
0 w
3 w
6 w
"""


def test_vectorized_prints_and_stores(compiled_target, capsys):
    """A vector store traces as one line of vectors; hl.print prints a line per lane."""
    k, m = hl.Func("k"), hl.Func("m")
    k[x, y] = hl.print(x * 2, "at", y, hl.f32(x))
    k.vectorize(x, 4).trace_stores()
    k.realize([8, 1], hl.Target(compiled_target))
    m[x] = hl.print_when(x % 3 == 0, x, "w")
    m.vectorize(x, 4)
    m.realize([8], hl.Target(compiled_target))
    assert capsys.readouterr().out == VECTORIZED
