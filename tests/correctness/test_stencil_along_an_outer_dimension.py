"""A stencil along a loop's outer dimension (the bilateral grid's blur along z of a histogram
computed per row) reads at (z + k - min) * stride for k = -2..2: on 64-bit targets each index
is z's part plus a frozen k * stride, so LLVM's Loop Strength Reduction shares one pointer
among the loads (it gave each its own, incremented every iteration: x86-64 AVX2's inner loop
moved registers to and from the stack). Values are the reference's on every target."""

import re

import numpy as np

import webhal as hl

from .conftest import check

x, y, z, c = hl.Var("x"), hl.Var("y"), hl.Var("z"), hl.Var("c")


def _blurred_histogram(img):
    """A histogram of img by 2x2 cells into 8 bins (sums and counts), blurred 1 4 6 4 1 in z."""
    r = hl.RDom([(0, 2), (0, 2)], "r")
    clamped = hl.BoundaryConditions.repeat_edge(img)
    sample = hl.clamp(clamped[x * 2 + r.x, y * 2 + r.y], hl.f32(0), hl.f32(1))
    h = hl.Func("h")
    h[x, y, z, c] = hl.f32(0)
    h[x, y, hl.clamp(hl.i32(sample * 7), 0, 7), c] += hl.select(c == 0, sample, hl.f32(1))
    blur = hl.Func("blur")
    blur[x, y, z, c] = (h[x, y, z - 2, c] + 4 * h[x, y, z - 1, c] + 6 * h[x, y, z, c]
                        + 4 * h[x, y, z + 1, c] + h[x, y, z + 2, c])
    blur.bound(c, 0, 2).reorder(c, z, x, y).vectorize(x, 8).unroll(c)
    h.compute_at(blur, y)
    h.update().reorder(c, r.x, r.y, x, y).unroll(c)
    return blur


def test_values(target):
    rng = np.random.default_rng(4)
    a = rng.uniform(-0.1, 1.1, (14, 38)).astype(np.float32)
    check(_blurred_histogram(hl.Buffer(a, "a")), [19, 7, 6, 2], target, mins=[0, 0, 1, 0],
          rtol=1e-6)


def _inner_loops(asm: str) -> list[list[str]]:
    """The bodies of the innermost loops (a label with a backward jump to it, no other inside)."""
    lines = asm.splitlines()
    labels = {m.group(1): i for i, ln in enumerate(lines)
              if (m := re.match(r"^(\.[\w.$]+):", ln))}
    loops = [(labels[m.group(1)], i) for i, ln in enumerate(lines)
             if (m := re.match(r"\s+j\w+\s+(\.[\w.$]+)\s*$", ln)) and m.group(1) in labels
             and labels[m.group(1)] < i]
    inner = [a for a in loops if not any(b != a and a[0] <= b[0] and b[1] <= a[1]
                                         for b in loops)]
    return [lines[s + 1:e + 1] for s, e in inner]


def test_x86_64_blur_loop_keeps_its_pointers_in_registers(tmp_path):
    img = hl.ImageParam(hl.Float(32), 2, "img")
    path = tmp_path / "blur.s"
    _blurred_histogram(img).compile_to_assembly(str(path), [img], "blur",
                                                 hl.Target("x86-64-linux-avx-avx2-fma"))
    blurs = [body for body in _inner_loops(path.read_text())
             if sum("vfmadd" in ln for ln in body) >= 6]
    assert blurs
    for body in blurs:  # no register spilled or reloaded (a loop bound compared in memory is)
        assert not any(re.match(r"\s*mov", ln) and re.search(r"\(%r[sb]p\)", ln)
                       for ln in body), "\n".join(body)
