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
