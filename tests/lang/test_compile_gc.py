"""Compiling pauses Python's cyclic garbage collector (webhal.lower.gc_paused): its passes over
the live IR were a quarter of a JIT compile's CPU time. It runs again afterwards (a pass then
is expected), also after a compile error."""

import gc
import os
import traceback

import pytest

import webhal as hl
from webhal.errors import HalideError


def _pipeline():
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Float(32), 2, "inp")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = inp[x, y] * 2.0 + inp[x + 1, y]
    g[x, y] = f[x, y] + f[x, y + 1]
    f.compute_root().vectorize(x, 4)
    g.vectorize(x, 8).parallel(y)
    return g, inp


@pytest.mark.parametrize("how", ["callable", "realize"])
def test_no_collection_while_compiling(how):
    g, inp = _pipeline()
    p = hl.Pipeline(g)
    started = []

    def seen(phase, info):  # a collection with lowering or code generation on the stack
        if phase == "start":
            started.extend(f.filename for f in traceback.extract_stack()
                           if f"webhal{os.sep}lower.py" in f.filename
                           or f"webhal{os.sep}codegen" in f.filename)
    assert gc.isenabled()
    gc.collect()
    gc.callbacks.append(seen)
    try:
        if how == "callable":
            p.compile_to_callable([inp], hl.Target("host"))
        else:
            import numpy as np
            inp.set(hl.Buffer(np.ones((10, 40), dtype=np.float32)))
            p.realize([32, 8])
    finally:
        gc.callbacks.remove(seen)
    assert started == []
    assert gc.isenabled()


def test_collector_runs_again_after_an_error():
    x = hl.Var("x")
    f, g, h = hl.Func("f"), hl.Func("g"), hl.Func("h")
    f[x] = x
    g[x] = f[x] + 1
    h[x] = x * 2
    f.compute_at(h, x)  # h does not call f: lowering fails
    with pytest.raises(HalideError):
        hl.Pipeline(g).compile_to_callable([], hl.Target("host"))
    assert gc.isenabled()
