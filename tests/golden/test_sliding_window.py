"""Halide's blur app schedule (blur_x stored per strip, computed per row) slides and folds:
each row of blur_x is computed once into a circular buffer of 4 rows."""

import numpy as np
import pytest

import webhal as hl

TARGETS = ["host", "wasm-32-wasmrt", "wasm-32-wasmrt-wasm_simd128"]


def blur_app():
    x, y, yi = hl.Var("x"), hl.Var("y"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(16), 2, "input")
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.split(y, y, yi, 8).parallel(y).vectorize(x, 8)
    bx.store_at(by, y).compute_at(by, yi).vectorize(x, 8)
    data = np.random.default_rng(0).integers(0, 65536, (45, 70), dtype=np.uint16)
    inp.set(hl.Buffer(data))
    return by, inp


def test_rows_are_computed_once_into_a_folded_buffer(tmp_path):
    by, inp = blur_app()
    path = tmp_path / "blur.stmt"
    by.compile_to_lowered_stmt(str(path), [inp], "blur", hl.Target("wasm-32-wasmrt-wasm_simd128"))
    text = path.read_text()
    assert "allocate blur_x[uint16 * (blur_x.extent.0 * 4)]" in text  # 3 rows live, folded to 4
    assert "let blur_x.y.min = select((blur_y.s0.y.yi > 0)" in text   # later rows: only new ones
    assert "bitwise_and(blur_x.s0.y, 3)" in text


@pytest.mark.parametrize("target", TARGETS)
def test_matches_reference(target):
    by, _ = blur_app()
    expected = np.asarray(by.realize([68, 43], hl.Target("reference")))
    np.testing.assert_array_equal(np.asarray(by.realize([68, 43], hl.Target(target))), expected)
