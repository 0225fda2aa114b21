"""`min(u64 sum, 67)` of a uint64 sum near 2**63 read through `repeat_image` of a 2-D image: Halide
21 gives the sum itself (2**63 - 1, although min(2**63 - 1, 67) is 67, and no value there wraps),
from the differential tester's seed 1727. webhal gives the minimum on every target; the decision is
in docs/semantics.md (Where Halide itself is wrong)."""

import numpy as np

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")


def test_min_of_a_uint64_sum_near_the_int64_limit(target):
    data = np.tile(np.float32([-5.0, 0.0, 1.0, 50.0]), (2, 1))
    b = hl.BoundaryConditions.repeat_image(hl.Buffer(data, "in"))
    f = hl.Func("f")
    # Halide's rules make min(uint64, 67) an int64: the sum wraps into int64's negatives
    f[x, y] = hl.min(hl.cast(hl.UInt(64), 2**63 - 1)
                     + hl.cast(hl.UInt(64), hl.clamp(b[x, y], 0.0, 2000000000.0)), 67)
    u = np.clip(data, 0, 2e9).astype(np.uint64)
    wrapped = (np.uint64(2**63 - 1) + u).view(np.int64)
    expected = np.minimum(wrapped, 67)
    assert expected[0, 0] == 67 and expected[0, 2] == -2**63
    check(f, [4, 2], target, expected=expected.T)
