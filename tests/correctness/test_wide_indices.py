"""Buffer indices on 64-bit targets are computed in 64 bits (their int32 sums, differences,
products, mins and maxes widened, only their leaves sign-extended), as Halide's code generator
does: LLVM's reassociation drops the nsw of the int32 operations it reorders, and an index left
in 32 bits was sign-extended at every load and store of an unrolled loop (unsharp's last stage:
12 instructions per vector with lea + movslq for each access, against Halide's 6). Values
with negative coordinates, clamped rows (min/max in the index) and several planes are the
reference's on every target; the x86-64 assembly has no sign extension inside a loop."""

import re

import numpy as np

import webhal as hl

from .conftest import check

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
AVX2 = "x86-64-linux-avx-avx2-fma"


def _scale_planes(img):
    """A ratio per row (from two planes of the row above, clamped to the image) scaling every
    plane, the planes inside the rows (unsharp's last stages)."""
    ratio, out = hl.Func("ratio"), hl.Func("out")
    yc = hl.clamp(y - 1, 0, img.height() - 1)
    ratio[x, y] = img[x + 2, yc, 0] - img[x + 2, yc, 1] * 0.5
    out[x, y, c] = ratio[x, y] * img[x + 2, y + 4, c]
    out.reorder(x, c, y).vectorize(x, 8)
    ratio.compute_at(out, y).vectorize(x, 8)
    return out


def test_values_with_negative_coordinates(target):
    rng = np.random.default_rng(3)
    a = rng.uniform(-2, 2, (3, 23, 45)).astype(np.float32)  # planes, rows, columns
    ys = np.clip(np.arange(-4, 19) - 1, 0, 22)
    xs = np.arange(-2, 41) + 2
    ratio = a[0][ys][:, xs] - a[1][ys][:, xs] * np.float32(0.5)
    want = ratio[None] * a[:, 4 + np.arange(-4, 19)][:, :, xs]
    check(_scale_planes(hl.Buffer(a, "a")), [43, 23, 3], target, mins=[-2, -4, 0],
          expected=want.transpose(2, 1, 0), rtol=1e-6)


def _loops(asm: str) -> list[list[str]]:
    """The instructions between each label and a later jump back to it."""
    lines = asm.splitlines()
    labels = {}
    for n, line in enumerate(lines):
        m = re.match(r"^([.\w$]+):", line)
        if m:
            labels[m.group(1)] = n
    loops = []
    for n, line in enumerate(lines):
        m = re.match(r"\s+j\w+\s+([.\w$]+)\s*$", line)
        if m and labels.get(m.group(1), n) < n:
            loops.append(lines[labels[m.group(1)]:n])
    return loops


def test_no_sign_extension_in_loops(tmp_path):
    img = hl.ImageParam(hl.Float(32), 3, "img")
    path = tmp_path / "f.s"
    _scale_planes(img).compile_to_assembly(str(path), [img], "f", hl.Target(AVX2))
    loops = _loops(path.read_text())
    assert loops
    extensions = [i.strip() for body in loops for i in body
                  if re.match(r"\s+(movslq|movsxd|cltq|cdqe)\b", i)]
    assert extensions == []
