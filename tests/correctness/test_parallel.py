"""A per-row computation run with parallel loops: rows, tiles, task sizes, nested parallelism and
a parallel producer."""

import numpy as np

import webhal as hl

from .conftest import H, W, check, fused_multiply_add, ramp_image

x, y = hl.Var("x"), hl.Var("y")


DATA = ramp_image(np.float32, seed=11)
IMAGE = hl.Buffer(DATA, "image")


def _rows(name="rows"):
    f = hl.Func(name)
    f[x, y] = IMAGE[x, y] * IMAGE[x, y] + hl.f32(y)
    d = DATA.T
    return f, (d * d + np.arange(H, dtype=np.float32)).astype(np.float32)


def test_parallel_rows(target):
    f, expected = _rows()
    f.parallel(y)
    check(f, [W, H], target, expected=expected)


def test_parallel_task_size(target):
    outputs = []
    for task_size in (1, 4, 7, 23):
        f, expected = _rows(f"tasks_of_{task_size}")
        f.parallel(y, task_size)
        outputs.append(f)
    check(hl.Pipeline(outputs), [W, H], target, expected=[expected] * 4)


def test_task_size_beyond_the_extent_guarded(target):
    # (Shifting inwards would start the one task before row 0: see test_errors_on_targets.)
    f, expected = _rows()
    f.parallel(y, 64, hl.TailStrategy.GuardWithIf)
    check(f, [W, H], target, expected=expected)


def test_nested_parallel_and_vectorized(target):
    f, expected = _rows()
    xo, xi = hl.Var("xo"), hl.Var("xi")
    f.split(x, xo, xi, 8).parallel(y).parallel(xo).vectorize(xi)
    check(f, [W, H], target, expected=expected)


def test_parallel_producer_at_root(target):
    f, expected = _rows()
    g = hl.Func("g")
    g[x, y] = f[x, y] - 1.0
    f.compute_root().parallel(y)
    g.parallel(y, 3)
    check(g, [W, H], target, expected=expected - np.float32(1.0))


def test_producer_computed_inside_a_parallel_loop(target):
    # Each task allocates its own copy of the producer.
    f, expected = _rows()
    g = hl.Func("g")
    g[x, y] = f[x, y] + f[(x + 1) % W, y]
    f.compute_at(g, y)
    g.parallel(y)
    check(g, [W, H], target, expected=expected + np.roll(expected, -1, axis=0))


def test_parallel_update(target):
    data = ramp_image(np.int32, seed=12) // 1024
    image = hl.Buffer(data, "image")
    r = hl.RDom([(0, W)], "r")
    total = hl.Func("total")
    total[y] = 0
    total[y] += image[r.x, y]
    total.update(0).parallel(y)
    check(total, [H], target, expected=data.sum(axis=1).astype(np.int32))


def test_hl_num_threads_sets_the_host_thread_count(monkeypatch):
    """Halide's HL_NUM_THREADS: the host's native pool grows to that many threads (the caller's
    included) for a loop with enough tasks; every count gives the same rows."""
    from webhal.runners.host import thread_pool_size

    for threads in (1, 3, 5):
        monkeypatch.setenv("HL_NUM_THREADS", str(threads))
        f, expected = _rows(f"rows_on_{threads}_threads")
        f.parallel(y)
        if fused_multiply_add("host"):  # x * x + y rounded once (exact in float64 here)
            d = DATA.T.astype(np.float64)
            expected = (d * d + np.arange(H)).astype(np.float32)
        np.testing.assert_array_equal(np.asarray(f.realize([W, H], hl.Target("host"))),
                                      expected.T)
        assert thread_pool_size() >= threads
