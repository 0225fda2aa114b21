"""Funcs: pure definitions, updates, reductions (histograms, scans, RDom.where, 2-D order) and
inline reductions, each against numpy."""

import numpy as np
import pytest

import webhal as hl

from ._helpers import REFERENCE, grid, realize, realize_at

RNG = np.random.default_rng(7)


@pytest.fixture
def xy():
    return hl.Var("x"), hl.Var("y")


# -- pure definitions ----------------------------------------------------------------------------

def test_pure_definition_2d(xy):
    x, y = xy
    f = hl.Func("f")
    f[x, y] = x + 10 * y
    yy, xx = grid(3, 4)
    out = realize(f, [4, 3])
    assert out.shape == (3, 4) and out.dtype == np.int32
    np.testing.assert_array_equal(out, xx + 10 * yy)


def test_pure_definition_3d_and_call_syntax():
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    f = hl.Func("f")
    f[x, y, c] = x * 100 + y * 10 + c
    g = hl.Func("g")
    g[x, y, c] = f(x, y, c) * 2  # f(...) and f[...] are the same call
    out = realize(g, [4, 3, 2])
    cc, yy, xx = np.mgrid[0:2, 0:3, 0:4]
    np.testing.assert_array_equal(out, (xx * 100 + yy * 10 + cc) * 2)


def test_zero_dimensional_func():
    f = hl.Func("f")
    f[()] = hl.Expr(6) * 7
    assert realize(f, []).item() == 42
    assert realize(hl.Func(hl.Expr(5)), []).item() == 5


def test_func_declared_with_type_and_dimensions(xy):
    x, y = xy
    f = hl.Func(hl.UInt(8), 2, "f")
    f[x, y] = hl.u8(x + y)
    assert f.type() == hl.UInt(8) and f.dimensions() == 2
    g = hl.Func(hl.UInt(8), 2, "g")
    with pytest.raises(hl.CompileError, match="constrained to only hold values of type"):
        g[x, y] = x + y


def test_pipeline_of_stages(xy):
    x, y = xy
    a = hl.Func("a")
    a[x, y] = x * y
    b = hl.Func("b")
    b[x, y] = a[x + 1, y] - a[x, y + 2]
    c = hl.Func("c")
    c[x, y] = b[x, y] * b[y, x]
    yy, xx = grid(5, 5)

    def a_(i, j):
        return i * j

    def b_(i, j):
        return a_(i + 1, j) - a_(i, j + 2)
    np.testing.assert_array_equal(realize(c, [5, 5]), b_(xx, yy) * b_(yy, xx))


def test_func_reads_at_negative_and_shifted_coordinates(xy):
    x, y = xy
    f = hl.Func("f")
    f[x] = x * x
    g = hl.Func("g")
    g[x] = f[x - 5] + f[2 * x + 3]
    xs = np.arange(8)
    np.testing.assert_array_equal(realize(g, [8]), (xs - 5) ** 2 + (2 * xs + 3) ** 2)


def test_realize_over_a_region_with_mins(xy):
    x, y = xy
    f = hl.Func("f")
    f[x, y] = x - y
    yy, xx = np.mgrid[-2:1, 5:9]
    np.testing.assert_array_equal(realize_at(f, [5, -2], [4, 3], hl.Int(32)), xx - yy)


def test_several_outputs_realized_together(xy):
    x, y = xy
    f = hl.Func("f")
    f[x, y] = x + y
    g = hl.Func("g")
    g[x, y] = hl.f32(f[x, y]) / 2
    bf, bg = hl.Pipeline([f, g]).realize([3, 2], REFERENCE)
    yy, xx = grid(2, 3)
    np.testing.assert_array_equal(np.asarray(bf), xx + yy)
    np.testing.assert_array_equal(np.asarray(bg), (xx + yy) / 2)


def test_func_queries(xy):
    x, y = xy
    f = hl.Func("f")
    assert not f.defined()
    f[x, y] = x
    assert f.defined() and f.name() == "f" and [v.name() for v in f.args()] == ["x", "y"]
    assert not f.has_update_definition()
    f[x, 0] = 1
    assert f.has_update_definition() and f.num_update_definitions() == 1


def test_funcs_and_vars_from_a_string_of_names():
    f, g = hl.funcs("f g")
    x, y, z = hl.vars("x  y z")
    assert (f.name(), g.name()) == ("f", "g") and not f.defined()
    assert [v.name() for v in (x, y, z)] == ["x", "y", "z"]


def test_types_and_output_buffers(xy):
    x, y = xy
    f = hl.Func("f")
    with pytest.raises(hl.CompileError, match="Func f is not defined yet"):
        f.types()
    with pytest.raises(hl.CompileError, match="Func f is not defined yet"):
        f.output_buffer()
    f[x, y] = hl.f64(x)
    assert f.types() == [hl.Float(64)] and f.type() == hl.Float(64)
    out = f.output_buffer()
    assert (out.name(), out.type(), out.dimensions()) == ("f", hl.Float(64), 2)
    assert [b.name() for b in f.output_buffers()] == ["f"]
    assert str(out.dim(1).extent()) == "f.extent.1"  # known when the pipeline runs
    with pytest.raises(hl.CompileError, match="has 2 dimensions; there is no dim\\(2\\)"):
        out.dim(2)


def test_a_declared_func_has_its_type_and_dimensions_before_a_definition():
    f = hl.Func(hl.Int(16), 2, "f")
    assert not f.defined()
    assert (f.type(), f.types(), f.dimensions()) == (hl.Int(16), [hl.Int(16)], 2)


def test_logical_not_of_a_bool_func_reference(xy):
    x, _ = xy
    f = hl.Func("f")
    f[x] = x > 2
    not_f, not_f2 = hl.Func("not_f"), hl.Func("not_f2")
    not_f[x] = hl.logical_not(f[x])
    not_f2[x] = f[x].logical_not()
    expect = np.arange(5) <= 2
    np.testing.assert_array_equal(realize(not_f, [5]), expect)
    np.testing.assert_array_equal(realize(not_f2, [5]), expect)


# -- updates -------------------------------------------------------------------------------------

def test_update_at_a_point_and_a_row(xy):
    x, y = xy
    f = hl.Func("f")
    f[x, y] = 0
    f[2, 1] = 7
    f[x, 0] = f[x, 0] + x  # a row update with a pure Var
    out = realize(f, [4, 3])
    expect = np.zeros((3, 4), np.int32)
    expect[1, 2] = 7
    expect[0] += np.arange(4)
    np.testing.assert_array_equal(out, expect)


def test_compound_assignments(xy):
    x, _ = xy
    f = hl.Func("f")
    f[x] = x + 1
    f[x] += 10
    f[x] *= 3
    f[x] -= x
    g = hl.Func("g")
    g[x] = hl.f32(x)
    g[x] /= 2
    xs = np.arange(6)
    np.testing.assert_array_equal(realize(f, [6]), (xs + 1 + 10) * 3 - xs)
    np.testing.assert_array_equal(realize(g, [6]), xs / 2)


def test_compound_assignments_through_a_named_reference(xy):
    x, _ = xy
    f = hl.Func("f")
    f[x] = x
    left = f[x]
    left += 5
    left *= 2  # a second update through the same name, as in Halide
    g = hl.Func("g")
    g[x] = left  # another Func's definition reads f as it ends up
    xs = np.arange(4)
    assert f.num_update_definitions() == 2
    np.testing.assert_array_equal(realize(f, [4]), (xs + 5) * 2)
    np.testing.assert_array_equal(realize(g, [4]), (xs + 5) * 2)


def test_updates_run_in_definition_order(xy):
    x, _ = xy
    f = hl.Func("f")
    f[x] = x
    f[x] = f[x] * 2
    f[3] = 100
    f[x] = f[x] + 1
    np.testing.assert_array_equal(realize(f, [5]), [1, 3, 5, 101, 9])


def test_update_reads_its_own_earlier_values_at_other_points(xy):
    x, _ = xy
    f = hl.Func("f")
    f[x] = x * x
    r = hl.RDom([(1, 5)])
    f[r] = f[r] + f[r - 1]  # in order: each point sees the one before, already updated
    expect = [v * v for v in range(6)]
    for i in range(1, 6):
        expect[i] += expect[i - 1]
    np.testing.assert_array_equal(realize(f, [6]), expect)


def test_implicit_pure_definition_from_update_is_the_identity(xy):
    x, _ = xy
    r = hl.RDom([(0, 4)])
    s = hl.Func("s")
    s[x] += x * r  # no pure definition: it starts at 0
    p = hl.Func("p")
    p[x] *= x + r  # starts at 1
    xs = np.arange(5)
    np.testing.assert_array_equal(realize(s, [5]), xs * (0 + 1 + 2 + 3))
    np.testing.assert_array_equal(realize(p, [5]), xs * (xs + 1) * (xs + 2) * (xs + 3))


def test_histogram_with_indirect_stores():
    data = RNG.integers(0, 256, (40, 50), dtype=np.uint8)
    image = hl.Buffer(data)
    r = hl.RDom([(0, 50), (0, 40)])
    i = hl.Var("i")
    hist = hl.Func("hist")
    hist[i] = 0
    hist[hl.i32(image[r.x, r.y])] += 1
    np.testing.assert_array_equal(realize(hist, [256]), np.bincount(data.ravel(),
                                                                  minlength=256))


def test_histogram_without_pure_definition_and_weights():
    data = RNG.integers(0, 16, 500, dtype=np.uint8)
    weights = RNG.random(500).astype(np.float32)
    d, w = hl.Buffer(data), hl.Buffer(weights)
    r = hl.RDom(d)
    hist = hl.Func("hist")
    hist[hl.cast(hl.Int(32), d[r])] += w[r]
    expect = np.zeros(16, np.float32)
    np.add.at(expect, data, weights)  # the same order of additions
    np.testing.assert_allclose(realize(hist, [16]), expect, rtol=1e-6)


def test_histogram_max_and_min_updates():
    keys = RNG.integers(0, 8, 300).astype(np.int32)
    vals = RNG.integers(-1000, 1000, 300).astype(np.int32)
    k, v = hl.Buffer(keys), hl.Buffer(vals)
    r = hl.RDom([(0, 300)])
    i = hl.Var("i")
    hi = hl.Func("hi")
    hi[i] = -10**6
    hi[k[r]] = hl.max(hi[k[r]], v[r])
    lo = hl.Func("lo")
    lo[i] = 10**6
    lo[k[r]] = hl.min(lo[k[r]], v[r])
    np.testing.assert_array_equal(realize(hi, [8]), [vals[keys == j].max() for j in range(8)])
    np.testing.assert_array_equal(realize(lo, [8]), [vals[keys == j].min() for j in range(8)])


def test_scan_is_cumulative_sum():
    data = RNG.integers(-100, 100, 1000).astype(np.int32)
    b = hl.Buffer(data)
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = b[x]
    r = hl.RDom([(1, 999)])
    f[r] = f[r - 1] + f[r]
    np.testing.assert_array_equal(realize(f, [1000]), np.cumsum(data))


def test_scan_order_matters_and_is_followed():
    # A non-commutative recurrence: out[i] = 3 * out[i - 1] - in[i] (wrapping in int32).
    data = RNG.integers(-50, 50, 200).astype(np.int64)
    b = hl.Buffer(data.astype(np.int32))
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = 1
    r = hl.RDom([(1, 199)])
    f[r] = 3 * f[r - 1] - b[r]
    expect = [1]
    for i in range(1, 200):
        expect.append((3 * expect[-1] - int(data[i]) + 2**31) % 2**32 - 2**31)
    np.testing.assert_array_equal(realize(f, [200]), expect)


def test_scan_backwards_with_reversed_rdom():
    data = np.arange(1, 11, dtype=np.int32)
    b = hl.Buffer(data)
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = b[x]
    r = hl.RDom([(0, 9)])
    f[8 - r] = f[8 - r] + 2 * f[9 - r]  # right to left
    expect = list(data)
    for i in range(8, -1, -1):
        expect[i] += 2 * expect[i + 1]
    np.testing.assert_array_equal(realize(f, [10]), expect)


def test_scan_along_one_axis_with_a_pure_var():
    data = RNG.integers(0, 100, (6, 7)).astype(np.int32)
    b = hl.Buffer(data)
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = b[x, y]
    ry = hl.RDom([(1, 5)])
    f[x, ry] = f[x, ry] + f[x, ry - 1]  # down each column, all columns at once
    np.testing.assert_array_equal(realize(f, [7, 6]), np.cumsum(data, axis=0))
    g = hl.Func("g")
    g[x, y] = b[x, y]
    rx = hl.RDom([(1, 6)])
    g[rx, y] = g[rx, y] + g[rx - 1, y]
    np.testing.assert_array_equal(realize(g, [7, 6]), np.cumsum(data, axis=1))


def test_summed_area_table():
    data = RNG.integers(0, 10, (9, 8)).astype(np.int32)
    b = hl.Buffer(data)
    x, y = hl.Var("x"), hl.Var("y")
    s = hl.Func("s")
    s[x, y] = b[x, y]
    rx, ry = hl.RDom([(1, 7)]), hl.RDom([(1, 8)])
    s[rx, y] += s[rx - 1, y]
    s[x, ry] += s[x, ry - 1]
    np.testing.assert_array_equal(realize(s, [8, 9]), data.cumsum(0).cumsum(1))


def test_2d_rdom_visits_points_with_x_fastest():
    # A polynomial hash is different for every order of visiting the points.
    w, h = 5, 4
    r = hl.RDom([(0, w), (0, h)])
    f = hl.Func("f")
    f[()] = hl.u64(0)
    f[()] = f[()] * 31 + hl.u64(r.x + 10 * r.y + 1)
    expect = 0
    for ry in range(h):
        for rx in range(w):
            expect = (expect * 31 + rx + 10 * ry + 1) % 2**64
    assert realize(f, []).item() == expect


def test_rdom_with_mins_and_extents_from_exprs():
    data = np.arange(20, dtype=np.int32)
    b = hl.Buffer(data)
    lo = hl.Param(hl.Int(32), "lo", 3)
    n = hl.Param(hl.Int(32), "n", 5)
    r = hl.RDom([(lo, n)])
    f = hl.Func("f")
    f[()] = 0
    f[()] = f[()] + b[r]
    assert realize(f, []).item() == data[3:8].sum()
    lo.set(10)
    assert realize(f, []).item() == data[10:15].sum()


def test_rdom_where_restricts_the_points():
    data = RNG.integers(0, 100, (12, 10)).astype(np.int32)
    b = hl.Buffer(data)
    r = hl.RDom([(0, 10), (0, 12)])
    r.where((r.x + r.y) % 2 == 0)
    r.where(b[r.x, r.y] > 30)
    f = hl.Func("f")
    f[()] = 0
    f[()] += b[r.x, r.y]
    yy, xx = grid(12, 10)
    keep = ((xx + yy) % 2 == 0) & (data > 30)
    assert realize(f, []).item() == data[keep].sum()


def test_rdom_where_triangle_in_order():
    n = 6
    r = hl.RDom([(0, n), (0, n)])
    r.where(r.x <= r.y)
    f = hl.Func("f")
    f[()] = hl.u64(7)
    f[()] = f[()] * 131 + hl.u64(r.x * n + r.y)
    expect = 7
    for ry in range(n):
        for rx in range(ry + 1):
            expect = (expect * 131 + rx * n + ry) % 2**64
    assert realize(f, []).item() == expect


def test_rdom_over_a_buffer_covers_its_shape():
    data = RNG.integers(0, 5, (3, 4)).astype(np.int32)
    b = hl.Buffer(data)
    r = hl.RDom(b)
    assert r.dimensions() == 2 and len(r) == 2
    f = hl.Func("f")
    f[()] = 0
    f[()] += b[r.x, r.y] * (r.x + 1)
    assert realize(f, []).item() == (data * (np.arange(4) + 1)).sum()


def test_rdom_from_ranges():
    r = hl.RDom([hl.Range(2, 3), hl.Range(-1, 2)])
    assert str(r.x.min()) == "2" and str(r.y.extent()) == "2"
    f = hl.Func("f")
    f[()] = 0
    f[()] = f[()] * 10 + r.x + 3 * r.y
    expect = 0
    for ry in (-1, 0):
        for rx in (2, 3, 4):
            expect = expect * 10 + rx + 3 * ry
    assert realize(f, []).item() == expect


def test_rdom_accessors():
    r = hl.RDom([(2, 5), (-1, 3)], "r")
    assert r.name() == "r"
    assert r.x.name() == "r$x" and r[1].name() == "r$y"
    with pytest.raises(hl.CompileError):
        r[2]
    with pytest.raises(hl.CompileError, match="one-dimensional"):
        r + 1


@pytest.mark.parametrize("index", [-1, 2])
def test_rdom_index_outside_its_dimensions_is_a_key_error(index):
    r = hl.RDom([(0, 10), (0, 10)], "r")
    with pytest.raises(KeyError, match=f"RDom r has 2 dimensions .*no dimension {index}"):
        r[index]
    with pytest.raises(TypeError, match="dimension number"):
        r["foo"]
    assert [v.name() for v in r] == ["r$x", "r$y"]


# -- inline reductions ---------------------------------------------------------------------------

def test_inline_sum_maximum_minimum_product():
    data = RNG.integers(1, 6, (5, 8)).astype(np.int32)
    b = hl.Buffer(data)
    x = hl.Var("x")
    r = hl.RDom([(0, 5)])
    fs, fmax, fmin, fprod = (hl.Func(n) for n in ("s", "mx", "mn", "pr"))
    fs[x] = hl.sum(b[x, r])
    fmax[x] = hl.maximum(b[x, r])
    fmin[x] = hl.minimum(b[x, r])
    fprod[x] = hl.product(b[x, r])
    np.testing.assert_array_equal(realize(fs, [8]), data.sum(0))
    np.testing.assert_array_equal(realize(fmax, [8]), data.max(0))
    np.testing.assert_array_equal(realize(fmin, [8]), data.min(0))
    np.testing.assert_array_equal(realize(fprod, [8]), data.prod(0))


def test_inline_reductions_of_floats_start_at_infinities():
    data = np.array([-5.5, -2.0, -9.25], dtype=np.float32)
    b = hl.Buffer(data)
    r = hl.RDom([(0, 3)])
    f = hl.Func("f")
    f[()] = hl.maximum(b[r])
    g = hl.Func("g")
    g[()] = hl.minimum(-b[r])
    assert realize(f, []).item() == -2.0
    assert realize(g, []).item() == 2.0


def test_inline_sum_keeps_the_type_and_wraps():
    data = np.full(10, 100, dtype=np.uint8)
    b = hl.Buffer(data)
    r = hl.RDom([(0, 10)])
    f = hl.Func("f")
    f[()] = hl.sum(b[r])
    g = hl.Func("g")
    g[()] = hl.sum(hl.u32(b[r]))
    assert realize(f, []).item() == 1000 % 256
    assert realize(g, []).item() == 1000


def test_box_filter_with_inline_sum_and_2d_rdom():
    data = RNG.integers(0, 50, (10, 12)).astype(np.int32)
    b = hl.Buffer(data)
    clamped = hl.BoundaryConditions.repeat_edge(b)
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom([(-1, 3), (-1, 3)])
    f = hl.Func("f")
    f[x, y] = hl.sum(clamped[x + r.x, y + r.y])
    padded = np.pad(data, 1, mode="edge")
    expect = sum(padded[1 + dy:11 + dy, 1 + dx:13 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    np.testing.assert_array_equal(realize(f, [12, 10]), expect)


def test_inline_reduction_needs_an_rdom():
    x = hl.Var("x")
    with pytest.raises(hl.CompileError, match="RDom"):
        hl.sum(x + 1)


# -- definitions that Halide rejects -------------------------------------------------------------

def test_update_type_must_match(xy):
    x, _ = xy
    f = hl.Func("f")
    f[x] = hl.u8(x)
    with pytest.raises(hl.CompileError, match="type"):
        f[x] = hl.f32(x)


def test_pure_definition_needs_distinct_vars(xy):
    x, y = xy
    f = hl.Func("f")
    with pytest.raises(hl.CompileError):
        f[x, x] = 1
    with pytest.raises(hl.CompileError):
        f[x + 1] = 1


# -- a large pipeline on the reference evaluator -------------------------------------------------

def test_1024_square_three_stage_blur_is_practical():
    """A 1024 x 1024 separable blur with a boundary condition, then a sharpen, against numpy."""
    data = RNG.integers(0, 256, (1024, 1024), dtype=np.uint8)
    image = hl.Buffer(data)
    x, y = hl.Var("x"), hl.Var("y")
    clamped = hl.BoundaryConditions.repeat_edge(image)
    wide = hl.Func("wide")
    wide[x, y] = hl.u16(clamped[x, y])
    blur_x = hl.Func("blur_x")
    blur_x[x, y] = wide[x - 1, y] + 2 * wide[x, y] + wide[x + 1, y]
    blur_y = hl.Func("blur_y")
    blur_y[x, y] = (blur_x[x, y - 1] + 2 * blur_x[x, y] + blur_x[x, y + 1] + 8) / 16
    sharp = hl.Func("sharp")
    sharp[x, y] = hl.u8(hl.clamp(2 * hl.i32(wide[x, y]) - hl.i32(blur_y[x, y]), 0, 255))
    blur_x.compute_root()
    blur_y.compute_root()
    out = realize(sharp, [1024, 1024])

    p = np.pad(data, 1, mode="edge").astype(np.int64)
    bx = p[:, :-2] + 2 * p[:, 1:-1] + p[:, 2:]
    by = (bx[:-2] + 2 * bx[1:-1] + bx[2:] + 8) // 16
    expect = np.clip(2 * data.astype(np.int64) - by, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(out, expect)


def test_declared_types_and_halides_messages(xy):
    """hl.Func(types, dims, name) declares a Tuple's types too; mistakes read as Halide's."""
    x, y = xy
    f = hl.Func([hl.Int(32), hl.Float(64)], 3, "declared_pair")
    assert f.types() == [hl.Int(32), hl.Float(64)] and f.outputs() == 2
    assert f.dimensions() == 3 and not f.defined()
    with pytest.raises(hl.HalideError, match="it returns a Tuple"):
        f.type()
    g = hl.Func("never_defined")
    for query in (g.type, g.outputs, g.dimensions):
        with pytest.raises(hl.HalideError, match="it is undefined"):
            query()
    one = hl.Func(hl.Int(32), 1, "one_dim")
    with pytest.raises(hl.HalideError, match="is constrained to have exactly 1 dimensions, but "
                       "is defined with 2 dimensions"):
        one[x, y] = hl.i32(0)
    pair = hl.Func((hl.Int(32), hl.Float(32)), 2, "typed_pair")
    with pytest.raises(hl.HalideError, match=r"is constrained to only hold values of type "
                       r"\(int32, float32\) but is defined with values of type "
                       r"\(int16, float64\)"):
        pair[x, y] = (hl.i16(0), hl.f64(0))
    h = hl.Func("h16")
    h[x, y] = hl.u16(x + y)
    with pytest.raises(hl.HalideError, match="^Error: Output buffer h16 has type uint16 but "
                       "type of the buffer passed in is uint8"):
        h.realize(hl.Buffer(hl.UInt(8), [2, 2]))
    with pytest.raises(hl.HalideError, match="Implicit cast from float32 to int"):
        h[x * 1.5, y]


def test_implicit_vars_and_the_placeholder():
    v = hl.Var.implicit(1)
    assert v.name() == "_1" and v.same_as(hl._1) and v.same_as(hl.Var("_1"))
    assert hl._1.is_implicit() and hl._1.implicit_index() == 1
    assert not hl.Var("v4").is_implicit() and hl.Var("v4").implicit_index() == -1
    assert hl._.name() == "_" and hl._.is_placeholder() and not hl._1.is_placeholder()
    assert [hl._0, hl._9][1].name() == "_9"
