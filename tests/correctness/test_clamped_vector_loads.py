"""Vector loads through boundary conditions (repeat_edge, clamp): on wasm SIMD a load at
clamp(ramp) indices is a dense load plus an i8x16.swizzle where the row holds a whole vector
(codegen/llvm/clamped_loads.py), and a gather where it does not. Every lane type, rows narrower
than, equal to and wider than the vector, inputs that start away from 0, and stencils reaching
far past the edge must give the reference's values."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")
SIMD = "wasm-32-wasmrt-wasm_simd128"


def _image(dtype, width: int, height: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-100, 100, (height, width)).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, (height, width), dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("width", [5, 15, 16, 17, 53])
def test_repeat_edge_stencil(target, dtype, width):
    img = _image(dtype, width, 6, seed=width)
    buf = hl.Buffer(img, "img")
    buf.set_min([-3, 2])  # the rows start away from 0
    c = hl.BoundaryConditions.repeat_edge(buf)
    f = hl.Func("f")
    f[x, y] = c[x - 9, y] + c[x - 1, y - 1] + c[x + 2, y + 1] + c[x + 40, y]
    f.vectorize(x, 16)
    check(f, [width + 24, 8], target, mins=[-14, 0])


@pytest.mark.parametrize("lanes", [4, 8, 32])
def test_clamp_of_other_vector_widths(target, lanes):
    img = _image(np.uint16, 29, 3, seed=lanes)
    buf = hl.Buffer(img, "img")
    f = hl.Func("f")
    f[x, y] = buf[hl.clamp(x - 3, 2, 20), y] + buf[hl.clamp(x + 5, 0, 28), y]
    f.vectorize(x, lanes)
    check(f, [37, 3], target)


def test_swizzle_in_the_assembly(tmp_path, llvm_wasm):
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    c = hl.BoundaryConditions.repeat_edge(image)
    f = hl.Func("f")
    f[x, y] = c[x - 1, y] + c[x + 1, y]
    f.vectorize(x, 16)
    path = tmp_path / "f.s"
    f.compile_to_assembly(str(path), [image], "f", hl.Target(SIMD))
    assert "i8x16.swizzle" in path.read_text()
