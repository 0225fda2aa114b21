"""Generators: @hl.generator classes with GeneratorParam, InputBuffer, InputScalar, OutputBuffer."""

import numpy as np
import pytest

import webhal as hl

from ._helpers import REFERENCE


@hl.generator(name="test_lang_brighten")
class Brighten:
    gain = hl.GeneratorParam(1.5)
    levels = hl.GeneratorParam(256)
    invert = hl.GeneratorParam(False)
    input = hl.InputBuffer(hl.UInt(8), 2)
    offset = hl.InputScalar(hl.Int(32))
    output = hl.OutputBuffer(hl.UInt(8), 2)

    def generate(g):
        x, y = hl.Var("x"), hl.Var("y")
        v = hl.f32(g.input[x, y]) * g.gain + hl.f32(g.offset)
        v = hl.clamp(v, 0.0, float(g.levels - 1))
        if g.invert:
            v = float(g.levels - 1) - v
        g.output[x, y] = hl.u8(v)


@hl.generator()
class TwoOutputs:
    input = hl.InputBuffer(hl.Float(32), 1)
    doubled = hl.OutputBuffer(hl.Float(32), 1)
    squared = hl.OutputBuffer(hl.Float(32), 1)

    def generate(g):
        x = hl.Var("x")
        g.doubled[x] = g.input[x] * 2
        g.squared[x] = g.input[x] * g.input[x]


def expected_brighten(data, gain=1.5, offset=0, levels=256, invert=False):
    v = np.clip(data.astype(np.float32) * np.float32(gain) + np.float32(offset), 0, levels - 1)
    if invert:
        v = (levels - 1) - v
    return v.astype(np.uint8)


def run_brighten(gen, data, offset=0):
    pipeline = gen.build_pipeline()
    inp, off = gen.inputs()
    inp.set(hl.Buffer(data))
    off.set(offset)
    h, w = data.shape
    return np.asarray(pipeline.realize([w, h], REFERENCE))


DATA = np.random.default_rng(5).integers(0, 256, (6, 7), dtype=np.uint8)


def test_generator_with_defaults():
    np.testing.assert_array_equal(run_brighten(Brighten(), DATA), expected_brighten(DATA))


def test_generator_params_override_defaults():
    gen = Brighten(gain=0.5, levels=100, invert=True)
    assert (gen.gain, gen.levels, gen.invert) == (0.5, 100, True)
    np.testing.assert_array_equal(run_brighten(gen, DATA, offset=3),
                                  expected_brighten(DATA, 0.5, 3, 100, True))


def test_generator_params_as_a_dict_as_in_halide():
    gen = Brighten(generator_params={"gain": 0.25, "invert": True})
    assert (gen.gain, gen.levels, gen.invert) == (0.25, 256, True)
    np.testing.assert_array_equal(run_brighten(gen, DATA),
                                  expected_brighten(DATA, 0.25, invert=True))


def test_generator_params_from_strings_take_the_default_type():
    gen = Brighten(gain="2", levels="64", invert="true")
    assert gen.gain == 2.0 and isinstance(gen.gain, float)
    assert gen.levels == 64 and isinstance(gen.levels, int)
    assert gen.invert is True
    assert Brighten(invert="0").invert is False


def test_inputs_and_outputs_are_made_from_the_declarations():
    gen = Brighten()
    gen.build_pipeline()
    inp, off = gen.inputs()
    assert isinstance(inp, hl.ImageParam) and inp.name() == "input"
    assert inp.type() == hl.UInt(8) and inp.dimensions() == 2
    assert isinstance(off, hl.Param) and off.name() == "offset" and off.type() == hl.Int(32)
    assert isinstance(gen.output, hl.Func) and gen.output.type() == hl.UInt(8)
    assert [k for k, _ in Brighten.arguments()] == ["input", "offset", "output"]
    assert list(Brighten.generator_params()) == ["gain", "levels", "invert"]


def test_build_pipeline_is_built_once():
    gen = Brighten()
    assert gen.build_pipeline() is gen.build_pipeline()


def test_generator_with_two_outputs():
    gen = TwoOutputs()
    pipeline = gen.build_pipeline()
    assert [f.name() for f in pipeline.outputs()] == ["doubled", "squared"]
    data = np.array([1.5, -2.0, 3.0], np.float32)
    gen.inputs()[0].set(data)
    doubled, squared = pipeline.realize([3], REFERENCE)
    np.testing.assert_array_equal(np.asarray(doubled), data * 2)
    np.testing.assert_array_equal(np.asarray(squared), data * data)


def test_registry_and_create_generator():
    registry = hl.registered_generators()
    assert registry["test_lang_brighten"] is Brighten
    assert registry["TwoOutputs"] is TwoOutputs  # the class name by default
    assert Brighten.name() == "test_lang_brighten"
    gen = hl.create_generator("test_lang_brighten", gain=3.0)
    assert isinstance(gen, Brighten) and gen.gain == 3.0
    np.testing.assert_array_equal(run_brighten(gen, DATA), expected_brighten(DATA, 3.0))


def test_unknown_generator_and_unknown_param_are_errors():
    with pytest.raises(hl.CompileError, match="no generator named"):
        hl.create_generator("no_such_generator")
    with pytest.raises(hl.CompileError, match="GeneratorParam"):
        Brighten(brightness=2)


def test_generator_without_outputs_is_an_error():
    @hl.generator(name="test_lang_no_outputs")
    class NoOutputs:
        input = hl.InputBuffer(hl.UInt(8), 1)

        def generate(g):
            pass

    with pytest.raises(hl.CompileError, match="OutputBuffer"):
        NoOutputs().build_pipeline()


def test_generator_context_sets_the_target():
    gen = Brighten()
    with hl.GeneratorContext("wasm-32-wasmrt-wasm_simd128"):
        assert gen.target().is_wasm
        assert gen.target().has_feature("wasm_simd128")
        assert gen.natural_vector_size(hl.Float(32)) == 4
    assert gen.target().to_string() == hl.get_target_from_environment().to_string()
