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


def test_callable_argument_mistakes():
    g, inp, k = _pipeline()
    call = g.compile_to_callable([inp, k], hl.Target("reference"))
    a, out = np.zeros((3, 4), dtype=np.uint8), np.zeros((3, 4), dtype=np.uint8)
    cases = [((a, 1, out, out), {}, "Expected at most 3 positional arguments, but saw 4."),
             ((a,), {}, "Expected exactly 3 positional arguments, but saw 1."),
             ((a, 1), {"funk": out}, "Unknown argument 'funk' specified via keyword."),
             ((), {"k": 1, "g": out}, "Argument inp was not specified by either positional "
                                      "or keyword argument."),
             ((a,), {"inp": a, "k": 1, "g": out}, "Argument inp specified multiple times."),
             ((a, "happy", out), {}, "is not an instance of")]
    for args, kwargs, message in cases:
        try:
            call(*args, **kwargs)
        except hl.HalideError as e:  # Halide's exception, with Halide's sentence
            assert message in str(e), str(e)
        else:
            raise AssertionError(f"no error for {message}")


@hl.generator(name="callable_offset")
class CallableOffset:
    offset = hl.GeneratorParam(0)
    buffer_input = hl.InputBuffer(hl.UInt(8), 2)
    float_arg = hl.InputScalar(hl.Float(32))
    simple_output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(g):
        g.simple_output[x, y] = hl.f32(g.offset + g.buffer_input[x, y]) + g.float_arg


def test_generator_callables(target):
    t = hl.Target(target)
    with hl.GeneratorContext(t):
        plain = CallableOffset().compile_to_callable()
    shifted = hl.create_callable_from_generator(t, "callable_offset", {"offset": "42"})
    b_in = np.full((2, 2), 123, dtype=np.uint8)
    out = np.zeros((2, 2), dtype=np.float32)
    plain(b_in, 3.5, out)
    np.testing.assert_array_equal(out, 126.5)
    shifted(float_arg=3.5, simple_output=out, buffer_input=b_in)
    np.testing.assert_array_equal(out, 168.5)


def test_callable_on_host_reports_mistakes_at_the_users_line():
    """The host's direct path looks nothing up for a good call; a mistake or a runtime error
    still names the line of the call."""
    g, inp, k = _pipeline()
    call = g.compile_to_callable([inp, k], hl.Target("host"))
    a, out = np.zeros((3, 4), dtype=np.uint8), np.zeros((3, 4), dtype=np.uint8)
    for args, error, message in [((a, "happy", out), TypeError, "is not an instance of"),
                                 ((a, 1, 2), TypeError, "is not an instance of"),
                                 ((a, 1, np.zeros((3, 5), np.uint8)), hl.BufferError,
                                  "Input buffer inp"),
                                 ((a, 1, np.zeros((3, 4), np.int16)), hl.BufferError,
                                  "type")]:
        try:
            line = _line() + 1
            call(*args)
        except error as e:
            assert message in str(e), str(e)
            assert (e.where.filename, e.where.lineno) == (__file__, line), e.where
        else:
            raise AssertionError(f"no error for {message}")


def _line() -> int:
    import sys
    return sys._getframe(1).f_lineno


def test_callable_sees_an_array_changed_in_place():
    """A call with the same array objects as the last one reuses their description, unless
    their shape, strides or dtype changed since."""
    g, inp, k = _pipeline()
    call = g.compile_to_callable([inp, k], hl.Target("host"))
    a, out = np.arange(12, dtype=np.uint8).reshape(3, 4), np.zeros((3, 4), dtype=np.uint8)
    call(a, 1, out)
    a.shape, out.shape = (2, 6), (2, 6)
    out[...] = 0
    call(a, 2, out)
    np.testing.assert_array_equal(out, (a + 2) * 2)
    strided = np.arange(24, dtype=np.uint8).reshape(3, 8)[:, ::2]
    out2 = np.zeros((3, 4), np.uint8)
    call(strided, 1, out2)  # x not dense: taken through a dense copy
    np.testing.assert_array_equal(out2, (strided + 1) * 2)
    wide = np.zeros((3, 8), np.uint8)
    call(strided, 3, wide[:, ::2])  # an output whose x is not dense is written back
    np.testing.assert_array_equal(wide[:, ::2], (strided + 3) * 2)


def test_callable_called_from_threads_at_once():
    """Each call in flight describes its buffers in memory of its own."""
    from concurrent.futures import ThreadPoolExecutor
    g, inp, k = _pipeline()
    call = g.compile_to_callable([inp, k], hl.Target("host"))

    def run(i):
        a = np.full((64, 64), i, dtype=np.uint8)
        for j in range(30):
            out = np.zeros((64, 64), dtype=np.uint8)
            call(a, j, out)
            if not (out == np.uint8((i + j) * 2)).all():
                return False
        return True
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(8)))


def test_callable_takes_a_float16_scalar():
    p = hl.Param(hl.Float(16), "p")
    inp = hl.ImageParam(hl.Float(16), 1, "inp")
    f = hl.Func("f")
    f[x] = inp[x] + p
    call = f.compile_to_callable([inp, p], hl.Target("host"))
    a, out = np.arange(4, dtype=np.float16), np.zeros(4, np.float16)
    call(a, 0.5, out)
    np.testing.assert_array_equal(out, a + np.float16(0.5))
    call(a, np.float16(1.5), out)  # a numpy scalar takes the general path
    np.testing.assert_array_equal(out, a + np.float16(1.5))
