"""hl.random_float / random_int / random_uint: Halide's hash of (seed, call, definition, point),
the same numbers as Halide's for the same program in a fresh process, on every target."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import webhal as hl

PROGRAM = textwrap.dedent("""
    import json, sys
    import numpy as np
    import {lib} as hl
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = hl.random_float()
    g = hl.Func("g")
    g[x, y] = hl.random_int(x + y)
    g[x, y] += hl.random_int()
    r = hl.RDom([(0, 3)], "r")
    h = hl.Func("h")
    h[x] = hl.u32(0)
    h[x] += hl.random_uint(r.x) ^ hl.random_uint()
    args = [] if "{lib}" == "halide" else [hl.Target(sys.argv[1])]
    out = [np.asarray(f.realize([5, 3], *args)).view(np.uint32),
           np.asarray(g.realize([5, 3], *args)).view(np.uint32),
           np.asarray(h.realize([6], *args))]
    print(json.dumps([a.ravel().tolist() for a in out]))
""")


def _run(lib: str, target: str = "") -> list:
    done = subprocess.run([sys.executable, "-c", PROGRAM.format(lib=lib), target],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def halides():
    pytest.importorskip("halide")
    return _run("halide")


def test_the_same_numbers_as_halide(target, halides):
    assert _run("webhal", target) == halides


def test_values_differ_by_point_call_and_definition(target):
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("two_calls")
    f[x, y] = (hl.random_float(), hl.random_float())
    a, b = (np.asarray(o) for o in f.realize([16, 16], hl.Target(target)))
    assert a.min() >= 0.0 and a.max() <= 1.0 and len(np.unique(a)) > 250
    assert not np.array_equal(a, b)
    g = hl.Func("seeded")
    g[x] = hl.random_int(hl.i32(7))
    seeded = np.asarray(g.realize([4], hl.Target(target)))
    assert len(np.unique(seeded)) == 4  # the point still counts beside the seed


def test_a_seed_of_another_type_is_named():
    with pytest.raises(hl.CompileError, match="the seed of random_float must be int32, not "
                       "float32"):
        hl.random_float(hl.f32(1.5))
    with pytest.raises(hl.CompileError, match="the seed of random_uint must be int32 or uint32, "
                       "not int16"):
        hl.random_uint(hl.i16(1))
