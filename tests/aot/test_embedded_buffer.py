"""An hl.Buffer read by a compiled pipeline but given as no argument is compiled in (data and
dimensions, as Halide embeds it), on the host and in wasm; a GPU kernel reading one is refused."""

import numpy as np
import pytest

import webhal as hl


def _pipeline(hl):
    x, y = hl.Var("x"), hl.Var("y")
    data = hl.Buffer(np.arange(12, dtype=np.int16).reshape(3, 4) - 5, "table")
    data.set_min([1, 2])
    scale = hl.Param(hl.Int(16), "scale")
    f = hl.Func("f")
    f[x, y] = data[x, y] * scale + hl.i16(x)
    return f, scale, data


def _run(hl, target):
    f, scale, _ = _pipeline(hl)
    call = f.compile_to_callable([scale], hl.Target(target))
    out = hl.Buffer(hl.Int(16), [4, 3])
    out.set_min([1, 2])
    call(3, out)
    return np.asarray(out).copy()


EXPECTED = (np.arange(12, dtype=np.int16).reshape(3, 4) - 5) * 3 + np.arange(1, 5)


def test_host():
    np.testing.assert_array_equal(_run(hl, "host"), EXPECTED)


def test_wasm(wasmtime_engine):
    np.testing.assert_array_equal(_run(hl, "wasm-32-wasmrt-wasm_simd128"), EXPECTED)


def test_a_gpu_kernel_reading_one_is_refused():
    f, scale, _ = _pipeline(hl)
    f.gpu_tile(f.args()[0], f.args()[1], hl.Var("xi"), hl.Var("yi"), 2, 2)
    with pytest.raises(hl.CompileError, match="GPU kernels read Buffer table, which is compiled "
                       "into the pipeline"):
        f.compile_to_callable([scale], hl.Target("host-webgpu"))


@pytest.mark.halide
def test_as_halide():
    halide = pytest.importorskip("halide")
    np.testing.assert_array_equal(_run(halide, "host"), EXPECTED)
