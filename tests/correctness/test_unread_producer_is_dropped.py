"""A Func whose every read simplifies away (`f[x] % 0` and `f[x] * 0` are 0 in integers) is not
computed, as in Halide: its producer and storage are dropped (differential tester GPU seed 2169,
where that producer was a float64 kernel WebGPU cannot run and Halide never compiles). A
producer with an effect of its own (print) stays."""

import numpy as np

import webhal as hl

from .conftest import check

x = hl.Var("x")


def _pipeline(a, effect: bool = False):
    unread, out = hl.Func("unread"), hl.Func("out")
    value = a[x] * 3
    unread[x] = hl.print(value, "<- computed") if effect else value
    out[x] = (hl.cast(hl.Int(16), unread[x + 1]) + -77) * (unread[x + 1] % hl.i16(0)) \
        + unread[x] * 0 + a[x]
    unread.compute_root()
    return out


def test_values(target):
    a = hl.Buffer(np.arange(-20, 20, dtype=np.int16), "a")
    check(_pipeline(a), [30], target, expected=np.arange(-20, 10, dtype=np.int16))


def test_not_computed(tmp_path):
    path = tmp_path / "out.stmt"
    a = hl.ImageParam(hl.Int(16), 1, "a")
    _pipeline(a).compile_to_lowered_stmt(str(path), [a], target=hl.Target("host"))
    text = path.read_text()
    # (its region may stay as a let: the input's check covers what the definitions read)
    assert "produce out" in text and "produce unread" not in text, text
    assert "allocate unread" not in text and "unread[" not in text, text


def test_a_producer_that_prints_is_computed(tmp_path):
    path = tmp_path / "out.stmt"
    a = hl.ImageParam(hl.Int(16), 1, "a")
    _pipeline(a, effect=True).compile_to_lowered_stmt(str(path), [a], target=hl.Target("host"))
    assert "produce unread" in path.read_text()
