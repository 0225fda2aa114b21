"""ImageParam dim() constraints that the buffer meets: same results, and the constrained values
replace the buffer's fields in the compiled loops (a constant stride folds into the indexing)."""

import numpy as np

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")


def _pipeline():
    image = hl.ImageParam(hl.UInt(16), 2, "image")
    image.dim(0).set_bounds(0, 24)
    image.dim(1).set_min(0).set_stride(24)
    data = (np.arange(24 * 10, dtype=np.uint16).reshape(10, 24) * 7) % 1000
    image.set(hl.Buffer(data.astype(np.uint16)))
    out = hl.Func("sums")
    out[x, y] = image[x, y] + image[x + 1, y + 1]
    out.vectorize(x, 8)
    return out, data.astype(np.uint16)


def test_results(target):
    out, data = _pipeline()
    check(out, [16, 8], target, expected=(data[:8, :16] + data[1:9, 1:17]).T)


def test_constrained_fields_fold_into_the_loops(tmp_path):
    out, _ = _pipeline()
    path = tmp_path / "sums.stmt"
    out.compile_to_lowered_stmt(str(path), _inputs(out), hl.Target("host"))
    text = path.read_text()
    body = text[text.index("for"):]  # after the entry checks, which read the real fields
    assert "image.stride.1" not in body and "image.min.0" not in body, body


def _inputs(out):
    from webhal.lower import gather_inputs
    images, _ = gather_inputs(hl.Pipeline(out).functions())
    return list(images.values())
