"""Pipeline and ImageParam APIs of Halide's lessons 19 and 22: infer_arguments,
compile_to_module, invalidate_cache, ImageParam.in_, and a wrapper computed at a tile of its
consumer whose loops vectorize and unroll (their extents are constants once the lets around
them are known)."""

import numpy as np

import webhal as hl
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType
from webhal.ir.visitor import walk
from webhal.jit import compile_jit

x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))


def _transpose():
    inp, out = hl.Func("inp"), hl.Func("transposed")
    inp[x, y] = hl.u16(x + 3 * y)
    inp.compute_root()
    out[x, y] = inp[y, x]
    out.tile(x, y, xi, yi, 8, 8).vectorize(xi).unroll(yi)
    block = inp.in_(out).compute_at(out, x).vectorize(x).unroll(y)
    block.in_(out).reorder_storage(y, x).compute_at(out, x).vectorize(x).unroll(y)
    return out


def test_block_transpose_through_wrappers_vectorizes_and_unrolls():
    out = _transpose()
    want = np.asarray(out.realize([40, 24], "reference"))
    np.testing.assert_array_equal(np.asarray(out.realize([40, 24], "host")), want)
    _, lowered = compile_jit(hl.Pipeline(out), hl.Target("host"))
    loops = [n.name for n in walk(lowered.body) if isinstance(n, st.For)]
    assert not any(name.startswith("inp_in_transposed.s0") for name in loops), loops


def test_infer_arguments_compile_to_module_and_invalidate_cache():
    img = hl.ImageParam(hl.UInt(8), 2, "img")
    gain = hl.Param(hl.Float(32), "gain", 2.0)
    f = hl.Func("scaled")
    f[x, y] = hl.u8(hl.min(hl.f32(img[x, y]) * gain, 255.0))
    p = hl.Pipeline(f)
    args = p.infer_arguments()
    assert args == [img, gain]
    module = p.compile_to_module(args, "scaled", hl.Target("host"))
    assert module.name == "scaled" and [a.name() for a in module.arguments] == ["img", "gain"]
    img.set(hl.Buffer(np.full((4, 6), 100, np.uint8)))
    first, _ = compile_jit(p, hl.Target("host"))
    p.realize([6, 4], "host")
    p.invalidate_cache()
    again, _ = compile_jit(p, hl.Target("host"))
    assert again is not first  # compiled anew
    assert np.asarray(p.realize([6, 4], "host")).max() == 200


def test_image_param_wrapper_stages_tiles_of_the_input():
    img = hl.ImageParam(hl.Int(32), 2, "img")
    blur = hl.Func("blur")
    blur[x, y] = sum(img[x + dx, y + dy] for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    wrapper = img.in_(blur)
    assert wrapper.name() == "img_in_blur" and img.in_(blur) is wrapper
    blur.compute_root().tile(x, y, xo, yo, xi, yi, 8, 8)
    wrapper.compute_at(blur, xo).vectorize(hl._0, 4)
    data = hl.Buffer(np.arange(40 * 30, dtype=np.int32).reshape(30, 40))
    data.set_min([-1, -1])
    img.set(data)
    want = np.asarray(blur.realize([38, 28], "reference"))
    np.testing.assert_array_equal(np.asarray(blur.realize([38, 28], "host")), want)
    _, lowered = compile_jit(hl.Pipeline(blur), hl.Target("host"))
    produced = [n.name for n in walk(lowered.body) if isinstance(n, st.ProducerConsumer)]
    assert "img_in_blur" in produced


def test_image_param_wrapper_in_gpu_threads(vulkan_device):
    img = hl.ImageParam(hl.Int(32), 2, "gpu_img")
    out = hl.Func("doubled")
    out[x, y] = img[x, y] * 2 + img[x + 1, y]
    out.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    img.in_(out).compute_at(out, xo).gpu_threads(hl._0, hl._1)
    img.set(hl.Buffer(np.arange(33 * 24, dtype=np.int32).reshape(24, 33)))
    want = np.asarray(out.realize([32, 24], "reference"))
    np.testing.assert_array_equal(np.asarray(out.realize([32, 24], "host-vulkan")), want)
    _, lowered = compile_jit(hl.Pipeline(out), hl.Target("host-vulkan"))
    kernel = next(iter(lowered.kernels.values()))[0]
    assert "gpu_img_in_doubled" in kernel.shared
    assert any(n.for_type is ForType.GPUThread for n in walk(kernel.body)
               if isinstance(n, st.For))


def test_partition_policies_change_the_loops_not_the_values():
    img = hl.Buffer(np.arange(37 * 23, dtype=np.uint8).reshape(23, 37), "part_img")
    clamped = hl.BoundaryConditions.repeat_edge(img)
    results = {}
    for policy in (hl.Partition.Auto, hl.Partition.Never, hl.Partition.Always):
        f = hl.Func(f"blur_{policy.name.lower()}")
        f[x, y] = clamped[x - 1, y] // 2 + clamped[x + 1, y] // 2
        f.vectorize(x, 8).partition(x, policy).partition(y, policy)
        _, lowered = compile_jit(hl.Pipeline(f), hl.Target("host"))
        results[policy] = np.asarray(f.realize([37, 23], "host"))
        loops = sum(1 for n in walk(lowered.body) if isinstance(n, st.For))
        results[policy.name] = loops
    np.testing.assert_array_equal(results[hl.Partition.Never], results[hl.Partition.Auto])
    np.testing.assert_array_equal(results[hl.Partition.Always], results[hl.Partition.Auto])
    assert results["Never"] < results["Auto"] <= results["Always"]


def test_host_supports_target_device_and_copy_to_host(vulkan_device):
    assert hl.host_supports_target_device(hl.Target("host"))
    assert hl.host_supports_target_device(hl.Target("host-vulkan"))
    assert not hl.host_supports_target_device(hl.Target("host-cuda"))
    f = hl.Func("on_gpu")
    f[x] = x * 3
    f.gpu_tile(x, xo, xi, 8)
    out = f.realize([16], "host-vulkan")
    assert out.copy_to_host() == 0 and out.device_sync() == 0  # host memory is current
    assert list(np.asarray(out)) == [3 * i for i in range(16)]
