"""Signed 32/64-bit +, - and * are nsw in the LLVM code (their overflow is undefined, as in
Halide, which marks them so), wherever they are: in a Func's value, in a let computed before a
load's index, not only inside the index. 8/16-bit and unsigned arithmetic wraps and takes no
flag; the values below check that it still wraps on every target."""

import re

import numpy as np
import pytest

import webhal as hl

from .conftest import check

x, y = hl.Var("x"), hl.Var("y")


def _ir(f, args, tmp_path) -> str:
    path = tmp_path / "f.ll"
    f.compile_to_llvm_assembly(str(path), args, "f", hl.Target("host"))
    return path.read_text()


@pytest.mark.parametrize("t, nsw", [(hl.Int(32), True), (hl.Int(64), True),
                                    (hl.Int(16), False), (hl.Int(8), False),
                                    (hl.UInt(32), False), (hl.UInt(64), False)],
                         ids=["i32", "i64", "i16", "i8", "u32", "u64"])
def test_flags_on_value_arithmetic(tmp_path, t, nsw):
    a, b = hl.Param(t, "a"), hl.Param(t, "b")
    c = hl.ImageParam(t, 1, "c")
    f = hl.Func("f")
    f[x] = (a * c[x]) ^ (c[x] + b) ^ (b - c[x])
    ir = _ir(f, [a, b, c], tmp_path)
    for op in ("mul", "add", "sub"):
        found = re.findall(rf"= {op}( nsw)? i{t.bits} .*%[ab]\b", ir)
        assert found, f"no {op} i{t.bits} of a parameter in the IR"
        assert found == [" nsw" if nsw else ""] * len(found), (op, found)


def test_let_index_arithmetic_is_nsw(tmp_path):
    # The column offset is a let (used twice) computed outside the loads' index expressions.
    image = hl.ImageParam(hl.Int(32), 2, "image")
    k = hl.Param(hl.Int(32), "k")
    f = hl.Func("f")
    i = hl.Expr(x) * k + 3
    f[x, y] = image[i, y] + image[i + 1, y] * i
    ir = _ir(f, [image, k], tmp_path)
    assert re.search(r"= mul nsw i32 ", ir) and not re.search(r"= mul i32 ", ir)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint32])
def test_narrow_and_unsigned_still_wrap(target, dtype):
    info = np.iinfo(dtype)
    img = np.arange(info.max - 40, info.max - 40 + 37 * 3, dtype=np.int64)
    img = ((img - info.min) % (int(info.max) - info.min + 1) + info.min).astype(dtype)
    buf = hl.Buffer(img.reshape(3, 37), "img")
    t = buf.type()
    f = hl.Func("f")
    f[x, y] = buf[x, y] * hl.cast(t, 3) + hl.cast(t, info.max) - hl.cast(t, x)
    f.vectorize(x, 8)
    wide = img.reshape(3, 37).astype(np.int64) * 3 + int(info.max) - np.arange(37)
    span = int(info.max) - int(info.min) + 1
    want = ((wide - int(info.min)) % span + int(info.min)).astype(dtype)
    check(f, [37, 3], target, expected=want.T)
