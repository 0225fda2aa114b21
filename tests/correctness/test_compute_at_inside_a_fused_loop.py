"""A producer computed at a loop inside a fused parallel loop (strips of rows fused with the
planes of an image, as the unsharp demo schedules it): per iteration it computes only the row
its consumer reads there, since the halves of the fused loop are single values inside it."""

import re

import numpy as np

import webhal as hl

from .conftest import check, ramp_image

x, y, c, yo, yi, t = (hl.Var(n) for n in ("x", "y", "c", "yo", "yi", "t"))
W, H = 29, 21


def _planes() -> np.ndarray:
    return np.stack([ramp_image(np.uint8, W, H, seed=s) for s in (51, 52, 53)])


def _schedule(image) -> hl.Func:
    clamped = hl.BoundaryConditions.repeat_edge(image, [(0, W), (0, H)])
    down = hl.Func("down")
    down[x, y, c] = hl.u16(clamped[x, y - 1, c]) + 2 * hl.u16(clamped[x, y, c]) + \
        clamped[x, y + 1, c]
    out = hl.Func("out")
    out[x, y, c] = hl.u8((down[x - 1, y, c] + down[x, y, c] + down[x + 1, y, c] + 8) / 16)
    out.split(y, yo, yi, 8).reorder(x, yi, yo, c).fuse(yo, c, t).parallel(t).vectorize(x, 8)
    down.compute_at(out, yi).vectorize(x, 8)
    return out


def test_producer_at_a_loop_inside_a_fused_loop(target):
    planes = _planes()
    out = _schedule(hl.Buffer(planes, "planes"))
    p = np.pad(planes.astype(np.int64), ((0, 0), (1, 1), (1, 1)), mode="edge")
    d = p[:, :-2] + 2 * p[:, 1:-1] + p[:, 2:]
    expected = (d[:, :, :-2] + d[:, :, 1:-1] + d[:, :, 2:] + 8) // 16
    check(out, [W, H, 3], target, expected=expected.astype(np.uint8).transpose(2, 1, 0))


def test_the_producer_computes_one_row_per_iteration(tmp_path):
    image = hl.ImageParam(hl.UInt(8), 3, "planes")
    out = _schedule(image)
    path = tmp_path / "out.stmt"
    out.compile_to_lowered_stmt(str(path), [image], "out",
                                hl.Target("wasm-32-wasmrt-wasm_simd128"))
    text = path.read_text()
    # One row: the simplifier sees that down.y.max is down.y.min's value, so the loop over
    # down's rows has extent 1 (and the max is no longer needed).
    assert re.search(r"for \(down\.s0\.y, down\.y\.min, 1\)", text), text
