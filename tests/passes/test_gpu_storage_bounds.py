"""The constant upper bound that GPU storage of a varying extent gets (offload_gpu_loops):
through modulo, min/max, and the ranges of the loops around the allocation."""

from webhal.analysis.intervals import Interval
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.passes.offload_gpu_loops import _size_bound, const_bound

k, t, n = ops.var("k"), ops.var("t"), ops.var("n")


def test_a_footprint_read_modulo_a_constant_is_bounded():
    m = ir.Mod(k, ops.const(8))
    extent = ops.add(ops.sub(ir.Max(m, ops.const(7)), ir.Min(m, ops.const(0))), ops.const(1))
    assert const_bound(extent, upper=True) == 8


def test_a_footprint_that_follows_a_loop_index_is_bounded_by_its_range():
    loops = {"t": Interval(ops.const(0), ops.const(3))}
    assert _size_bound(ops.var("f.extent.0"), {"f.extent.0": ops.add(t, ops.const(2))},
                       loops) == (5, None)


def test_an_extent_without_a_bound_is_named_as_written():
    size = ops.mul(ops.var("f.extent.0"), ops.var("f.extent.1"))
    lets = {"f.extent.0": ops.const(4), "f.extent.1": ops.add(n, ops.const(1))}
    assert _size_bound(size, lets, {}) == (None, ops.var("f.extent.1"))
