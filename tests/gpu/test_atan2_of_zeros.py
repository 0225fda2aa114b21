"""atan2 in GPU kernels gives C's answers for two zeros: +-0 or +-pi by the zeros' signs.
WGSL's atan2 and GLSL.std.450's Atan2 leave atan2(0, 0) undefined (lavapipe gave 3pi/4, so
`atan2(0 * v, (x - y) * 0)` was 2.356 where Halide gives 0: the differential tester's GPU seed
1008); the CPU targets call libm."""

import numpy as np

import webhal as hl

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
Y = np.float32([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.0, -0.0, 2.5, -3.0, 0.0])
X = np.float32([0.0, 0.0, -0.0, -0.0, 0.0, -0.0, 1.0, -1.0, -2.0, 4.0, np.inf])


def _atan2(target: str) -> np.ndarray:
    f = hl.Func("f")
    f[x] = hl.atan2(hl.Buffer(Y, "y")[x], hl.Buffer(X, "x")[x])
    if target != "reference":
        f.split(x, xo, xi, 4, hl.TailStrategy.GuardWithIf).gpu_blocks(xo).gpu_threads(xi)
    return np.asarray(f.realize([len(Y)], hl.Target(target)))


def _check(got: np.ndarray) -> None:
    want = np.arctan2(Y, X)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=0)  # (built-ins: a few ulp)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0 and -pi too


def test_reference():
    _check(_atan2("reference"))


def test_webgpu(wgpu_adapter):
    _check(_atan2("host-webgpu"))


def test_vulkan(vulkan_device):
    _check(_atan2("host-vulkan"))


def test_float16_on_vulkan(vulkan_device):
    f = hl.Func("f")
    f[x] = hl.cast(hl.Float(32), hl.atan2(hl.cast(hl.Float(16), hl.Buffer(Y, "y")[x]),
                                          hl.cast(hl.Float(16), hl.Buffer(X, "x")[x])))
    f.split(x, xo, xi, 4, hl.TailStrategy.GuardWithIf).gpu_blocks(xo).gpu_threads(xi)
    got = np.asarray(f.realize([len(Y)], hl.Target("host-vulkan-vk_float16")))
    np.testing.assert_allclose(got, np.arctan2(Y, X), rtol=2e-3, atol=0)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.arctan2(Y, X)))
