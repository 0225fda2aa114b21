"""hl.print and hl.print_when print the lines Halide prints, on every target, and return their
first value."""

import numpy as np

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")

# What Halide 21 prints for _printing_pipeline() realized over 2x2 (checked with PyPI halide).
EXPECTED = """\
0 hello 2.500000 0.000000 0 0.000000e+00
1 hello 2.500000 0.333333 0 1.100000e+00
1 hello 2.500000 0.000000 1 0.000000e+00
2 hello 2.500000 0.333333 1 1.100000e+00
0 is y
1 is y
"""


def _printing_pipeline():
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = hl.print(x + y, "hello", 2.5, hl.f32(x) / 3, hl.u8(y), hl.f64(x) * hl.f64(1.1))
    g[x, y] = f[x, y] + hl.print_when(x == 1, y, "is y")
    f.compute_root()
    return g


def test_print_and_print_when(target, capsys):
    out = _printing_pipeline().realize([2, 2], hl.Target(target))
    assert capsys.readouterr().out == EXPECTED
    np.testing.assert_array_equal(np.asarray(out), [[0, 1], [2, 3]])  # (y, x)


def test_print_in_a_vectorized_parallel_loop(target, capsys):
    f = hl.Func("f")
    f[x, y] = hl.print_when(x % 5 == 0, x * 10 + y, "bool", x > y, hl.i8(-x))
    f.vectorize(x, 4).parallel(y)
    out = f.realize([12, 3], hl.Target(target))
    lines = sorted(capsys.readouterr().out.splitlines())
    expected = sorted(f"{xx * 10 + yy} bool {'true' if xx > yy else 'false'} {-xx}"
                      for yy in range(3) for xx in (0, 5, 10))
    assert lines == expected
    np.testing.assert_array_equal(np.asarray(out).T,
                                  np.arange(12)[:, None] * 10 + np.arange(3)[None, :])
