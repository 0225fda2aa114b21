"""Tuple-valued Funcs (Halide lessons 13 and 14): several values per point, each element its
own buffer; element reads; updates whose elements read each other's old values; select of
Tuples; the inline argmax/argmin; Tuples computed inside other Funcs' loops and vectorized."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image

x, y, xi = hl.Var("x"), hl.Var("y"), hl.Var("xi")


def test_pure_tuple_output_is_one_buffer_per_element(target):
    f = hl.Func("pair")
    f[x, y] = (x + y, hl.f32(x) * 0.5 - hl.f32(y))
    got = check(f, [W, H], target, expected=[
        np.add.outer(np.arange(W), np.arange(H)).astype(np.int32),
        (np.arange(W)[:, None] * 0.5 - np.arange(H)[None, :]).astype(np.float32)])
    assert [g.dtype for g in got] == [np.int32, np.float32]
    result = f.realize([W, H], target)
    assert isinstance(result, tuple) and len(result) == 2  # as Halide's bindings
    assert f.types() == [hl.Int(32), hl.Float(32)] and f.outputs() == 2


def test_elements_read_by_a_consumer(target):
    f, g = hl.Func("polar"), hl.Func("use")
    f[x, y] = (hl.f32(x) - 10, hl.f32(y) * 2, hl.u8(x * y))
    g[x, y] = hl.i32(f[x, y][0] * f[x, y][1]) + hl.i32(f[x, y][2]) + hl.i32(f[x, y][-1])
    f.compute_at(g, y).vectorize(x, 4)
    g.vectorize(x, 8)
    check(g, [W, H], target)


def test_update_reads_the_old_values_of_the_other_elements(target):
    """(a, b) = (b, a): both read before either is written, as in Halide."""
    f = hl.Func("swap")
    f[x] = (x, x * 10)
    f[x] = (f[x][1], f[x][0])
    f[x] = (f[x][0] + f[x][1], f[x][0] - f[x][1])
    check(f, [W], target, expected=[11 * np.arange(W, dtype=np.int32),
                                    9 * np.arange(W, dtype=np.int32)])


def test_running_argmax_of_columns_with_select(target):
    image = hl.Buffer(ramp_image(np.int16, seed=3), "image")
    r = hl.RDom([(0, H)], "r")
    best = hl.Func("best")
    best[x] = (0, hl.i16(-32768))
    best[x] = hl.select(image[x, r] > best[x][1], (r.x, image[x, r]), (best[x][0], best[x][1]))
    best.compute_root().vectorize(x, 8)
    data = np.asarray(image)
    check(best, [W], target, expected=[np.argmax(data, axis=0).astype(np.int32),
                                       data.max(axis=0)])


def test_inline_argmax_and_argmin_as_halides_test():
    """The figures of Halide's own argmax test (correctness/argmax.cpp)."""
    g = hl.Func("g")
    g[x, y] = x * (100 - x) + y * (80 - y)
    g.compute_root()
    r = hl.RDom([(0, 100), (0, 100)])
    am, an = hl.Func("am"), hl.Func("an")
    am[()] = hl.argmax(g[r.x, r.y])
    an[()] = hl.argmin(g[r.x, r.y])
    for target in ("reference", "host"):
        assert [int(np.asarray(b)) for b in am.realize([], target)] == [50, 40, 4100]
        assert [int(np.asarray(b)) for b in an.realize([], target)] == [0, 99, -1881]


@pytest.mark.parametrize("values, expected", [
    ([7, 7, 7, 7, 7], [3, 7]),           # ties: the first point of the RDom wins
    ([0, 0, 0, 0, 0], [0, 0]),           # nothing beats the start (0, lowest): index 0
])
def test_argmax_ties_and_start_as_halide(target, values, expected):
    data = hl.Buffer(np.array([9, 9, 9, *values], dtype=np.uint8), "data")
    r = hl.RDom([(3, 5)], "r")
    f = hl.Func("first_best")
    f[()] = hl.argmax(data[r.x])
    got = check(f, [], target)
    assert [int(v) for v in got] == expected


def test_argmin_over_floats_with_nan(target):
    """NaN is never strictly better, so it is never chosen."""
    values = np.array([3.5, np.nan, -2.0, np.nan, -2.0, 8.0], dtype=np.float32)
    data = hl.Buffer(values, "values")
    r = hl.RDom([(0, 6)], "r")
    f = hl.Func("nan_min")
    f[()] = hl.argmin(data[r.x])
    got = check(f, [], target)
    assert int(got[0]) == 2 and float(got[1]) == -2.0


def test_tuple_select_with_several_conditions(target):
    f = hl.Func("bands")
    f[x] = hl.select(x < 5, (x, hl.u8(1)), x < 20, (x * 2, hl.u8(2)), (-x, hl.u8(3)))
    check(f, [W], target)
    assert hl.tuple_select is hl.select


def test_tuple_stored_at_an_outer_loop_and_computed_inside(target):
    image = hl.Buffer(ramp_image(np.uint8, seed=4), "image")
    stats, out = hl.Func("stats"), hl.Func("stats_out")
    stats[x, y] = (hl.u16(image[x, y]) + image[x + 1, y], hl.max(image[x, y], image[x + 1, y]))
    out[x, y] = stats[x, y][0] + hl.u16(stats[x, y + 1][1])
    stats.store_at(out, y).compute_at(out, x).vectorize(x, 4)
    out.split(x, x, xi, 8).vectorize(xi)
    check(out, [W - 2, H - 1], target)


def test_misuse_is_a_clear_error():
    f = hl.Func("two")
    f[x] = (x, hl.f32(x))
    with pytest.raises(hl.HalideError, match="it returns a Tuple of 2 values; use types"):
        f.type()
    g = hl.Func("one_expr")
    with pytest.raises(hl.HalideError, match=r"take an element with two\[...\]\[i\]"):
        g[x] = f[x] + 1
    with pytest.raises(hl.HalideError, match="has 1 values, but the pure definition has 2"):
        f[x] = f[x][0] + 1
    with pytest.raises(hl.HalideError, match="element 1 of update definition 0 .* has type "
                       "int32, but the pure definition has type float32"):
        f[x] = (f[x][0], x)
    with pytest.raises(IndexError, match="computes 2 value"):
        f[x][2]
    a, b = f[x]  # unpacking a reference to a pair
    assert a.type() == hl.Int(32) and b.type() == hl.Float(32)


def test_select_with_a_condition_per_element(target):
    f = hl.Func("per_element")
    f[x, y] = hl.select((x < 30, y < 10), (x, y), (x + y < 40, x < y), (x - 1, y - 2), (-x, -y))
    got = check(f, [W, H], target)
    xs, ys = np.meshgrid(np.arange(W), np.arange(H), indexing="ij")
    np.testing.assert_array_equal(got[0], np.where(xs < 30, xs, np.where(xs + ys < 40, xs - 1,
                                                                             -xs)))
    np.testing.assert_array_equal(got[1], np.where(ys < 10, ys, np.where(xs < ys, ys - 2,
                                                                             -ys)))


def test_select_of_tuples_errors_as_halides():
    with pytest.raises(hl.HalideError, match=r"may not mix Expr and Tuple for the condition "
                       r"elements\."):
        hl.select((x < 30, y < 30), (x, y), x + y < 100, (x - 1, y - 2), (x, y))
    with pytest.raises(hl.HalideError, match=r"requires all Tuples to have identical sizes\."):
        hl.select((x < 30, y < 30), (x, y, 0), (1, 2, 3, 4))


class _Complex:
    """A user's compound type, a sequence of two Exprs, as in Halide's lesson 13."""

    def __init__(self, re, im):
        self.re, self.im = re, im

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return (self.re, self.im)[i]

    def __mul__(self, o):
        return _Complex(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)


def test_any_sequence_is_a_tuple_value_and_elements_are_func_tuple_element_refs(target):
    z = hl.Func("z")
    z[x] = _Complex(hl.f32(x) * 0.25, hl.f32(1))
    z[x] = _Complex(*z[x]) * _Complex(*z[x])  # z squared
    assert type(z[x][0]) is hl.FuncTupleElementRef
    re, im = (0.25 * np.arange(W)).astype(np.float32), np.ones(W, np.float32)
    check(z, [W], target, expected=[re * re - im * im, 2 * re * im])
