"""A GPU API webhal has no backend for yet (CUDA, Metal, ...), in the target or in a schedule,
or one the target does not have: refused before anything is written, never compiled for another
API instead."""

import os

import webhal as hl

from ._util import expect_error

x, y, xi, yi = (hl.Var(n) for n in ("x", "y", "xi", "yi"))


def _shade() -> hl.Func:
    shade = hl.Func("shade")
    shade[x, y] = x + y
    return shade


def test_static_library_for_a_cuda_target(tmp_path):
    shade = _shade()
    shade.gpu_tile(x, y, xi, yi, 8, 8)
    prefix = str(tmp_path / "shade")
    with expect_error(hl.CompileError, "cuda feature is not supported", "use -webgpu or -vulkan"):
        shade.compile_to_static_library(prefix, [], "shade", hl.Target("host-cuda"))
    assert os.listdir(tmp_path) == []


def test_webgpu_and_vulkan_in_one_target(tmp_path):
    shade = _shade()
    shade.gpu_tile(x, y, xi, yi, 8, 8)
    with expect_error(hl.CompileError, "both webgpu and vulkan", "keep one"):
        shade.compile_to_lowered_stmt(str(tmp_path / "shade.stmt"), [], "shade",
                                      hl.Target("host-webgpu-vulkan"))


def test_direct3d_target_is_halides_name_but_has_no_backend(tmp_path):
    shade = _shade()
    target = hl.Target("host").with_feature(hl.TargetFeature.D3D12Compute)
    assert target.has_gpu_feature()
    with expect_error(hl.CompileError, "d3d12compute feature is not supported"):
        shade.compile_to_lowered_stmt(str(tmp_path / "shade.stmt"), [], "shade", target)


def test_vulkan_device_api_on_a_webgpu_target(tmp_path):
    shade = _shade()
    shade.gpu_tile(x, y, xi, yi, 8, 8, hl.TailStrategy.Auto, hl.DeviceAPI.Vulkan)  # <- error
    with expect_error(hl.ScheduleError, "Func shade", "DeviceAPI.Vulkan",
                      "does not have", "use a -vulkan target"):
        shade.compile_to_lowered_stmt(str(tmp_path / "shade.stmt"), [], "shade",
                                      hl.Target("host-webgpu"))
