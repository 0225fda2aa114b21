"""serialize_pipeline / deserialize_pipeline / deserialize_parameters: a round trip gives the
same pipeline (definitions, schedules, Tuples, several outputs), Params and ImageParams can be
replaced by the caller's, and a file can only make webhal's data classes."""

import pickle

import numpy as np
import pytest

import webhal as hl
from webhal.lang.serialization import MAGIC

x, y, xi = hl.Var("x"), hl.Var("y"), hl.Var("xi")


def _blur(inp):
    bx, out = hl.Func("bx"), hl.Func("out")
    bx[x, y] = hl.u16(inp[x, y]) + inp[x + 1, y] + inp[x + 2, y]
    out[x, y] = hl.u8((bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) // 9)
    bx.compute_at(out, y).vectorize(x, 8)
    out.split(x, x, xi, 8).vectorize(xi).parallel(y)
    return out


def test_round_trip_through_a_file_keeps_the_schedule(tmp_path):
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    pipeline = hl.Pipeline(_blur(inp))
    path = tmp_path / "blur.hlpipe"
    params = hl.serialize_pipeline(pipeline, path, get_params=True)
    assert list(params) == ["input"]
    image = hl.Buffer(np.random.default_rng(1).integers(0, 256, (22, 34), dtype=np.uint8))
    again = hl.deserialize_pipeline(path, {"input": hl.ImageParam(hl.UInt(8), 2, "input")})
    fresh = hl.deserialize_parameters(path)["input"]
    assert fresh.name() == "input" and fresh.type() == hl.UInt(8)
    inp.set(image)
    want = np.asarray(pipeline.realize([32, 20], "host"))
    images = {i.name(): i for i in _inputs(again)}
    images["input"].set(image)
    np.testing.assert_array_equal(np.asarray(again.realize([32, 20], "host")), want)
    assert again.loop_nest() == pipeline.loop_nest()


def _inputs(pipeline):
    from webhal.lower import gather_inputs
    images, _ = gather_inputs(pipeline.functions())
    return list(images.values())


def test_params_from_bytes_and_replaced_by_the_callers():
    gain = hl.Param(hl.Int(32), "gain", 2)
    f = hl.Func("scaled")
    f[x] = x * gain
    data, params = hl.serialize_pipeline(hl.Pipeline(f), get_params=True)
    assert isinstance(data, bytes) and data.startswith(MAGIC)
    assert params["gain"] is gain
    assert list(np.asarray(hl.deserialize_pipeline(data).realize([3]))) == [0, 2, 4]
    mine = hl.Param(hl.Int(32), "gain", 5)
    again = hl.deserialize_pipeline(data, {"gain": mine.parameter()})
    assert list(np.asarray(again.realize([3]))) == [0, 5, 10]
    mine.set(7)
    assert list(np.asarray(again.realize([3], "host"))) == [0, 7, 14]


def test_tuples_and_several_outputs():
    f, g = hl.Func("pair"), hl.Func("diff")
    f[x, y] = (x + y, hl.f32(x) * 0.5)
    g[x, y] = x - y
    again = hl.deserialize_pipeline(hl.serialize_pipeline(hl.Pipeline([f, g])))
    a, b, c = again.realize([4, 3])
    np.testing.assert_array_equal(np.asarray(a), np.add.outer(np.arange(3), np.arange(4)))
    np.testing.assert_array_equal(np.asarray(b), np.tile(np.arange(4) * 0.5, (3, 1)))
    np.testing.assert_array_equal(np.asarray(c), -np.subtract.outer(np.arange(3), np.arange(4)))


def test_a_file_cannot_run_code():
    class Evil:
        def __reduce__(self):
            import os
            return (os.system, ("echo pwned",))
    data = MAGIC + pickle.dumps({}) + pickle.dumps([Evil()])
    with pytest.raises(hl.CompileError, match="not a webhal pipeline file: it names "
                       "(posix|os).system"):
        hl.deserialize_pipeline(data)
    with pytest.raises(hl.CompileError, match="not a webhal pipeline file"):
        hl.deserialize_pipeline(b"HLPIPE\x00whatever")
