"""Host and wasm code are optimized as Halide's default LLVM pipeline does: without LLVM's own
loop unrolling (the schedule unrolls what it asks for). LLVM's runtime unrolling by 4 of every
inner loop cost a third more code and made Loop Strength Reduction most of the machine-code
time of the JIT (issue 31)."""

import re

import numpy as np

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")


def _pipeline():
    inp = hl.ImageParam(hl.Float(32), 2, "inp")
    f = hl.Func("f")
    f[x, y] = inp[x, y] * 2.0 + 1.0
    f.vectorize(x, 4)
    return f, inp


def test_inner_loops_not_unrolled_by_llvm(tmp_path):
    f, inp = _pipeline()
    path = tmp_path / "f.s"
    f.compile_to_assembly(str(path), [inp], "f", hl.Target("x86-64-linux-sse41"))
    stores = re.findall(r"^\s+movups\s+%xmm\d+, ", path.read_text(), re.M)
    # the vectorized loop and its shifted-inward last vector (LLVM's unrolling made 36)
    assert 1 <= len(stores) <= 4, len(stores)


def test_unrolled_by_the_schedule_still(tmp_path):
    f, inp = _pipeline()
    f.unroll(y, 2)
    path = tmp_path / "f.s"
    f.compile_to_assembly(str(path), [inp], "f", hl.Target("x86-64-linux-sse41"))
    stores = re.findall(r"^\s+movups\s+%xmm\d+, ", path.read_text(), re.M)
    assert 2 <= len(stores) <= 8, len(stores)
    data = np.arange(37 * 6, dtype=np.float32).reshape(6, 37)
    inp.set(hl.Buffer(data))
    out = f.realize([37, 6])
    np.testing.assert_array_equal(np.asarray(out), data * 2 + 1)


WASM_STORE = re.compile(r"^\s+v128\.store\s", re.M)


def test_wasm_inner_loops_not_unrolled_by_llvm(tmp_path):
    # wasm as the host: same run time in Node (V8) without LLVM's unrolling, less code
    f, inp = _pipeline()
    path = tmp_path / "f.s"
    f.compile_to_assembly(str(path), [inp], "f", hl.Target("wasm-32-wasmrt-wasm_simd128"))
    stores = WASM_STORE.findall(path.read_text())
    # the vectorized loop and its shifted-inward last vector (LLVM's unrolling made 12)
    assert 1 <= len(stores) <= 4, len(stores)

