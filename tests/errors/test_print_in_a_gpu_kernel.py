"""hl.print inside a loop scheduled on the GPU: WGSL cannot print; the error says so."""

import webhal as hl

from ._util import expect_error

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")


def test_print_in_a_gpu_kernel(tmp_path):
    f = hl.Func("f")
    f[x] = hl.print(x)
    f.gpu_tile(x, xo, xi, 8)
    with expect_error(hl.CompileError, "hl.print", "GPU kernel", "CPU"):
        f.compile_to_static_library(str(tmp_path / "f"), [], "f",
                                    hl.Target("wasm-32-wasmrt-webgpu"))
