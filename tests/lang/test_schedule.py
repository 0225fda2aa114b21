"""Scheduling directives: what each records, the checks they make, that they leave reference
results unchanged, and the loop nest they print."""

import numpy as np
import pytest

import webhal as hl
from webhal.ir.schedule import ForType, Fuse, Split

from ._helpers import REFERENCE, realize

TS = hl.TailStrategy


def names(*ns):
    return [hl.Var(n) for n in ns]


def schedule_of(stage_or_func, index=0):
    return stage_or_func.function().definitions[index].schedule


def for_types(f, index=0):
    return {d.name: d.for_type for d in schedule_of(f, index).dims}


@pytest.fixture
def f2():
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = x + y
    return f, x, y


# -- loop structure ------------------------------------------------------------------------------

def test_default_loops_are_the_pure_vars_innermost_first(f2):
    f, _, _ = f2
    assert f.loops() == ["x", "y"]
    assert all(t is ForType.Serial for t in for_types(f).values())


@pytest.mark.parametrize("tail", list(hl.TailStrategy))
def test_split_records_loops_factor_and_tail(f2, tail):
    f, x, y = f2
    xo, xi = names("xo", "xi")
    f.split(x, xo, xi, 8, tail)
    assert f.loops() == ["xi", "xo", "y"]
    split = schedule_of(f).splits[-1]
    assert isinstance(split, Split)
    assert (split.old, split.outer, split.inner, split.factor.value, split.tail) == \
        ("x", "xo", "xi", 8, tail)


def test_split_default_tail_is_auto(f2):
    f, x, _ = f2
    f.split(x, *names("xo", "xi"), 4)
    assert schedule_of(f).splits[-1].tail is TS.Auto


def test_split_may_reuse_the_old_name_for_the_outer_loop(f2):
    f, x, _ = f2
    f.split(x, x, hl.Var("xi"), 4)
    assert f.loops() == ["xi", "x", "y"]


def test_split_checks(f2):
    f, x, y = f2
    xo, xi = names("xo", "xi")
    with pytest.raises(hl.ScheduleError, match="positive"):
        f.split(x, xo, xi, 0)
    with pytest.raises(hl.ScheduleError, match="no loop"):
        f.split(hl.Var("z"), xo, xi, 4)
    with pytest.raises(hl.ScheduleError, match="already has a loop"):
        f.split(x, y, xi, 4)
    with pytest.raises(hl.ScheduleError, match="integer"):
        f.split(x, xo, xi, 2.5)


def test_fuse(f2):
    f, x, y = f2
    xy = hl.Var("xy")
    f.fuse(x, y, xy)
    assert f.loops() == ["xy"]
    assert schedule_of(f).splits[-1] == Fuse("x", "y", "xy")


def test_tile_with_outer_names(f2):
    f, x, y = f2
    xo, yo, xi, yi = names("xo", "yo", "xi", "yi")
    f.tile(x, y, xo, yo, xi, yi, 8, 4)
    assert f.loops() == ["xi", "yi", "xo", "yo"]
    factors = [(s.old, s.factor.value) for s in schedule_of(f).splits]
    assert factors == [("x", 8), ("y", 4)]


def test_tile_reusing_the_old_names_and_a_tail(f2):
    f, x, y = f2
    xi, yi = names("xi", "yi")
    f.tile(x, y, xi, yi, 16, 16, TS.GuardWithIf)
    assert f.loops() == ["xi", "yi", "x", "y"]
    assert {s.tail for s in schedule_of(f).splits} == {TS.GuardWithIf}


def test_reorder(f2):
    f, x, y = f2
    f.reorder(y, x)
    assert f.loops() == ["y", "x"]
    g = hl.Func("g")
    c = hl.Var("c")
    g[x, y, c] = x
    g.reorder(c, x, y)
    assert g.loops() == ["c", "x", "y"]
    g.reorder([y, c])  # a list works too; the named loops swap their slots
    assert g.loops() == ["y", "x", "c"]
    with pytest.raises(hl.ScheduleError, match="twice"):
        g.reorder(x, x)


@pytest.mark.parametrize("directive, kind", [("vectorize", ForType.Vectorized),
                                             ("unroll", ForType.Unrolled),
                                             ("parallel", ForType.Parallel)])
def test_loop_kinds_without_factor(f2, directive, kind):
    f, x, y = f2
    getattr(f, directive)(y if directive == "parallel" else x)
    assert for_types(f)["y" if directive == "parallel" else "x"] is kind
    assert f.loops() == ["x", "y"]


def test_vectorize_and_unroll_with_factor_split_off_the_inner_loop(f2):
    f, x, y = f2
    f.vectorize(x, 8)
    assert f.loops() == ["x_vi", "x", "y"]
    assert for_types(f)["x_vi"] is ForType.Vectorized and for_types(f)["x"] is ForType.Serial
    assert schedule_of(f).splits[-1].factor.value == 8
    f.unroll(y, 2, TS.RoundUp)
    assert f.loops() == ["x_vi", "x", "y_ui", "y"]
    assert for_types(f)["y_ui"] is ForType.Unrolled
    assert schedule_of(f).splits[-1].tail is TS.RoundUp


def test_parallel_with_task_size_keeps_the_outer_loop_parallel(f2):
    f, x, y = f2
    f.parallel(y, 4)
    assert f.loops() == ["x", "y_pi", "y"]
    assert for_types(f)["y"] is ForType.Parallel
    assert for_types(f)["y_pi"] is ForType.Serial


def test_directives_chain(f2):
    f, x, y = f2
    xo, xi = names("xo", "xi")
    assert f.split(x, xo, xi, 4).vectorize(xi).parallel(y) is f


def test_tile_with_lists_in_any_number_of_dimensions():
    x, y, z = names("x", "y", "z")
    f = hl.Func("f")
    f[x, y, z] = x + y + z
    xo, yo, zo, xi, yi, zi = names("xo", "yo", "zo", "xi", "yi", "zi")
    f.tile([x, y, z], [xo, yo, zo], [xi, yi, zi], [8, 4, 2], TS.RoundUp)
    assert f.loops() == ["xi", "yi", "zi", "xo", "yo", "zo"]
    assert [s.factor.value for s in schedule_of(f).splits] == [8, 4, 2]
    assert {s.tail for s in schedule_of(f).splits} == {TS.RoundUp}
    g = hl.Func("g")
    g[x, y] = x
    g.tile([x, y], [xo, yo], [x, y], [8, 8])  # inner loops may keep the Vars' names
    assert g.loops() == ["x", "y", "xo", "yo"]
    with pytest.raises(hl.ScheduleError, match="four lists of one length"):
        g.tile([x, y], [xo], [xi, yi], [8, 8])


# -- GPU -----------------------------------------------------------------------------------------

def test_gpu_blocks_and_threads_up_to_three_dimensions():
    x, y, z = hl.Var("x"), hl.Var("y"), hl.Var("z")
    f = hl.Func("f")
    f[x, y, z] = x
    xo, yo, zo, xi, yi, zi = names("xo", "yo", "zo", "xi", "yi", "zi")
    f.split(x, xo, xi, 4).split(y, yo, yi, 4).split(z, zo, zi, 2)
    f.reorder(xi, yi, zi, xo, yo, zo)
    f.gpu_threads(xi, yi, zi).gpu_blocks(xo, yo, zo)
    kinds = for_types(f)
    assert [kinds[n] for n in ("xi", "yi", "zi")] == [ForType.GPUThread] * 3
    assert [kinds[n] for n in ("xo", "yo", "zo")] == [ForType.GPUBlock] * 3
    assert {d.device_api for d in schedule_of(f).dims} == {hl.DeviceAPI.Default_GPU}
    with pytest.raises(hl.ScheduleError, match="1 to 3"):
        f.gpu_blocks(*names("xo", "yo", "zo", "xi"))


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_gpu_tile_with_block_names(dims):
    vs = names("x", "y", "z")[:dims]
    f = hl.Func("f")
    f[tuple(vs)] = vs[0]
    blocks = names("bx", "by", "bz")[:dims]
    threads = names("tx", "ty", "tz")[:dims]
    sizes = [16, 8, 2][:dims]
    f.gpu_tile(*vs, *blocks, *threads, *sizes)
    assert f.loops() == [t.name() for t in threads] + [b.name() for b in blocks]
    kinds = for_types(f)
    assert all(kinds[t.name()] is ForType.GPUThread for t in threads)
    assert all(kinds[b.name()] is ForType.GPUBlock for b in blocks)
    assert [s.factor.value for s in schedule_of(f).splits] == sizes


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_gpu_tile_without_block_names(dims):
    vs = names("x", "y", "z")[:dims]
    f = hl.Func("f")
    f[tuple(vs)] = vs[0]
    threads = names("tx", "ty", "tz")[:dims]
    f.gpu_tile(*vs, *threads, *[4] * dims, TS.RoundUp)
    assert f.loops() == [t.name() for t in threads] + [v.name() for v in vs]
    assert all(for_types(f)[v.name()] is ForType.GPUBlock for v in vs)
    assert {s.tail for s in schedule_of(f).splits} == {TS.RoundUp}


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("named_blocks", [True, False])
def test_gpu_tile_takes_a_tail_and_a_device_api_after_the_sizes(dims, named_blocks):
    vs = names("x", "y", "z")[:dims]
    blocks = names("bx", "by", "bz")[:dims] if named_blocks else []
    threads = names("tx", "ty", "tz")[:dims]
    f = hl.Func("f")
    f[tuple(vs)] = vs[0]
    f.gpu_tile(*vs, *blocks, *threads, *[4] * dims, TS.GuardWithIf, hl.DeviceAPI.WebGPU)
    assert f.loops() == [v.name() for v in threads + (blocks or vs)]
    assert {s.tail for s in schedule_of(f).splits} == {TS.GuardWithIf}
    assert {d.device_api for d in schedule_of(f).dims
            if d.for_type is not ForType.Serial} == {hl.DeviceAPI.WebGPU}


def test_gpu_tile_tail_and_device_api_by_keyword(f2):
    f, x, y = f2
    f.gpu_tile(x, y, *names("bx", "by", "tx", "ty"), 8, 8, tail=TS.RoundUp,
               device_api=hl.DeviceAPI.WebGPU)
    assert {s.tail for s in schedule_of(f).splits} == {TS.RoundUp}
    assert schedule_of(f).dims[0].device_api is hl.DeviceAPI.WebGPU
    g = hl.Func("g")
    g[x] = x
    g.gpu_tile(x, hl.Var("tx"), 16, device_api=hl.DeviceAPI.WebGPU)
    assert g.loops() == ["tx", "x"]


def test_gpu_blocks_and_threads_take_a_device_api_last(f2):
    f, x, y = f2
    f.gpu_threads(x, hl.DeviceAPI.WebGPU).gpu_blocks(y, hl.DeviceAPI.WebGPU)
    assert {d.device_api for d in schedule_of(f).dims} == {hl.DeviceAPI.WebGPU}
    with pytest.raises(hl.ScheduleError, match="DeviceAPI"):
        f.gpu_blocks(y, device_api="webgpu")


def test_gpu_tile_with_a_wrong_number_of_arguments(f2):
    f, x, y = f2
    with pytest.raises(hl.ScheduleError, match="gpu_tile takes"):
        f.gpu_tile(x, y, hl.Var("tx"), 8, 8)


def test_gpu_threads_need_blocks_around_them(f2):
    f, x, _ = f2
    f.gpu_threads(x)
    with pytest.raises(hl.ScheduleError, match="block"):
        f.realize([4, 4], REFERENCE)


# -- where Funcs are computed and stored ---------------------------------------------------------

@pytest.fixture
def chain():
    x, y = hl.Var("x"), hl.Var("y")
    producer = hl.Func("producer")
    producer[x, y] = x * y
    consumer = hl.Func("consumer")
    consumer[x, y] = producer[x, y] + producer[x + 1, y]
    return producer, consumer, x, y


def test_compute_levels_are_recorded(chain):
    producer, consumer, x, y = chain
    s = producer.function().schedule
    assert s.compute_level.is_inlined() and s.store_level.is_inlined()
    producer.compute_root()
    assert s.compute_level.is_root() and s.store_level.is_root()
    producer.compute_at(consumer, y)
    assert str(s.compute_level) == "consumer.y"
    producer.store_at(consumer, y)
    assert str(s.store_level) == "consumer.y"
    producer.store_root().compute_at(consumer, x)
    assert str(s.compute_level) == "consumer.x" and s.store_level.is_root()
    producer.compute_inline()
    assert s.compute_level.is_inlined()
    producer.compute_at(hl.LoopLevel.root())
    assert s.compute_level == hl.LoopLevel.root()


def test_compute_at_a_loop_made_by_a_split(chain):
    producer, consumer, x, y = chain
    yo, yi = names("yo", "yi")
    consumer.split(y, yo, yi, 2)
    producer.compute_at(consumer, yo)
    consumer.realize([4, 4], REFERENCE)  # validates
    with pytest.raises(hl.ScheduleError, match="no loop"):
        producer.compute_at(consumer, y)
        consumer.realize([4, 4], REFERENCE)


def test_compute_at_a_func_that_does_not_use_it_is_an_error(chain):
    producer, consumer, x, y = chain
    other = hl.Func("other")
    other[x, y] = x
    producer.compute_at(other, x)
    with pytest.raises(hl.ScheduleError, match="does not use"):
        consumer.realize([2, 2], REFERENCE)


def test_storage_inside_computation_is_an_error(chain):
    producer, consumer, x, y = chain
    producer.compute_at(consumer, y).store_at(consumer, x)
    with pytest.raises(hl.ScheduleError, match="stored at"):
        consumer.realize([2, 2], REFERENCE)


def test_compute_inline_of_a_func_with_updates_is_an_error(chain):
    producer, _, x, y = chain
    producer[0, y] = 1
    with pytest.raises(hl.CompileError, match="inlined"):
        producer.compute_inline()


def test_bound_and_store_in(chain):
    producer, consumer, x, y = chain
    consumer.bound(x, 0, 64).bound(y, -2, 8)
    bounds = consumer.function().schedule.bounds
    assert {k: (v[0].value, v[1].value) for k, v in bounds.items()} == \
        {"x": (0, 64), "y": (-2, 8)}
    with pytest.raises(hl.CompileError, match="no pure Var"):
        consumer.bound(hl.Var("z"), 0, 4)
    producer.store_in(hl.MemoryType.Stack)
    assert producer.function().schedule.memory_type is hl.MemoryType.Stack


# -- update stages -------------------------------------------------------------------------------

def test_update_stages_have_their_own_loops():
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom([(0, 4)], "r")
    f = hl.Func("f")
    f[x, y] = x
    f[x, y] += r
    f[x, 0] = f[x, 0] * 2
    assert f.num_update_definitions() == 2
    assert f.update(0).loops() == ["r$x", "x", "y"]
    assert f.update(1).loops() == ["x"]
    f.update(0).unroll(r.x).vectorize(x, 4).parallel(y)
    kinds = for_types(f, 1)
    assert kinds["r$x"] is ForType.Unrolled and kinds["x_vi"] is ForType.Vectorized
    assert kinds["y"] is ForType.Parallel
    assert f.loops() == ["x", "y"]  # the pure stage is untouched
    assert f.update(1).name() == "f.update(1)"
    with pytest.raises(hl.CompileError, match="update"):
        f.update(2)


def test_rvar_loops_cannot_be_parallel_or_vectorized():
    x = hl.Var("x")
    r = hl.RDom([(0, 4)], "r")
    f = hl.Func("f")
    f[x] = 0
    f[r] += 1
    with pytest.raises(hl.ScheduleError, match="RVar"):
        f.update(0).parallel(r.x)
    with pytest.raises(hl.ScheduleError, match="RVar"):
        f.update(0).vectorize(r.x)


# -- schedules do not change results -------------------------------------------------------------

def _schedule_none(bx, by, x, y):
    pass


def _schedule_root_tiles(bx, by, x, y):
    xo, yo, xi, yi = names("xo", "yo", "xi", "yi")
    bx.compute_root().vectorize(x, 4)
    by.tile(x, y, xo, yo, xi, yi, 8, 8, TS.GuardWithIf).parallel(yo)


def _schedule_compute_at(bx, by, x, y):
    yo, yi = names("yo", "yi")
    by.split(y, yo, yi, 4, TS.ShiftInwards).vectorize(x, 8, TS.RoundUp)
    bx.store_at(by, yo).compute_at(by, yi).unroll(x, 2)


def _schedule_gpu(bx, by, x, y):
    bx.compute_root().gpu_tile(x, y, *names("xi", "yi"), 16, 16)
    by.gpu_tile(x, y, *names("bx", "by", "tx", "ty"), 8, 8)


def _schedule_fused(bx, by, x, y):
    xy = hl.Var("xy")
    bx.compute_root().fuse(x, y, xy).parallel(xy)
    by.reorder(y, x).bound(x, 0, 37).bound(y, 0, 23)


@pytest.mark.parametrize("schedule", [_schedule_none, _schedule_root_tiles, _schedule_compute_at,
                                      _schedule_gpu, _schedule_fused])
def test_schedules_do_not_change_reference_results(schedule):
    data = np.random.default_rng(9).integers(0, 256, (23, 37), dtype=np.uint8)
    x, y = hl.Var("x"), hl.Var("y")
    clamped = hl.BoundaryConditions.repeat_edge(hl.Buffer(data))
    bx = hl.Func("bx")
    bx[x, y] = hl.u16(clamped[x - 1, y]) + clamped[x, y] + clamped[x + 1, y]
    by = hl.Func("by")
    by[x, y] = hl.u8((bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 9)
    schedule(bx, by, x, y)
    p = np.pad(data, 1, mode="edge").astype(np.uint16)
    h = p[:, :-2] + p[:, 1:-1] + p[:, 2:]
    expect = ((h[:-2] + h[1:-1] + h[2:]) // 9).astype(np.uint8)
    np.testing.assert_array_equal(realize(by, [37, 23]), expect)


# -- print_loop_nest -----------------------------------------------------------------------------

def test_print_loop_nest_default(f2, capsys):
    f, _, _ = f2
    f.print_loop_nest()
    out = capsys.readouterr().out
    assert out.splitlines() == ["produce f:", "  for f.s0.y:", "    for f.s0.x:",
                                "      f(..., ...) = ..."]


def test_print_loop_nest_shows_the_schedule(chain, capsys):
    producer, consumer, x, y = chain
    r = hl.RDom([(0, 3)], "r")
    consumer[x, y] += r
    xo, yo, xi, yi = names("xo", "yo", "xi", "yi")
    consumer.tile(x, y, xo, yo, xi, yi, 8, 8).vectorize(xi, 4).parallel(yo)
    consumer.update(0).unroll(r.x)
    producer.compute_at(hl.LoopLevel(consumer, "xo", 0))
    consumer.print_loop_nest()
    out = capsys.readouterr().out
    lines = [ln.strip() for ln in out.splitlines()]
    expected_in_order = ["produce consumer:", "parallel consumer.s0.yo:", "for consumer.s0.xo:",
                         "produce producer:", "for producer.s0.y:", "for producer.s0.x:",
                         "for consumer.s0.yi:", "for consumer.s0.xi:",
                         "vectorized consumer.s0.xi_vi:", "for consumer.s1.y:",
                         "for consumer.s1.x:", "unrolled consumer.s1.r$x:"]
    positions = [lines.index(e) for e in expected_in_order]
    assert positions == sorted(positions)
    # The producer is nested inside the consumer's xo loop.
    indent = {ln.strip(): len(ln) - len(ln.lstrip()) for ln in out.splitlines()}
    assert indent["produce producer:"] > indent["for consumer.s0.xo:"]


def test_print_loop_nest_of_gpu_and_compute_root(chain, capsys):
    producer, consumer, x, y = chain
    producer.compute_root()
    consumer.gpu_tile(x, y, *names("bx", "by", "tx", "ty"), 16, 16)
    consumer.print_loop_nest()
    out = capsys.readouterr().out
    assert out.index("produce producer:") < out.index("produce consumer:")
    for loop in ("gpu_block consumer.s0.by:", "gpu_block consumer.s0.bx:",
                 "gpu_thread consumer.s0.ty:", "gpu_thread consumer.s0.tx:"):
        assert loop in out
