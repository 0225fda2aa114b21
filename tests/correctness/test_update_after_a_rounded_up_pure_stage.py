"""A Func whose pure stage is split with RoundUp computes a few extra points there, but its
update runs over the region its consumers need, as Halide's does: the update must not read an
input past its end (a differential-test finding, seed 522)."""

import numpy as np

import webhal as hl

from .conftest import check

x, y, xi = hl.Var("x"), hl.Var("y"), hl.Var("xi")


def test_update_reads_only_the_required_region(target):
    # in0 covers exactly what f3 needs through f2's update: x + 1 for x in [-1, 31].
    data = (np.arange(2 * 34, dtype=np.float64).reshape(2, 34) % 7) + 1
    in0 = hl.Buffer(data, "in0_exact")
    in0.set_min([1, 0])
    f2, f3 = hl.Func("f2_rounded"), hl.Func("f3_reader")
    f2[x, y] = hl.u32(x + 2)
    f2[x, y] = f2[x, y] * hl.u32(in0[x + 2, y])
    f3[x, y] = hl.u8(f2[x - 1, y])
    f3.split(x, x, xi, 8, hl.TailStrategy.GuardWithIf)
    f2.compute_at(f3, x).split(x, x, xi, 8, hl.TailStrategy.RoundUp)
    f2.update().unscheduled()
    xs = np.arange(33)
    expected = ((xs + 1) * data[:, xs].astype(np.int64) % 256).astype(np.uint8).T
    check(f3, [33, 2], target, expected=expected)
