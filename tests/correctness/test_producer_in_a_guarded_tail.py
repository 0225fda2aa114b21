"""A Func computed inside the inner loop of a GuardWithIf split: in the tail iterations past
the output's end its region is empty (its extent computes to zero or less), which must neither
fail the allocation nor touch memory. Widths below, at and above the split factor."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")


@pytest.mark.parametrize("width", [5, 11, 16, 20, 33])
@pytest.mark.parametrize("dtype", [np.float64, np.uint8], ids=lambda d: np.dtype(d).name)
def test_producer_at_the_inner_loop_of_a_guarded_split(target, width, dtype):
    data = np.arange(width + 1).astype(dtype)
    inp = hl.Buffer(data, "inp")
    g = hl.Func("g")
    g[x] = inp[x] * 2
    out = hl.Func("out")
    out[x] = g[x] + g[x + 1]
    out.split(x, xo, xi, 16, hl.TailStrategy.GuardWithIf)
    g.compute_at(out, xi)
    expected = (data[:width] * 2 + data[1:] * 2).astype(dtype)
    check(out, [width], target, expected=expected)
