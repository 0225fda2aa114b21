"""hl.imageio: read and write images as Halide's Python bindings do, through Pillow.

Images come back planar: a colour image is a numpy array (channels, rows, columns), so that
`hl.Buffer(imread(path))` has x = column, y = row, c = channel. `imwrite` takes planar or
interleaved arrays (or anything numpy can view, an hl.Buffer too) and writes the interleaved
form image files use.
"""

from __future__ import annotations

import numpy as np


def is_interleaved(im) -> bool:
    """Whether a 3-D image has its (at most four) channels last, (rows, columns, c): by its
    shape, or for a tiny image by its memory layout (channels adjacent)."""
    a = np.asarray(im)
    return a.ndim == 3 and a.shape[2] <= 4 and (a.shape[0] > 4 or a.strides[2] == a.itemsize)


def copy_to_interleaved(im) -> np.ndarray:
    """A copy with channels innermost, (rows, columns, c), if im is a planar 3-D image;
    otherwise im itself."""
    a = np.asarray(im)
    if a.ndim == 3 and not is_interleaved(a):
        return np.ascontiguousarray(np.moveaxis(a, 0, 2))
    return im


def copy_to_planar(im) -> np.ndarray:
    """A copy with channels outermost, (c, rows, columns), if im is an interleaved 3-D image;
    otherwise im itself."""
    a = np.asarray(im)
    if is_interleaved(a):
        return np.ascontiguousarray(np.moveaxis(a, 2, 0))
    return im


def imread(uri, format=None, **kwargs) -> np.ndarray:  # noqa: A002 - Halide's name
    """The image at `uri` as a numpy array, planar when it has colour channels."""
    from PIL import Image
    with Image.open(uri, formats=[format] if format else None, **kwargs) as img:
        return copy_to_planar(np.array(img))


def imwrite(uri, im, format=None, **kwargs) -> None:  # noqa: A002
    """Write im (planar or interleaved, 2-D grey or 3-D colour) to `uri`; the format comes
    from the file name unless given."""
    from PIL import Image
    a = np.asarray(copy_to_interleaved(im))
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    Image.fromarray(a).save(uri, format=format, **kwargs)
