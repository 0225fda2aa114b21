"""How `webhal test` sizes a generator's buffers: outputs from their dim() constraints (an
interleaved `dim(0) == 3`, an extent of a scalar input), inputs from the bounds query, and an
error that names the hook to declare (and stays short) where that cannot work."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from webhal.errors import HalideError
from webhal.target import Target, fuses_multiply_adds
from webhal.testing import harness

GENERATORS = pathlib.Path(__file__).with_name("generators.py")


def _subject(name: str, **kwargs) -> harness.Subject:
    return harness.Subject(f"{GENERATORS}:{name}", **kwargs)


def test_an_interleaved_output_gets_its_constrained_channel_count():
    subject = _subject("sepia_interleaved")
    assert subject.output_shapes == {"output": (48, 64, 3)}  # numpy order: c last
    assert subject.inputs["input"].shape == (48, 64, 3)
    outcome = harness.run_case(subject, harness.Case("host", "host", "cpu"), samples=0)
    assert outcome.ok, outcome.message
    pixels = subject.inputs["input"].astype(np.float32)
    red = np.float32(0.393) * pixels[..., 0] + np.float32(0.769) * pixels[..., 1] + \
        np.float32(0.189) * pixels[..., 2]
    # The host fuses the multiply-adds (as Halide's does), so a pixel may round to its neighbour.
    off = int(fuses_multiply_adds(Target("host")))
    got = outcome.outputs["output"][..., 0].astype(np.int16)
    assert np.abs(got - np.minimum(red, 255).astype(np.uint8)).max() <= off


def test_an_extent_constrained_by_a_scalar_input_uses_its_test_value():
    subject = _subject("rows_from_a_param", size=(10, 4))
    assert subject.inputs["rows"] == 1
    assert subject.output_shapes == {"output": (2, 10)}
    assert subject.inputs["input"].shape == (2, 10)
    outcome = harness.run_case(subject, harness.Case("host", "host", "cpu"), samples=0)
    assert outcome.ok, outcome.message


def test_declared_shapes_and_inputs_are_taken_as_given():
    image = np.arange(12, dtype=np.float32).reshape(2, 6)
    subject = _subject("rows_from_a_param", inputs={"input": image, "rows": 1},
                       output_shapes={"output": (2, 6)})
    assert subject.inputs["input"] is image and subject.output_shapes == {"output": (2, 6)}


def test_an_output_min_constraint_is_not_supported_and_says_so():
    with pytest.raises(HalideError, match=r"writes output output from \[1, 0\].*not supported "
                                          "by webhal test"):
        _subject("output_from_one")


def test_an_unknowable_output_extent_names_test_output_shapes():
    with pytest.raises(HalideError) as info:
        _subject("extent_of_another_image")
    message = str(info.value)
    assert "output.dim(0).extent()" in message and "elsewhere.extent.0" in message
    assert "def test_output_shapes(self)" in message and "test_inputs" not in message


def test_an_unknowable_input_region_names_test_inputs_in_a_short_error():
    with pytest.raises(HalideError) as info:
        _subject("read_at_another_images_size")
    message = str(info.value)
    assert "the region of input read in dimension 0 depends on elsewhere.extent.0" in message
    assert "def test_inputs(self)" in message
    assert len(message) < 800, message  # the expression is 120 terms long
