"""hl.imageio: Halide's image reading and writing, planar arrays for colour images, checked
against Halide's own module on the same files."""

from pathlib import Path

import numpy as np
import pytest

import webhal as hl

IMAGES = Path(__file__).resolve().parents[2] / "demos" / "images"


def test_colour_images_read_planar():
    im = hl.imageio.imread(IMAGES / "astronaut.png")
    assert im.shape[0] == 3 and im.dtype == np.uint8
    buf = hl.Buffer(im)
    assert (buf.width(), buf.height(), buf.channels()) == (im.shape[2], im.shape[1], 3)
    grey = hl.imageio.imread(IMAGES / "camera.png")
    assert grey.ndim == 2


def test_round_trip_through_a_file(tmp_path):
    im = hl.imageio.imread(IMAGES / "astronaut.png")[:, :40, :50]
    out = hl.Buffer(hl.UInt(8), [50, 40, 3])  # x, y, c: planar in numpy's order
    np.asarray(out)[...] = im
    hl.imageio.imwrite(tmp_path / "copy.png", np.asanyarray(out))
    assert np.array_equal(hl.imageio.imread(tmp_path / "copy.png"), im)
    hl.imageio.imwrite(tmp_path / "inter.png", np.moveaxis(im, 0, 2))  # interleaved in
    assert np.array_equal(hl.imageio.imread(tmp_path / "inter.png"), im)


def test_layout_helpers():
    planar = np.zeros((3, 4, 5), np.uint8)
    assert not hl.imageio.is_interleaved(planar)
    inter = hl.imageio.copy_to_interleaved(planar)
    assert inter.shape == (4, 5, 3) and hl.imageio.is_interleaved(inter)
    assert hl.imageio.copy_to_planar(inter).shape == (3, 4, 5)


@pytest.mark.halide
def test_same_arrays_as_halides_module():
    halide_imageio = pytest.importorskip("halide.imageio")
    try:
        want = halide_imageio.imread(str(IMAGES / "astronaut.png"))
    except ImportError:  # Halide's module needs PyPI imageio, which webhal does not
        pytest.skip("PyPI imageio is not installed")
    assert np.array_equal(hl.imageio.imread(IMAGES / "astronaut.png"), want)


def test_a_buffer_read_is_an_expr():
    """As in Halide (lesson 2 asserts it): buf[x, y, c] and im[x, y] are hl.Expr."""
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    buf = hl.Buffer(hl.imageio.imread(IMAGES / "astronaut.png"))
    assert type(buf[x, y, c]) is hl.Expr
    assert type(hl.ImageParam(hl.UInt(8), 2, "im")[x, y]) is hl.Expr
