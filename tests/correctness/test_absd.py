"""absd: the absolute difference without overflow, unsigned for integer operands, for every
integer type and floats."""

import numpy as np
import pytest

import webhal as hl

from .conftest import H, W, check, ramp_image, with_slow

x, y = hl.Var("x"), hl.Var("y")
TYPES = [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
         np.float32, np.float64]


def _absd(dtype):
    name = np.dtype(dtype).name
    a, b = ramp_image(dtype, seed=131), ramp_image(dtype, seed=132)
    A, B = hl.Buffer(a, f"a_{name}"), hl.Buffer(b, f"b_{name}")
    f = hl.Func(f"absd_{name}")
    f[x, y] = hl.absd(A[x, y], B[x, y])
    g = hl.Func(f"absd_{name}_vec")
    g[x, y] = hl.absd(A[x, y], B[x, y])
    g.vectorize(x, 8)
    if np.dtype(dtype).kind == "f":
        expected = np.abs(a - b)
    else:
        bits = np.dtype(dtype).itemsize * 8
        diff = np.abs(a.astype(object) - b.astype(object))
        expected = diff.astype(np.uint64).astype(f"uint{bits}") if bits < 64 else \
            np.array([int(v) for v in diff.reshape(-1)], dtype=np.uint64).reshape(a.shape)
    return [f, g], [expected.T, expected.T]


@pytest.mark.parametrize("types", with_slow([TYPES[:6] + TYPES[8:9]], [TYPES[6:8] + TYPES[9:]]),
                         ids=lambda ts: "64_bit" if np.float64 in ts else "8_to_32_bit")
def test_absd(target, types):
    funcs, expected = [], []
    for dtype in types:
        fs, es = _absd(dtype)
        funcs += fs
        expected += es
    check(hl.Pipeline(funcs), [W, H], target, expected=expected)
