"""hl.propagate_adjoints: adjoints checked against finite differences, against PyPI halide
(built by the same code taking the module as `hl`), and on the compiled host and wasm targets
against the reference evaluator."""

from __future__ import annotations

import numpy as np
import pytest

import webhal

REFERENCE = webhal.Target("reference")
N = 8  # inputs are N (x N) samples


def values(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.2, 1.5, n)


def buffer_1d(hl, data, t=None, name="b"):
    b = hl.Buffer(t or hl.Float(32), [len(data)], name)
    for i, v in enumerate(data):
        b[i] = float(v)
    return b


def buffer_2d(hl, data, t=None, name="b"):
    b = hl.Buffer(t or hl.Float(32), [data.shape[1], data.shape[0]], name)
    for y in range(data.shape[0]):
        for x in range(data.shape[1]):
            b[x, y] = float(data[y, x])
    return b


# -- pipelines: build(hl, t, inputs) -> (loss, {query name: thing to look up in d}, sizes) -----

def arithmetic(hl, t, inputs):
    """Every differentiable operation on one input, summed."""
    b = buffer_1d(hl, inputs[0], t)
    x = hl.Var("x")
    v = hl.Func("v")
    v[x] = b[x]
    f = hl.Func("f")
    a = v[x]
    one = hl.cast(t, 1)
    f[x] = (hl.exp(a) * hl.sin(a) + hl.log(a + one) / hl.sqrt(a + one) + hl.cos(a) * a
            - hl.pow(a + one, hl.cast(t, 1.5)) + hl.tanh(a) + hl.abs(a - one) + hl.atan(a)
            + hl.min(a, one) * 3 + hl.max(a, one) / (a + one)
            + hl.select(a > one, a * a, -a) + hl.asin(a / 4) + hl.acos(a / 4)
            + hl.sinh(a) + hl.cosh(a) + hl.atan2(a, one) + hl.lerp(a, one, a / 2))
    r = hl.RDom([(0, N)])
    loss = hl.Func("loss")
    loss[()] = hl.cast(t, 0)
    loss[()] += f[r.x]
    return loss, {"b": b, "v": v, "f": f}, {"b": [N], "v": [N], "f": [N]}


def stencil(hl, t, inputs):
    """A 3-tap 2-D stencil of affine accesses on a clamped input, squared and summed."""
    b = buffer_2d(hl, inputs[1].reshape(N, N), t)
    x, y = hl.Var("x"), hl.Var("y")
    clamped = hl.BoundaryConditions.repeat_edge(b)
    blur = hl.Func("blur")
    blur[x, y] = clamped[x - 1, y] * 2 + clamped[x, y] - clamped[x + 1, y + 1]
    sq = hl.Func("sq")
    sq[x, y] = blur[x, y] * blur[x, y]
    r = hl.RDom([(0, N), (0, N)])
    loss = hl.Func("loss")
    loss[()] = hl.cast(t, 0)
    loss[()] += sq[r.x, r.y]
    return loss, {"b": b, "blur": blur}, {"b": [N, N], "blur": [N, N]}


def updates(hl, t, inputs):
    """Pure definitions overwritten in part, updates with and without RDoms, a Param."""
    b = buffer_1d(hl, inputs[0], t)
    p = hl.Param(t, "p", 1.5)
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = b[x] * p
    f[x] = f[x] * 2 + b[x]           # reads its own pure value
    f[2] = b[hl.Expr(3)] * b[hl.Expr(3)]  # overwrites one point (b[3] would be a number)
    g = hl.Func("g")
    g[x] = hl.cast(t, 0)
    r = hl.RDom([(0, 3)])
    g[x] += f[hl.clamp(x + r.x, 0, N - 1)] * hl.cast(t, r.x + 1)
    loss = hl.Func("loss")
    loss[()] = hl.cast(t, 0)
    s = hl.RDom([(0, N)])
    loss[()] += g[s.x] * g[s.x] + f[s.x]
    return loss, {"b": b, "p": p, "f": f, ("f", 0): (f, 0), ("f", 1): (f, 1), "g": g}, \
        {"b": [N], "p": [], "f": [N], ("f", 0): [N], ("f", 1): [N], "g": [N]}


def resample(hl, t, inputs):
    """Down- and upsampling: accesses that are not +-1 times a Var scatter through RDoms."""
    b = buffer_1d(hl, inputs[0], t)
    x = hl.Var("x")
    down = hl.Func("down")
    down[x] = b[2 * x] + b[2 * x + 1]
    up = hl.Func("up")
    up[x] = down[x // 2] * hl.cast(t, x)
    r = hl.RDom([(0, N)])
    loss = hl.Func("loss")
    loss[()] = hl.cast(t, 0)
    loss[()] += up[r.x] * up[r.x]
    return loss, {"b": b, "down": down}, {"b": [N], "down": [N // 2]}


def shared(hl, t, inputs):
    """One Func read by two consumers and twice by one, and an ImageParam input."""
    im = hl.ImageParam(t, 1, "im")
    im.set(buffer_1d(hl, inputs[0], t, "imbuf"))
    x = hl.Var("x")
    g = hl.Func("g")
    g[x] = im[x] * im[x]
    h1, h2 = hl.Func("h1"), hl.Func("h2")
    h1[x] = g[x] + g[x + 1]
    h2[x] = g[x] * hl.cast(t, 3) - hl.select(x > 2, g[x], hl.cast(t, 0))
    r = hl.RDom([(0, N - 1)])
    loss = hl.Func("loss")
    loss[()] = hl.cast(t, 0)
    loss[()] += h1[r.x] * h2[r.x]
    return loss, {"im": im, "g": g}, {"im": [N], "g": [N]}


PIPELINES = [arithmetic, stencil, updates, resample, shared]


def inputs_for(seed: int = 0):
    return [values(N, seed), values(N * N, seed + 1)]


def derivatives(hl, build, t, target=None):
    """{query: numpy array} of the adjoints, realized with hl's evaluator or target."""
    loss, things, sizes = build(hl, t, inputs_for())
    d = hl.propagate_adjoints(loss)
    out = {}
    for key, thing in things.items():
        try:
            f = d[thing] if not isinstance(thing, tuple) else d[thing[0], thing[1]]
        except TypeError:  # Halide's bindings cannot look up an ImageParam's adjoint
            assert hl is not webhal
            continue
        got = f.realize(sizes[key], target) if target is not None else f.realize(sizes[key])
        out[key] = np.array(np.asarray(got))
    return out


# -- finite differences -------------------------------------------------------------------------

@pytest.mark.parametrize("build", PIPELINES, ids=lambda b: b.__name__)
def test_gradient_matches_finite_differences(build):
    t = webhal.Float(64)
    grads = derivatives(webhal, build, t, REFERENCE)
    base = inputs_for()
    key = "im" if build is shared else "b"
    which = 1 if build is stencil else 0
    flat = grads[key].reshape(-1)  # numpy order: y, then x, as the input data
    eps = 1e-6
    for i in range(0, base[which].size, 3):
        losses = []
        for sign in (1, -1):
            moved = [a.copy() for a in base]
            moved[which][i] += sign * eps
            loss, _, _ = build(webhal, t, moved)
            losses.append(float(np.asarray(loss.realize([], REFERENCE))))
        estimate = (losses[0] - losses[1]) / (2 * eps)
        assert flat[i] == pytest.approx(estimate, rel=1e-5, abs=1e-6), i


def test_gradient_of_a_param_matches_finite_differences():
    t = webhal.Float(64)
    loss, things, _ = updates(webhal, t, inputs_for())
    p = things["p"]
    got = float(np.asarray(webhal.propagate_adjoints(loss)[p].realize([], REFERENCE)))
    losses = []
    for v in (1.5 + 1e-6, 1.5 - 1e-6):
        p.set(v)
        losses.append(float(np.asarray(loss.realize([], REFERENCE))))
    assert got == pytest.approx((losses[0] - losses[1]) / 2e-6, rel=1e-5)


# -- compiled targets ---------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt"])
@pytest.mark.parametrize("build", PIPELINES, ids=lambda b: b.__name__)
def test_compiled_targets_match_the_reference(build, target):
    t = webhal.Float(32)
    want = derivatives(webhal, build, t, REFERENCE)
    got = derivatives(webhal, build, t, webhal.Target(target))
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-5, err_msg=str(key))


# -- the three forms of propagate_adjoints -------------------------------------------------------

def with_adjoint_buffer(hl):
    b = buffer_1d(hl, values(N, 3))
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = b[hl.clamp(x - 1, 0, N - 1)] * b[x] + hl.sin(b[hl.min(x + 1, N - 1)])
    adjoint = buffer_1d(hl, values(N, 4), name="adj")
    if hl is webhal:
        return hl.propagate_adjoints(f, adjoint)[b]
    # Halide's bindings take only a Buffer<float>, which Python cannot make: what Halide does
    # with one instead (Derivative.cpp), which webhal's answer must equal
    exterior = hl.BoundaryConditions.constant_exterior(adjoint, 0.0)
    return hl.propagate_adjoints(f, exterior, [hl.Range(0, N - 1)])[b]


def with_adjoint_func(hl):
    b = buffer_1d(hl, values(N, 5))
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = b[hl.clamp(x + 2, 0, N - 1)] * hl.cast(hl.Float(32), x)
    adjoint = hl.Func("adjoint")
    adjoint[x] = hl.cast(hl.Float(32), x * x) + hl.cast(hl.Float(32), 1)
    return hl.propagate_adjoints(f, adjoint, [(0, N - 2)])[b]


@pytest.mark.parametrize("make", [with_adjoint_buffer, with_adjoint_func])
def test_given_adjoints_on_every_target(make):
    want = np.asarray(make(webhal).realize([N], REFERENCE))
    for target in ("host", "wasm-32-wasmrt"):
        got = np.asarray(make(webhal).realize([N], webhal.Target(target)))
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_adjoint_buffer_is_the_chain_rule():
    b = values(N, 3).astype(np.float32)
    adj = values(N, 4).astype(np.float32)
    got = np.asarray(with_adjoint_buffer(webhal).realize([N], REFERENCE))
    want = np.zeros(N)
    for x in range(N):  # f[x] = b[clamp(x-1)] * b[x] + sin(b[min(x+1, N-1)])
        want[max(x - 1, 0)] += adj[x] * b[x]
        want[x] += adj[x] * b[max(x - 1, 0)]
        want[min(x + 1, N - 1)] += adj[x] * np.cos(b[min(x + 1, N - 1)])
    np.testing.assert_allclose(got, want, rtol=1e-5)


# -- what is refused ----------------------------------------------------------------------------

def test_derivative_of_something_not_used_is_undefined():
    x = webhal.Var("x")
    f, other = webhal.Func("f"), webhal.Func("other")
    f[()] = webhal.f32(1.5)
    other[x] = webhal.f32(x)
    assert not webhal.propagate_adjoints(f)[other].defined()


def test_a_product_reduction_is_refused_by_name():
    x = webhal.Var("x")
    g, f, loss = webhal.Func("g"), webhal.Func("prod_f"), webhal.Func("loss")
    g[x] = webhal.f32(x) + 1
    r = webhal.RDom([(0, 4)])
    f[x] = webhal.f32(1)
    f[x] = f[x] * g[r.x]
    loss[()] = f[0]
    with pytest.raises(webhal.HalideError, match="prod_f.*overwrites"):
        webhal.propagate_adjoints(loss)


def test_a_scan_is_refused_by_name():
    x = webhal.Var("x")
    g, f, loss = webhal.Func("g"), webhal.Func("scan_f"), webhal.Func("loss")
    g[x] = webhal.f32(x) + 1
    r = webhal.RDom([(0, 4)])
    f[x] = webhal.f32(0)
    f[r.x + 1] = 2 * f[r.x] + g[r.x]
    loss[()] = f[4]
    with pytest.raises(webhal.HalideError, match="scan_f.*scan"):
        webhal.propagate_adjoints(loss)


def test_a_tuple_is_refused_by_name():
    x = webhal.Var("x")
    f, loss = webhal.Func("pair_f"), webhal.Func("loss")
    f[x] = (webhal.f32(x), webhal.f32(x) * 2)
    loss[()] = f[1][0] + f[1][1]
    with pytest.raises(webhal.HalideError, match="pair_f.*Tuple"):
        webhal.propagate_adjoints(loss)


def test_an_unbounded_access_is_refused_by_name():
    x = webhal.Var("x")
    b = webhal.Buffer(webhal.Float(32), [4], "unbounded_b")
    idx = webhal.Buffer(webhal.Int(32), [4], "idx")
    f = webhal.Func("f")
    f[()] = b[idx[webhal.Expr(0)]]
    with pytest.raises(webhal.HalideError, match="unbounded_b"):
        webhal.propagate_adjoints(f)
    _ = x


# -- against Halide -----------------------------------------------------------------------------

@pytest.mark.halide
@pytest.mark.parametrize("build", PIPELINES, ids=lambda b: b.__name__)
def test_same_adjoints_as_halide(build):
    from tests.halide_peer import require
    (halide,) = require("halide")
    ours = derivatives(webhal, build, webhal.Float(32), REFERENCE)
    theirs = derivatives(halide, build, halide.Float(32))
    assert set(theirs) <= set(ours) and len(theirs) >= len(ours) - 1
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=2e-5, atol=1e-5,
                                   err_msg=str(key))


@pytest.mark.halide
@pytest.mark.parametrize("make", [with_adjoint_buffer, with_adjoint_func])
def test_given_adjoints_as_halide(make):
    from tests.halide_peer import require
    (halide,) = require("halide")
    ours = np.asarray(make(webhal).realize([N], REFERENCE))
    theirs = np.asarray(make(halide).realize([N]))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


# -- more of Halide's semantics, including values outside the regions read ---------------------

def realize_over(hl, f, mins, sizes, target=None):
    out = hl.Buffer(hl.Float(32), sizes)
    out.set_min(mins)
    f.realize(out, target) if target is not None else f.realize(out)
    return np.array(np.asarray(out))


def loss_of(hl, f, n, weighted=False):
    s = hl.RDom([(0, n)])
    loss = hl.Func("loss")
    loss[()] = hl.f32(0)
    loss[()] += f[s.x] * (hl.f32(s.x) if weighted else f[s.x])
    return loss


def default_adjoint_of_a_1d_output(hl, target):
    """propagate_adjoints(f) of a 1-D f: adjoint 1 everywhere, region the point 0."""
    b = buffer_1d(hl, values(N, 1))
    x = hl.Var("x")
    g, f = hl.Func("g"), hl.Func("f")
    g[x] = b[hl.clamp(x, 0, N - 1)] * 2
    f[x] = g[x - 1] * g[x + 1] + g[2 * x]
    d = hl.propagate_adjoints(f)
    return [realize_over(hl, d[g], [-3], [N + 6], target), realize_over(hl, d[b], [0], [N], target)]


def histogram(hl, target):
    """A scatter to computed coordinates, through the update's RDom."""
    b = buffer_1d(hl, values(N, 2))
    x, r = hl.Var("x"), hl.RDom([(0, N)])
    h = hl.Func("h")
    h[x] = hl.f32(0)
    h[hl.clamp(hl.i32(b[r.x] * 3), 0, 4)] += b[r.x] * b[r.x]
    d = hl.propagate_adjoints(loss_of(hl, h, 5, weighted=True))
    return [realize_over(hl, d[b], [0], [N], target), realize_over(hl, d[h], [-1], [7], target)]


def overwritten_by_an_rdom(hl, target):
    b = buffer_1d(hl, values(N, 2))
    x, r = hl.Var("x"), hl.RDom([(1, 3)])
    f = hl.Func("f")
    f[x] = b[x] * 2
    f[r.x * 2] = b[r.x] * 3
    d = hl.propagate_adjoints(loss_of(hl, f, N))
    return [realize_over(hl, d[b], [0], [N], target), realize_over(hl, d[f], [-1], [N + 2], target),
            realize_over(hl, d[f, 0], [-1], [N + 2], target)]


def running_sum(hl, target):
    """Halide's adjoints of an in-place scan with self-derivative 1 (not the gradient: Halide
    asks for scans to keep their intermediate values; webhal gives Halide's numbers)."""
    b = buffer_1d(hl, values(N, 2))
    x, r = hl.Var("x"), hl.RDom([(0, N - 1)])
    f = hl.Func("f")
    f[x] = b[x]
    f[r.x + 1] = f[r.x] + f[r.x + 1]
    d = hl.propagate_adjoints(loss_of(hl, f, N, weighted=True))
    return [realize_over(hl, d[b], [0], [N], target), realize_over(hl, d[f], [-1], [N + 2], target)]


def sum_over_a_column(hl, target):
    b = buffer_2d(hl, values(N * N, 2).reshape(N, N))
    x, r = hl.Var("x"), hl.RDom([(0, N)])
    f = hl.Func("f")
    f[x] = hl.f32(0)
    f[x] = f[x] + hl.sin(b[x, r.x]) * hl.f32(r.x)
    d = hl.propagate_adjoints(loss_of(hl, f, N))
    return [realize_over(hl, d[b], [0, 0], [N, N], target),
            realize_over(hl, d[f, 0], [-1], [N + 2], target)]


def given_region_with_a_min(hl, target):
    b = buffer_1d(hl, values(N, 5))
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = b[hl.clamp(x * 2, 0, N - 1)] * hl.f32(x) + b[hl.clamp(x, 0, N - 1)]
    adjoint = hl.Func("adjoint")
    adjoint[x] = hl.f32(x * x) + 1
    d = hl.propagate_adjoints(f, adjoint, [(2, 3)])
    return [realize_over(hl, d[b], [0], [N], target), realize_over(hl, d[f], [-2], [N + 4], target)]


def casts_and_integers(hl, target):
    """float64 inside float32, integer Funcs and Params (no gradient flows through them)."""
    b = buffer_1d(hl, values(N, 5))
    x, p = hl.Var("x"), hl.Param(hl.Int(32), "ip", 3)
    g, k, f = hl.Func("g"), hl.Func("k"), hl.Func("f")
    g[x] = hl.f64(b[x]) * hl.f64(b[x])
    k[x] = hl.i32(b[x] * 10)
    f[x] = hl.f32(g[x]) + hl.f32(k[x]) * b[x] + hl.f32(p)
    d = hl.propagate_adjoints(loss_of(hl, f, N, weighted=True))
    g64 = hl.Buffer(hl.Float(64), [N])
    d[g].realize(g64, target) if target is not None else d[g].realize(g64)
    return [realize_over(hl, d[b], [0], [N], target), np.array(np.asarray(g64))]


def rdom_with_a_predicate(hl, target):
    b = buffer_2d(hl, values(N * N, 2).reshape(N, N))
    x, r = hl.Var("x"), hl.RDom([(0, N), (0, N)])
    r.where(r.y <= r.x)
    f = hl.Func("f")
    f[x] = hl.f32(0)
    f[x] += b[r.x, r.y] * hl.f32(r.y + 1) + hl.f32(x)
    d = hl.propagate_adjoints(loss_of(hl, f, N))
    return [realize_over(hl, d[b], [0, 0], [N, N], target),
            realize_over(hl, d[f], [0], [N], target)]


CASES = [rdom_with_a_predicate, default_adjoint_of_a_1d_output, histogram,
         overwritten_by_an_rdom, running_sum, sum_over_a_column, given_region_with_a_min,
         casts_and_integers]


@pytest.mark.halide
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_same_values_as_halide_inside_and_outside_the_region(case):
    from tests.halide_peer import require
    (halide,) = require("halide")
    ours, theirs = case(webhal, REFERENCE), case(halide, None)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", ["host", "wasm-32-wasmrt"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_cases_on_compiled_targets(case, target):
    for a, b in zip(case(webhal, webhal.Target(target)), case(webhal, REFERENCE), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_sum_reduction_gradient_is_exact():
    b = values(N * N, 2).reshape(N, N).astype(np.float32)
    got = sum_over_a_column(webhal, REFERENCE)[0]  # [y, x]
    f = (np.sin(b) * np.arange(N)[:, None]).sum(axis=0)  # f[x] = sum_r sin(b[r, x]) * r
    np.testing.assert_allclose(got, 2 * f[None, :] * np.cos(b) * np.arange(N)[:, None],
                               rtol=1e-4, atol=1e-5)


def test_inline_sum_and_a_2d_image_param_match_finite_differences():
    data = values(N * N, 7).reshape(N, N)

    def build(data):
        im = webhal.ImageParam(webhal.Float(64), 2, "im2")
        im.set(buffer_2d(webhal, data, webhal.Float(64), "im2buf"))
        x, r = webhal.Var("x"), webhal.RDom([(0, N)])
        f = webhal.Func("f")
        f[x] = webhal.sum(webhal.exp(im[x, r.x] / 4) * im[N - 1 - r.x, x // 2])
        loss, s = webhal.Func("loss"), webhal.RDom([(0, N)])
        loss[()] = webhal.f64(0)
        loss[()] += f[s.x] * f[s.x]
        return loss, im

    loss, im = build(data)
    got = np.asarray(webhal.propagate_adjoints(loss)[im].realize([N, N], REFERENCE))
    for y, x in [(0, 0), (3, 5), (7, 2), (6, 7)]:
        moved = []
        for sign in (1, -1):
            d = data.copy()
            d[y, x] += sign * 1e-6
            moved.append(float(np.asarray(build(d)[0].realize([], REFERENCE))))
        assert got[y, x] == pytest.approx((moved[0] - moved[1]) / 2e-6, rel=1e-5)


def test_wrong_adjoint_buffers_and_keys_are_refused():
    x = webhal.Var("x")
    f = webhal.Func("f")
    f[x] = webhal.f32(x)
    with pytest.raises(webhal.HalideError, match="float"):
        webhal.propagate_adjoints(f, webhal.Buffer(webhal.Int(32), [4], "ints"))
    with pytest.raises(webhal.HalideError, match="indexed by"):
        _ = webhal.propagate_adjoints(f)[3.5]
