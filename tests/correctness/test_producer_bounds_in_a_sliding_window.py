"""A producer stored outside its consumer's x loop and computed inside it slides: each iteration
after the first starts past the previous one's max, so its min is a select between the two
(`select(x > x.min, max(x + 2, (x - 1) + 3), x + 2)`). Vectorized with ShiftInwards it computes
[max - 3, max] each iteration, and the input it reads must be bounded through max - min, which
stays constant: webhal bounded the select and the max apart and read 30 columns too far left,
refusing an input exactly as large as Halide requires (differential tester seed 488, issue 15).
"""

import numpy as np

import webhal as hl

from .conftest import check

SIZES = [33, 5]


def _image(left: int) -> tuple[np.ndarray, hl.Buffer]:
    """36 columns from `left`, 5 rows: the region Halide's bounds query asks for."""
    data = (np.arange(5 * 36, dtype=np.uint16) * 7).reshape(5, 36)
    image = hl.Buffer(data, "image")
    image.set_min([left, 0])
    return data, image


def test_vectorized_producer_slid_along_its_consumer(target):
    # The slid min is select(x > x.min, x, x): the same value on both sides.
    x, y = hl.Var("x"), hl.Var("y")
    data, image = _image(-3)
    producer, out = hl.Func("producer"), hl.Func("out")
    producer[x, y] = image[x, y] * 3
    out[x, y] = producer[x, y] + 1
    producer.store_at(out, y).compute_at(out, x).vectorize(x, 4, hl.TailStrategy.ShiftInwards)
    want = data[:, 3:36] * 3 + 1
    check(out, SIZES, target, expected=want.T)


def test_slid_producer_read_at_an_offset_with_its_own_producer(target):
    # The slid min is select(x > x.min, max(x + 2, (x - 1) + 3), x + 2), whose max folds only
    # through the linear form; the inner producer's region is bounded by it too.
    x, y = hl.Var("x"), hl.Var("y")
    data, image = _image(-1)
    inner, producer, out = hl.Func("inner"), hl.Func("producer"), hl.Func("out")
    inner[x, y] = image[x, y] * 3
    producer[x, y] = inner[x, y] + image[x, y]
    out[x, y] = producer[x + 2, y]
    producer.store_at(out, y).compute_at(out, x).vectorize(x, 4, hl.TailStrategy.ShiftInwards)
    inner.compute_at(producer, y)
    want = data[:, 3:36] * 4
    check(out, SIZES, target, expected=want.T)
