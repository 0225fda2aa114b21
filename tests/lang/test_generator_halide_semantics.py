"""Generators as Halide's generator tests use them: aliases, requirements, scalar outputs,
Python's types, estimates, configure() with add_input/add_output, one generator called as a
stage of another, Tuple outputs typed by GeneratorParams, and hl._. Each generator is defined
by the same code for webhal and for PyPI halide (taking the module as `hl`) and compiled to a
Callable by each; the outputs must agree."""

from __future__ import annotations

import numpy as np
import pytest

import webhal
from tests.halide_peer import require

halide, = require("halide")

pytestmark = pytest.mark.halide

BOTH = [pytest.param(webhal, id="webhal"), pytest.param(halide, id="halide")]


def _define(hl) -> dict[str, type]:
    """The generators of these tests, written once for either library."""
    x, y = hl.Var("x"), hl.Var("y")

    @hl.alias(t31_offset_7={"offset": 7}, t31_offset_minus_2={"offset": -2, "scale": 3})
    @hl.generator(name="t31_offset")
    class Offset:
        offset = hl.GeneratorParam(0)
        scale = hl.GeneratorParam(1)
        input = hl.InputBuffer(hl.UInt(8), 1)
        output = hl.OutputBuffer(hl.Int(32), 1)

        def generate(g):
            g.output[x] = hl.i32(g.input[x]) * g.scale + g.offset

    @hl.generator(name="t31_required")
    class Required:
        p = hl.InputScalar(hl.Int(32))
        half = hl.OutputScalar(hl.Float(32))

        def generate(g):
            g.add_requirement(g.p > 0, "p must be positive, got", g.p)
            g.half[()] = hl.f32(g.p) * 0.5

    @hl.generator(name="t31_python_types")
    class PythonTypes:
        bits = hl.InputBuffer(bool, 1)
        count = hl.InputScalar(int)
        gain = hl.InputScalar(float)
        flag = hl.InputScalar(bool)
        scaled = hl.OutputBuffer(float, 1)
        kept = hl.OutputBuffer(bool, 1)

        def generate(g):
            g.scaled[x] = hl.select(g.bits[x] ^ g.flag, g.gain, 0.0) * hl.f32(g.count)
            g.kept[x] = g.bits[x] & g.flag

    @hl.generator(name="t31_estimated")
    class Estimated:
        input = hl.InputBuffer(hl.Float(32), 2)
        k = hl.InputScalar(hl.Float(32))
        output = hl.OutputBuffer(hl.Float(32), 2)

        def generate(g):
            blur = hl.Func("blur")
            blur[x, y] = g.input[x, y] + g.input[x + 1, y]
            g.output[x, y] = blur[x, y] * g.k
            blur.set_estimate(x, 0, 64).set_estimate(y, 0, 32)
            g.input.set_estimates([(0, 65), (0, 32)])
            g.input.dim(0).set_estimate(0, 65).dim(1).set_estimate(0, 32)
            g.k.set_estimate(2.0)
            g.output.set_estimates([(0, 64), (0, 32)])
            g.output.output_buffer().dim(1).set_estimate(0, 32)

    @hl.generator(name="t31_configured")
    class Configured:
        extra_name = hl.GeneratorParam("")
        with_sum = hl.GeneratorParam(False)
        input = hl.InputBuffer(hl.Int(16), 1)
        output = hl.OutputBuffer(hl.Int(16), 1)

        def configure(g):
            if g.extra_name:
                g.add_input(g.extra_name, hl.InputBuffer(hl.Int(16), 1))
            if g.with_sum:
                g.add_output("total", hl.OutputScalar(hl.Int(32)))

        def generate(g):
            extra = getattr(g, g.extra_name) if g.extra_name else None
            g.output[x] = g.input[x] * 2 + (extra[x] if extra is not None else hl.i16(0))
            if g.with_sum:
                r = hl.RDom([(0, 4)])
                g.total[()] = hl.sum(hl.i32(g.output[r]))

    @hl.generator(name="t31_inner")
    class Inner:
        gain = hl.GeneratorParam(2)
        image = hl.InputBuffer(hl.UInt(8), 2)
        bias = hl.InputScalar(hl.Float(32))
        scaled = hl.OutputBuffer(hl.Float(32), 2)

        def generate(g):
            g.scaled[x, y] = hl.f32(g.image[x, y]) * g.gain + g.bias

    @hl.generator(name="t31_outer")
    class Outer:
        image = hl.InputBuffer(hl.UInt(8), 1)
        result = hl.OutputBuffer(hl.Int(32), 1)  # not `output`, the name of Offset's Func

        def generate(g):
            # Offset as a stage: this one's ImageParam by position, GeneratorParams by dict.
            # (Scalars go by literal: Halide's call() takes no Param, having no defined().)
            offset = Offset.call(g.image, generator_params={"scale": 3, "offset": 1})
            g.result[x] = offset[x] + offset[x + 1]

    @hl.generator(name="t31_pair")
    class Pair:
        input = hl.InputBuffer(None, 2)
        pair = hl.OutputBuffer(None, None)
        fixed = hl.OutputBuffer([hl.Int(32), hl.Float(64)], 1)

        def generate(g):
            v = g.input[x, y]
            g.pair[x, y] = (hl.f32(v) * 0.25, hl.f32(v) + 1.0)
            g.fixed[x] = (hl.i32(g.input[x, 0]), hl.f64(g.input[x, 1]) / 3)

    @hl.generator(name="t31_placeholder")
    class Placeholder:
        input = hl.InputBuffer(hl.Int(32), 3)
        output = hl.OutputBuffer(hl.Int(32), 3)

        def generate(g):
            twice, shifted = hl.Func("twice"), hl.Func("shifted")
            twice[x, hl._] = g.input[x, hl._] * 2
            shifted[x, hl._] = twice[x + 1, hl._] - twice[x, hl._]
            g.output[x, hl._] = shifted[x, hl._]
            g.output[x, hl._] += hl._1 * 100  # an update with the implicit Vars

    return {c.__name__: c for c in (Offset, Required, PythonTypes, Estimated, Configured,
                                   Inner, Outer, Pair, Placeholder)}


GENERATORS = {webhal: _define(webhal), halide: _define(halide)}


def _target(hl):
    return hl.get_jit_target_from_environment() if hl is halide else hl.Target("host")


def _generator_class(hl, name: str):
    if hl is webhal:
        return webhal.registered_generators()[name]
    from halide import _generator_helpers  # Halide's registry of Python generators
    return _generator_helpers._python_generators[name]


def _callable(hl, name: str, params: dict | None = None):
    """Generator `name` built with `params` (strings, as a command line gives them)."""
    with hl.GeneratorContext(_target(hl)):
        g = _generator_class(hl, name)(generator_params={k: str(v) for k, v in
                                                          (params or {}).items()})
        return g.compile_to_callable()


def _run(hl, name: str, inputs: list, outputs: list, params: dict | None = None) -> list:
    call = _callable(hl, name, params)
    outs = [np.zeros(shape, dtype) for shape, dtype in outputs]
    call(*inputs, *outs)
    return outs


def _same_in_both(name, inputs, outputs, params=None, expected=None) -> list:
    ours = _run(webhal, name, inputs, outputs, params)
    theirs = _run(halide, name, inputs, outputs, params)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    if expected is not None:
        for a, e in zip(ours, expected):
            np.testing.assert_array_equal(a, e)
    return ours


DATA = np.arange(6, dtype=np.uint8) * 40


@pytest.mark.parametrize("name, want", [
    ("t31_offset", DATA.astype(np.int32)),
    ("t31_offset_7", DATA.astype(np.int32) + 7),
    ("t31_offset_minus_2", DATA.astype(np.int32) * 3 - 2),
])
def test_aliases_are_generators_with_their_params(name, want):
    _same_in_both(name, [DATA], [((6,), np.int32)], expected=[want])


def test_an_alias_param_given_again_is_overridden():
    _same_in_both("t31_offset_7", [DATA], [((6,), np.int32)], {"offset": 1},
                  expected=[DATA.astype(np.int32) + 1])


def test_aliases_through_create_callable_and_the_registry():
    call = webhal.create_callable_from_generator(webhal.Target("host"), "t31_offset_minus_2")
    out = np.zeros(6, np.int32)
    call(DATA, out)
    np.testing.assert_array_equal(out, DATA.astype(np.int32) * 3 - 2)
    registry = webhal.registered_generators()
    assert issubclass(registry["t31_offset_7"], registry["t31_offset"])
    assert registry["t31_offset_7"].name() == "t31_offset_7"


def test_an_alias_naming_an_autoscheduler_uses_it():
    @webhal.alias(t31_auto={"autoscheduler": "Mullapudi2016"})
    @webhal.generator(name="t31_auto_base")
    class Auto:
        input = webhal.InputBuffer(webhal.Int(32), 1)
        output = webhal.OutputBuffer(webhal.Int(32), 1)

        def generate(g):
            g.output[webhal.Var("x")] = g.input[webhal.Var("x")] + 1
            g.input.set_estimates([(0, 1024)])
            g.output.set_estimates([(0, 1024)])

    base, auto = webhal.create_generator("t31_auto_base"), webhal.create_generator("t31_auto")
    assert not base.using_autoscheduler() and auto.using_autoscheduler()
    call = webhal.create_callable_from_generator("host", "t31_auto")
    out = np.zeros(1024, np.int32)
    call(np.arange(1024, dtype=np.int32), out)
    np.testing.assert_array_equal(out, np.arange(1, 1025))


@pytest.mark.parametrize("hl", BOTH)
def test_a_requirement_fails_the_call_with_its_message(hl):
    call = _callable(hl, "t31_required")
    out = np.zeros((), np.float32)
    call(3, out)
    assert out[()] == 1.5  # and a scalar output is a zero-dimensional buffer
    with pytest.raises(hl.HalideError, match=r"Requirement Failed: .*p must be positive, got -2"):
        call(-2, out)


def test_python_types_map_as_in_halide():
    bits = np.array([0, 1, 1, 0, 1], dtype=bool)
    for flag in (True, False):
        want_scaled = np.where(bits ^ flag, 2.5, 0.0).astype(np.float32) * 3
        _same_in_both("t31_python_types", [bits, 3, 2.5, flag],
                      [((5,), np.float32), ((5,), bool)],
                      expected=[want_scaled, bits & flag])
    with webhal.GeneratorContext("host"):
        g = GENERATORS[webhal]["PythonTypes"]()
        bits_param, count, gain, flag_param = g.inputs()
    assert (bits_param.type(), count.type(), gain.type(), flag_param.type()) == \
        (webhal.Bool(), webhal.Int(32), webhal.Float(32), webhal.Bool())
    # Halide's core classes take no Python types: only generator Inputs and Outputs do
    with pytest.raises(webhal.HalideError):
        webhal.Param(float, "p")
    with pytest.raises(TypeError):
        halide.Param(float, "p")


def test_estimates_change_nothing_and_are_kept():
    data = np.random.default_rng(3).random((32, 65), dtype=np.float32)
    _same_in_both("t31_estimated", [data, 2.0], [((32, 64), np.float32)],
                  expected=[(data[:, :64] + data[:, 1:]) * np.float32(2.0)])
    with webhal.GeneratorContext("host"):
        g = GENERATORS[webhal]["Estimated"]()
        g.build_pipeline()
    values = [(e[0], e[1].value, e[2].value)
              for e in g.output.function().schedule.estimates]
    assert values == [("x", 0, 64), ("y", 0, 32)]
    assert [(a.value, b.value) for a, b in g.input.estimates()] == [(0, 65), (0, 32)]
    assert g.k.estimate().value == 2.0


@pytest.mark.parametrize("params, inputs, outputs", [
    ({}, 1, 1),
    ({"extra_name": "more"}, 2, 1),
    ({"extra_name": "more", "with_sum": True}, 2, 2),
])
def test_configure_adds_inputs_and_outputs(params, inputs, outputs):
    a = np.array([1, -2, 3, 40], np.int16)
    b = np.array([5, 6, 7, 8], np.int16)
    shapes = [((4,), np.int16), ((), np.int32)][:outputs]
    got = _same_in_both("t31_configured", [a, b][:inputs], shapes, params)
    want = a * 2 + (b if inputs == 2 else 0)
    np.testing.assert_array_equal(got[0], want)
    if outputs == 2:
        assert got[1][()] == want.sum()


def test_add_input_outside_configure_is_refused_as_in_halide():
    for hl in (webhal, halide):
        with hl.GeneratorContext(_target(hl)):
            g = _generator_class(hl, "t31_configured")()
            with pytest.raises(hl.HalideError, match=r"Can only call add_input\(\) from the "
                               r"configure\(\) method"):
                g.add_input("late", hl.InputBuffer(hl.Int(16), 1))


def test_one_generator_called_as_a_stage_of_another():
    inner = DATA.astype(np.int32) * 3 + 1
    _same_in_both("t31_outer", [DATA], [((5,), np.int32)], expected=[inner[:5] + inner[1:]])


@pytest.mark.parametrize("hl", BOTH)
def test_call_returns_funcs_to_realize(hl):
    with hl.GeneratorContext(_target(hl)):
        buf = hl.Buffer(np.full((2, 3), 10, np.uint8))
        f = _generator_class(hl, "t31_inner").call(bias=0.5, image=buf)
        out = f.realize([3, 2])
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 20.5, np.float32))


def test_tuple_outputs_typed_by_generator_params():
    data = (np.arange(8, dtype=np.uint16) * 9).reshape(2, 4)
    params = {"input.type": "uint16", "pair.type": "float32,float32", "pair.dim": 2}
    got = _same_in_both("t31_pair", [data],
                        [((2, 4), np.float32), ((2, 4), np.float32), ((4,), np.int32),
                         ((4,), np.float64)], params)
    np.testing.assert_array_equal(got[0], data * np.float32(0.25))
    np.testing.assert_array_equal(got[1], data + np.float32(1))
    np.testing.assert_array_equal(got[3], data[1] / 3)


def test_the_placeholder_expands_to_the_implicit_vars():
    data = np.arange(2 * 3 * 5, dtype=np.int32).reshape(2, 3, 5)
    got = _same_in_both("t31_placeholder", [data], [((2, 3, 4), np.int32)])
    twice = data * 2
    want = twice[:, :, 1:] - twice[:, :, :4] + np.arange(2)[:, None, None] * 100
    np.testing.assert_array_equal(got[0], want)


@pytest.mark.parametrize("hl", BOTH)
def test_the_placeholder_gives_halides_arguments(hl):
    x = hl.Var("x")
    im = hl.ImageParam(hl.UInt(8), 3, "im")
    buf = hl.Buffer(hl.UInt(8), [3, 3, 3])
    f, g, h, k = hl.Func("f"), hl.Func("g"), hl.Func("h"), hl.Func("k")
    f[x, hl._] = x  # no implicit Var on the right: the placeholder stands for none
    g[x, hl._] = f[x] + im[x, hl._] + buf[x, x, hl._]
    h[hl._] = buf[hl._]
    k[x, hl._] = f[hl._] + x
    assert [[v.name() for v in fn.args()] for fn in (f, g, h, k)] == \
        [["x"], ["x", "_0", "_1"], ["_0", "_1", "_2"], ["x", "_0"]]
    bad = hl.Func("bad")
    with pytest.raises(hl.HalideError, match="placeholder"):
        bad[x] = g[x, hl._]
