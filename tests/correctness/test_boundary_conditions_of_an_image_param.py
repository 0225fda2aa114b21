"""The five BoundaryConditions of an ImageParam, whose extents are known only when the pipeline
runs (unlike a Buffer's): the region read reaches past every edge, rows and columns vectorized;
compared with numpy's np.pad modes."""

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")
PAD = 5
MODES = {"repeat_edge": "edge", "constant_exterior": "constant", "repeat_image": "wrap",
         "mirror_image": "symmetric", "mirror_interior": "reflect"}


@pytest.mark.parametrize("condition", list(MODES))
def test_every_edge(target, condition):
    data = (np.arange(9 * 12, dtype=np.uint16).reshape(9, 12) * 37 % 1000).astype(np.uint16)
    image = hl.ImageParam(hl.UInt(16), 2, "image")
    image.set(hl.Buffer(data))
    if condition == "constant_exterior":
        outside = hl.BoundaryConditions.constant_exterior(image, 7)
    else:
        outside = getattr(hl.BoundaryConditions, condition)(image)
    out = hl.Func(f"padded_{condition}")
    out[x, y] = outside[x, y] + outside[x - 1, y + 1]
    out.vectorize(x, 8)
    kwargs = {"constant_values": 7} if condition == "constant_exterior" else {}
    padded = np.pad(data, PAD + 1, mode=MODES[condition], **kwargs).astype(np.uint16)
    h, w = data.shape
    rows, cols = slice(1, h + 2 * PAD + 1), slice(1, w + 2 * PAD + 1)
    expected = padded[rows, cols] + padded[2:h + 2 * PAD + 2, 0:w + 2 * PAD]
    check(out, [w + 2 * PAD, h + 2 * PAD], target, mins=[-PAD, -PAD], expected=expected.T)
