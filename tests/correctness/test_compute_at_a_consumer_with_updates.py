"""compute_at(consumer, x) where the consumer has update stages, as Halide's lesson 9 teaches:
with no stage named, the producer is computed inside x of each stage that reads it (once in
the pure stage when only it reads, once per stage when several do), and an RDom names its
first dimension's loop."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x = hl.Var("x")
X = np.arange(10)


def test_read_by_the_pure_stage_only(target):
    producer, consumer = hl.Func("producer"), hl.Func("consumer")
    producer[x] = x * 17
    consumer[x] = 2 * producer[x]
    consumer[x] += 1
    producer.compute_at(consumer, x)
    check(consumer, [10], target, expected=2 * X * 17 + 1)


def test_read_by_two_stages_is_computed_in_each(target):
    producer, consumer = hl.Func("producer"), hl.Func("consumer")
    producer[x] = x * 17
    consumer[x] = producer[x] * x
    consumer[x] += producer[x]
    producer.compute_at(consumer, x)
    check(consumer, [10], target, expected=X * 17 * X + X * 17)


def test_at_the_loop_of_an_rdom(target):
    producer, consumer = hl.Func("producer"), hl.Func("consumer")
    r = hl.RDom([hl.Range(0, 5)], "r")
    producer[x] = x * 3
    consumer[x] = x
    consumer[x] += producer[x + r]
    producer.compute_at(consumer, r)
    want = X + sum((X + k) * 3 for k in range(5))
    check(consumer, [10], target, expected=want)


@pytest.mark.halide
def test_same_as_halide():
    halide = pytest.importorskip("halide")
    got = []
    for hl_ in (hl, halide):
        v = hl_.Var("x")
        producer, consumer = hl_.Func("producer"), hl_.Func("consumer")
        producer[v] = v * 17
        consumer[v] = producer[v] * v
        consumer[v] += producer[v]
        producer.compute_at(consumer, v)
        got.append(np.array(np.asarray(consumer.realize([10]))))
    assert np.array_equal(got[0], got[1])
