"""Loads and stores carry a TBAA type per buffer, so that LLVM knows that a store to one
buffer leaves every other buffer's values as they were (Halide's assumption too): loads of an
input stay in registers across the output's stores and loop-invariant ones are hoisted."""

import re

import webhal as hl

x = hl.Var("x")


def test_each_buffer_has_its_own_alias_type(tmp_path):
    inp = hl.ImageParam(hl.Float(32), 1, "inp")
    f = hl.Func("f")
    f[x] = inp[x] * 2 + inp[x + 1]
    f.vectorize(x, 8)
    path = tmp_path / "f.ll"
    f.compile_to_llvm_assembly(str(path), [inp], "f", hl.Target("host"))
    text = path.read_text()
    loads = re.findall(r"= load <8 x float>.*!tbaa (!\d+)", text)
    stores = re.findall(r"store <8 x float>.*!tbaa (!\d+)", text)
    assert loads and stores, text
    assert set(loads).isdisjoint(stores)  # the input's tag is not the output's
    for tag in {*loads, *stores}:
        node = re.search(rf"^{tag} = !{{(!\d+), ", text, re.M).group(1)
        name = re.search(rf'^{node} = !{{!"([^"]+)"', text, re.M).group(1)
        assert name in ("inp", "f"), name
