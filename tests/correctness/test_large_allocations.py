"""Intermediates too large for the stack (heap allocation through halide_malloc/halide_free),
inside serial and parallel loops, and an output of a few hundred thousand elements."""

import numpy as np

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")


def test_heap_intermediate_at_root(target):
    big = hl.Func("big")
    big[x, y] = hl.f64(x) * 0.5 + hl.f64(y)
    out = hl.Func("out")
    out[x, y] = hl.f32(big[x, y] + big[x + 1, y + 1])
    big.compute_root()
    xs, ys = np.meshgrid(np.arange(300), np.arange(40), indexing="ij")
    expected = (xs * 0.5 + ys + (xs + 1) * 0.5 + ys + 1).astype(np.float32)
    check(out, [300, 40], target, expected=expected)


def test_heap_intermediate_per_parallel_row(target):
    row = hl.Func("row")
    row[x, y] = hl.i64(x) * y
    out = hl.Func("out")
    out[x, y] = row[x, y] - row[x + 2100, y]
    row.compute_at(out, y)  # 2200 int64 per row: 17 KB, on the heap in every task
    out.parallel(y)
    xs, ys = np.meshgrid(np.arange(100), np.arange(6), indexing="ij")
    check(out, [100, 6], target, expected=(xs * ys - (xs + 2100) * ys).astype(np.int64))


def test_large_output(target):
    f = hl.Func("f")
    f[x, y] = hl.u8(x ^ y)
    f.vectorize(x, 16).parallel(y)
    xs, ys = np.meshgrid(np.arange(640), np.arange(480), indexing="ij")
    check(f, [640, 480], target, expected=(xs ^ ys).astype(np.uint8))


def test_heap_intermediate_freed_after_its_last_use(target, tmp_path):
    """A chain a -> b -> c -> out, all at root: a is freed once b is made, before c is
    allocated (as Halide frees a buffer after its last use), so c can take a's memory; the
    outputs stay right."""
    a, b, c, out = hl.Func("a"), hl.Func("b"), hl.Func("c"), hl.Func("out")
    a[x, y] = hl.f32(x + y * 3)
    b[x, y] = a[x, y] + a[x + 1, y]
    c[x, y] = b[x, y] * 2
    out[x, y] = c[x, y] + c[x, y + 1]
    for f in (a, b, c):
        f.compute_root().vectorize(x, 4)
    xs, ys = np.meshgrid(np.arange(300), np.arange(40), indexing="ij")

    def av(i, j):
        return (i + j * 3).astype(np.float32)

    def cv(i, j):
        return (av(i, j) + av(i + 1, j)) * 2
    check(out, [300, 40], target, expected=cv(xs, ys) + cv(xs, ys + 1))
    if target == "host":
        path = tmp_path / "chain.ll"
        out.compile_to_llvm_assembly(str(path), [], "chain", hl.Target("host"))
        text = path.read_text()
        assert text.index("@halide_free(ptr null, ptr nonnull %a") < \
            text.index("%c = call ptr @halide_malloc")


def test_last_uses_found_in_one_walk(monkeypatch, tmp_path):
    """Placing the frees of a chain of eight heap buffers looks at each statement once in all
    (the names under a statement are kept with it), not once per buffer: the walk per buffer
    took 1.8 s of interpolate's 10-level code generation."""
    from webhal.codegen.llvm import statements
    visits: dict[int, int] = {}
    keep = []
    parts = statements.strings_and_children

    def counted(n):
        if isinstance(n, statements.st.Stmt):
            visits[id(n)] = visits.get(id(n), 0) + 1
            keep.append(n)  # no id reused while counting
        return parts(n)
    monkeypatch.setattr(statements, "strings_and_children", counted)
    fs = [hl.Func(f"f{i}") for i in range(8)]
    fs[0][x, y] = hl.f32(x + y)
    for i in range(1, 8):
        fs[i][x, y] = fs[i - 1][x, y] + fs[i - 1][x + 1, y]
    for f in fs[:-1]:
        f.compute_root()
    fs[-1].compile_to_llvm_assembly(str(tmp_path / "chain.ll"), [], "chain",
                                    hl.Target("host"))
    text = (tmp_path / "chain.ll").read_text()
    assert text.count("call ptr @halide_malloc") == 7
    assert len(visits) > 7
    assert max(visits.values()) == 1
