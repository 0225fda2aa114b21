"""lerp with a signed integer constant beside a value of another type, as Halide 21: the constant
(an IntImm: a Python int, or hl.cast of one to a signed type) takes the other value's type,
wrapping, zero_val first; other mismatches are refused. The differential tester's seed 2808:
`lerp(hl.cast(hl.Int(16), -32767), max(i16 value, 7), w)`, an int32 lerp in Halide, which
webhal refused."""

import numpy as np
import pytest

import webhal as hl

x = hl.Var("x")
C = hl.cast


def _cases():
    w = hl.cast(hl.UInt(8), x)
    # (zero_val, one_val, Halide 21's result type or None where it refuses)
    return w, [
        (C(hl.Int(16), -32767), hl.cast(hl.Int(32), x), "int32"),
        (hl.cast(hl.Int(32), x), C(hl.Int(16), -5), "int32"),
        (C(hl.Int(32), 100000), hl.cast(hl.UInt(8), x), "uint8"),
        (hl.cast(hl.UInt(8), x), C(hl.Int(16), -5), "uint8"),
        (C(hl.Int(16), 3), C(hl.Int(32), 5), "int32"),
        (C(hl.Int(32), 3), C(hl.Int(16), 5), "int16"),
        (C(hl.Int(64), 7), hl.cast(hl.Int(16), x), "int16"),
        (C(hl.Int(16), 3), hl.cast(hl.Float(32), x), "float32"),
        (C(hl.Float(32), 1.5), hl.cast(hl.Int(16), x), None),
        (C(hl.UInt(8), 3), hl.cast(hl.Float(32), x), None),
        (C(hl.UInt(16), 3), hl.cast(hl.Int(32), x), None),
        (hl.cast(hl.Int(16), hl.Expr(3) * 2), hl.cast(hl.Int(32), x), None),
    ]


@pytest.mark.parametrize("i", range(12))
def test_lerp_types_are_halides(i):
    w, cases = _cases()
    zero, one, want = cases[i]
    if want is None:
        with pytest.raises(hl.CompileError, match="cast them to one type"):
            hl.lerp(zero, one, w)
    else:
        assert str(hl.lerp(zero, one, w).type()) == want


def test_lerp_of_a_wrapped_constant_values():
    f = hl.Func("f")
    f[x] = hl.lerp(C(hl.Int(16), -32767), x * 1000, hl.cast(hl.UInt(8), x * 85))
    got = np.asarray(f.realize([4], hl.Target("reference")))
    xs = np.arange(4)
    want = np.round(-32767 + (xs * 1000 + 32767) * (xs * 85) / 255).astype(np.int32)
    np.testing.assert_array_equal(got, want)
