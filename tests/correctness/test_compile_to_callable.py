"""compile_to_callable: a Callable taking Buffers and numbers in argument order, then the
outputs, on every target; runtime errors raise as realize's do."""

import numpy as np

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")


def _pipeline():
    inp = hl.ImageParam(hl.UInt(8), 2, "inp")
    k = hl.Param(hl.Int(32), "k")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = hl.u8(hl.i32(inp[x, y]) + k)
    g[x, y] = f[x, y] * 2
    f.compute_root()
    return g, inp, k


def test_callable_in_argument_order(target):
    g, inp, k = _pipeline()
    call = g.compile_to_callable([inp, k], hl.Target(target))
    a = np.arange(12, dtype=np.uint8).reshape(3, 4)
    out = hl.Buffer(hl.UInt(8), [4, 3])
    call(hl.Buffer(a), 3, out)
    np.testing.assert_array_equal(np.asarray(out), (a + 3) * 2)
    again = hl.Buffer(hl.UInt(8), [4, 3])
    call(hl.Buffer(a), k=5, g=again)  # by name, as Halide's Callable takes keywords
    np.testing.assert_array_equal(np.asarray(again), (a + 5) * 2)


def test_callable_raises_the_runtime_error(target):
    g, inp, k = _pipeline()
    call = g.compile_to_callable([inp, k], hl.Target(target))
    a = np.zeros((3, 4), dtype=np.uint8)
    try:
        call(hl.Buffer(a), 1, hl.Buffer(hl.UInt(8), [5, 3]))
    except hl.BufferError as e:
        assert "Input buffer inp" in str(e)
    else:
        raise AssertionError("a too small input was not refused")


def test_callable_takes_numpy_arrays(target):
    g, inp, k = _pipeline()
    call = g.compile_to_callable([inp, k], hl.Target(target))
    a = np.arange(12, dtype=np.uint8).reshape(3, 4)
    out = np.zeros((3, 4), dtype=np.uint8)
    call(a, 1, out)  # written in place, as through hl.Buffer(out)
    np.testing.assert_array_equal(out, (a + 1) * 2)
