"""Every 16-bit value divided by constants in vectors of 8, 16 and 32 lanes: the multiply by a
magic number is done by pmulhuw on x86 hosts (its high half; a widened multiply elsewhere, as in
test_division_modulo on every target), so each vector width, signedness and magic number's
shift is checked against numpy on all 65536 inputs, on the host."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x = hl.Var("x")
DIVISORS = (3, 5, 6, 7, 9, 10, 13, 100, 255, 641, 1000, 32767)


@pytest.mark.parametrize("lanes", [8, 16, 32])
@pytest.mark.parametrize("dtype", [np.uint16, np.int16], ids=lambda d: np.dtype(d).name)
def test_every_value(dtype, lanes):
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype)
    a = hl.Buffer(values, "a")
    funcs, expected = [], []
    for k in DIVISORS:
        f = hl.Func(f"by_{k}")
        f[x] = a[x] / hl.cast(a.type(), k) + a[x] % hl.cast(a.type(), k) * 1000
        f.vectorize(x, lanes)
        funcs.append(f)
        wide = values.astype(np.int64)  # floor division: Halide's for positive divisors
        expected.append((wide // k + (wide % k) * 1000).astype(dtype))
    check(hl.Pipeline(funcs), [values.size], "host", expected=expected)
