"""compile_to (Halide's OutputFileType keys), compile_to_file, compile_to_bitcode and
compile_to_lowered_stmt with hl.StmtOutputFormat, from one pipeline."""

import pytest

import webhal as hl

x, y = hl.Var("x"), hl.Var("y")
HOST = hl.Target("x86-64-linux-sse41")


def _pipeline():
    inp = hl.ImageParam(hl.UInt(8), 2, "inp")
    k = hl.Param(hl.Int(32), "k")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = hl.u8(hl.i32(inp[x, y]) + k)
    g[x, y] = f[x, y] * 2
    f.compute_root()
    return g, [inp, k]


def test_compile_to_writes_each_output(tmp_path):
    g, args = _pipeline()
    kinds = {hl.OutputFileType.object: "g.o", hl.OutputFileType.static_library: "g.a",
             hl.OutputFileType.c_header: "g.h", hl.OutputFileType.assembly: "g.s",
             hl.OutputFileType.llvm_assembly: "g.ll", hl.OutputFileType.bitcode: "g.bc",
             hl.OutputFileType.stmt: "g.stmt", hl.OutputFileType.stmt_html: "g.html"}
    g.compile_to({k: str(tmp_path / v) for k, v in kinds.items()}, args, "gfun", HOST)
    read = {v: (tmp_path / v).read_bytes() for v in kinds.values()}
    assert read["g.o"][:4] == b"\x7fELF" and read["g.a"].startswith(b"!<arch>")
    assert b"int gfun(struct halide_buffer_t *_inp_buffer, int32_t _k" in read["g.h"] or \
        b"gfun(" in read["g.h"]
    assert read["g.bc"][:2] == b"BC" and b"define" in read["g.ll"]
    assert b"gfun" in read["g.s"]
    assert read["g.stmt"].startswith(b"module name=gfun") and b"produce f" in read["g.stmt"]
    assert read["g.html"].startswith(b"<!doctype html>") and b"<details open>" in read["g.html"]


def test_compile_to_file_and_bitcode(tmp_path):
    g, args = _pipeline()
    g.compile_to_file(str(tmp_path / "blur"), args, "blur", HOST)
    assert (tmp_path / "blur.o").read_bytes()[:4] == b"\x7fELF"
    assert b"blur(" in (tmp_path / "blur.h").read_bytes()
    g.compile_to_bitcode(str(tmp_path / "b.bc"), args, "b", HOST)
    g.compile_to_bitcode(str(tmp_path / "c.bc"), args, HOST)  # Halide's form without a name
    assert (tmp_path / "b.bc").read_bytes()[:2] == b"BC"
    assert (tmp_path / "c.bc").read_bytes()[:2] == b"BC"


def test_lowered_stmt_text_and_html(tmp_path):
    g, args = _pipeline()
    g.compile_to_lowered_stmt(str(tmp_path / "g.stmt"), args)
    g.compile_to_lowered_stmt(str(tmp_path / "t.stmt"), args, hl.StmtOutputFormat.Text, HOST)
    g.compile_to_lowered_stmt(str(tmp_path / "g.html"), args, hl.StmtOutputFormat.HTML, HOST)
    text = (tmp_path / "t.stmt").read_text()
    page = (tmp_path / "g.html").read_text()
    assert "produce f {" in text and "<" not in text.split("\n", 1)[0]
    assert page.startswith("<!doctype html>") and "</html>" in page
    assert '<span class="kw">produce</span> <span class="func">f</span>' in page
    assert page.count("<details") == page.count("</details>")
    assert "webhal_print" not in page


@pytest.mark.halide
def test_output_file_types_are_halides():
    halide = pytest.importorskip("halide")
    assert set(hl.OutputFileType.__members__) == set(halide.OutputFileType.__members__)
    assert set(hl.StmtOutputFormat.__members__) == set(halide.StmtOutputFormat.__members__)
