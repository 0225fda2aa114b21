"""Storage directives of Halide's lesson 24: store_at(f, Var.outermost()), hoist_storage,
fold_storage and ring_buffer beside async_(). webhal computes in order, so these change where
and how long storage lives, never the values."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
xo, yo, xi, yi = (hl.Var(n) for n in ("xo", "yo", "xi", "yi"))


def _pair():
    producer, consumer = hl.Func("producer"), hl.Func("consumer")
    producer[x, y, c] = (x + y) * (c + 1)
    consumer[x, y, c] = producer[x - 1, y - 1, c] + producer[x + 1, y + 1, c]
    return producer, consumer


@pytest.mark.parametrize("how", ["outermost_fold", "hoist_ring", "hoist_tiles"])
def test_storage_directives_keep_the_values(target, how):
    producer, consumer = _pair()
    if how == "outermost_fold":
        consumer.compute_root().reorder(x, y, c)
        producer.async_().compute_at(consumer, c).store_at(consumer, hl.Var.outermost()) \
            .fold_storage(c, 2)
    elif how == "hoist_ring":
        consumer.compute_root()
        producer.async_().compute_at(consumer, c).hoist_storage(consumer, hl.Var.outermost()) \
            .ring_buffer(2)
    else:
        consumer.compute_root().tile(x, y, xo, yo, xi, yi, 8, 8)
        producer.async_().compute_at(consumer, xo).hoist_storage(consumer, hl.Var.outermost()) \
            .ring_buffer(2)
    got = check(consumer, [21, 13, 3], target)
    xs, ys, cs = np.meshgrid(np.arange(21), np.arange(13), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(got[0], (xs + ys - 2) * (cs + 1) + (xs + ys + 2) * (cs + 1))


def test_var_outermost_and_fold_storage_mistakes():
    assert hl.Var.outermost().name() == "__outermost"
    producer, _ = _pair()
    with pytest.raises(hl.HalideError, match="fold_storage: Func producer has no pure Var z"):
        producer.fold_storage(hl.Var("z"), 2)
