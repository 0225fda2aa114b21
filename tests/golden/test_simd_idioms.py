"""The wasm SIMD idioms, written the way a Halide user writes them: each must show its
instruction in the generated assembly (find_intrinsics recognizes it, the LLVM code generator
emits it) and give the reference's values, bit for bit, on every target, extremes included.
Two of them also have golden assembly files (WEBHAL_UPDATE_GOLDEN=1 regenerates them)."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import webhal as hl

FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")
UPDATE = os.environ.get("WEBHAL_UPDATE_GOLDEN", "") not in ("", "0")
SIMD = "wasm-32-wasmrt-wasm_simd128"
TARGETS = ["host", SIMD, "wasm-32-wasmrt"]
WIDTH = 45  # odd: the vectorized loops have a tail

x = hl.Var("x")
U8, I8, U16, I16, I32, F32 = (hl.UInt(8), hl.Int(8), hl.UInt(16), hl.Int(16), hl.Int(32),
                              hl.Float(32))


@dataclass(frozen=True)
class Idiom:
    name: str
    types: tuple            # of the inputs a and b
    define: Callable        # (a, b) -> the output's value at x
    expected: Callable      # numpy (a, b) -> the output, as int64 or float
    lanes: int
    instructions: tuple     # that the assembly must show
    intrinsic: str = ""     # that the lowered statement must show
    stride: int = 1         # inputs hold stride * WIDTH elements (and two more)
    absent: tuple = ()      # that the assembly must not show (lane-by-lane fallbacks)

    def __str__(self):
        return self.name


def _sat(v, dtype):
    info = np.iinfo(dtype)
    return np.clip(v, info.min, info.max)


def _euclid_sum(a, b, dtype):
    """Halide's a / b + a % b: Euclidean, 0 for a zero divisor, wrapped to dtype."""
    q, r = np.zeros_like(a), np.zeros_like(a)
    nonzero = b != 0
    r[nonzero] = np.mod(a[nonzero], np.abs(b[nonzero]))
    q[nonzero] = (a[nonzero] - r[nonzero]) // b[nonzero]
    bits = np.dtype(dtype).itemsize * 8
    return ((q + r) % (1 << bits)).astype(f"uint{bits}").view(dtype)


def _even(v):
    return v[0::2].astype(np.int64)


def _odd(v):
    return v[1::2].astype(np.int64)


IDIOMS = [
    Idiom("add_sat_u8", (U8, U8), lambda a, b: hl.saturating_cast(U8, hl.u16(a[x]) + b[x]),
          lambda a, b: _sat(a + b, np.uint8), 16, ("i8x16.add_sat_u",), "saturating_add"),
    Idiom("sub_sat_u8", (U8, U8),
          lambda a, b: hl.saturating_cast(U8, hl.i16(a[x]) - hl.i16(b[x])),
          lambda a, b: _sat(a - b, np.uint8), 16, ("i8x16.sub_sat_u",), "saturating_sub"),
    Idiom("add_sat_i8", (I8, I8), lambda a, b: hl.i8(hl.clamp(hl.i16(a[x]) + b[x], -128, 127)),
          lambda a, b: _sat(a + b, np.int8), 16, ("i8x16.add_sat_s",), "saturating_add"),
    Idiom("sub_sat_i8", (I8, I8), lambda a, b: hl.saturating_cast(I8, hl.i16(a[x]) - b[x]),
          lambda a, b: _sat(a - b, np.int8), 16, ("i8x16.sub_sat_s",), "saturating_sub"),
    Idiom("add_sat_u16", (U16, U16), lambda a, b: hl.u16(hl.min(hl.u32(a[x]) + b[x], 65535)),
          lambda a, b: _sat(a + b, np.uint16), 8, ("i16x8.add_sat_u",), "saturating_add"),
    Idiom("sub_sat_u16", (U16, U16),
          lambda a, b: hl.u16(hl.max(hl.i32(a[x]) - hl.i32(b[x]), 0)),
          lambda a, b: _sat(a - b, np.uint16), 8, ("i16x8.sub_sat_u",), "saturating_sub"),
    Idiom("add_sat_i16", (I16, I16), lambda a, b: hl.saturating_cast(I16, hl.i32(a[x]) + b[x]),
          lambda a, b: _sat(a + b, np.int16), 8, ("i16x8.add_sat_s",), "saturating_add"),
    Idiom("sub_sat_i16", (I16, I16), lambda a, b: hl.saturating_cast(I16, hl.i32(a[x]) - b[x]),
          lambda a, b: _sat(a - b, np.int16), 8, ("i16x8.sub_sat_s",), "saturating_sub"),
    Idiom("avgr_u8", (U8, U8), lambda a, b: hl.u8((hl.u16(a[x]) + b[x] + 1) / 2),
          lambda a, b: (a + b + 1) // 2, 16, ("i8x16.avgr_u",), "rounding_halving_add"),
    Idiom("avgr_u16", (U16, U16), lambda a, b: hl.u16((hl.u32(a[x]) + b[x] + 1) >> 1),
          lambda a, b: (a + b + 1) // 2, 8, ("i16x8.avgr_u",), "rounding_halving_add"),
    Idiom("extmul_i8", (I8, I8), lambda a, b: hl.i16(a[x]) * hl.i16(b[x]),
          lambda a, b: a * b, 16,
          ("i16x8.extmul_low_i8x16_s", "i16x8.extmul_high_i8x16_s"), "widening_mul"),
    Idiom("extmul_u8", (U8, U8), lambda a, b: hl.u16(a[x]) * b[x],
          lambda a, b: a * b, 16,
          ("i16x8.extmul_low_i8x16_u", "i16x8.extmul_high_i8x16_u"), "widening_mul"),
    Idiom("extmul_i16", (I16, I16), lambda a, b: hl.i32(a[x]) * b[x],
          lambda a, b: a * b, 8,
          ("i32x4.extmul_low_i16x8_s", "i32x4.extmul_high_i16x8_s"), "widening_mul"),
    Idiom("extmul_u16", (U16, U16), lambda a, b: hl.u32(a[x]) * b[x],
          lambda a, b: a * b, 8,
          ("i32x4.extmul_low_i16x8_u", "i32x4.extmul_high_i16x8_u"), "widening_mul"),
    Idiom("narrow_i16_u8", (I16, I16), lambda a, b: hl.saturating_cast(U8, a[x]),
          lambda a, b: _sat(a, np.uint8), 16, ("i8x16.narrow_i16x8_u",), "saturating_narrow"),
    Idiom("narrow_i16_i8", (I16, I16), lambda a, b: hl.i8(hl.clamp(a[x], -128, 127)),
          lambda a, b: _sat(a, np.int8), 16, ("i8x16.narrow_i16x8_s",), "saturating_narrow"),
    Idiom("narrow_i32_i16", (I32, I32), lambda a, b: hl.saturating_cast(I16, a[x]),
          lambda a, b: _sat(a, np.int16), 8, ("i16x8.narrow_i32x4_s",), "saturating_narrow"),
    Idiom("narrow_i32_u16", (I32, I32), lambda a, b: hl.u16(hl.clamp(a[x], 0, 65535)),
          lambda a, b: _sat(a, np.uint16), 8, ("i16x8.narrow_i32x4_u",), "saturating_narrow"),
    Idiom("narrow_i32_u8", (I32, I32), lambda a, b: hl.saturating_cast(U8, a[x]),
          lambda a, b: _sat(a, np.uint8), 16,
          ("i16x8.narrow_i32x4_s", "i8x16.narrow_i16x8_u"), "saturating_narrow"),
    Idiom("dot", (I16, I16),
          lambda a, b: hl.i32(a[2 * x]) * b[2 * x] + hl.i32(a[2 * x + 1]) * b[2 * x + 1],
          lambda a, b: (_even(a) * _even(b) + _odd(a) * _odd(b)).astype(np.int32), 4,
          ("i32x4.dot_i16x8_s",), "dot", stride=2),
    Idiom("dot_odd_first", (I16, I16),
          lambda a, b: hl.i32(b[2 * x + 1]) * a[2 * x + 1] + hl.i32(a[2 * x]) * b[2 * x],
          lambda a, b: (_even(a) * _even(b) + _odd(a) * _odd(b)).astype(np.int32), 8,
          ("i32x4.dot_i16x8_s",), "dot", stride=2),
    Idiom("q15mulr", (I16, I16),
          lambda a, b: hl.saturating_cast(I16, (hl.i32(a[x]) * b[x] + 16384) >> 15),
          lambda a, b: _sat((a * b + 16384) >> 15, np.int16), 8, ("i16x8.q15mulr_sat_s",),
          "q15mulr"),
    Idiom("extadd_pairwise_u8", (U8, U8), lambda a, b: hl.u16(a[2 * x]) + a[2 * x + 1],
          lambda a, b: _even(a) + _odd(a), 8, ("i16x8.extadd_pairwise_i8x16_u",),
          "widening_pairwise_add", stride=2),
    Idiom("extadd_pairwise_i16", (I16, I16), lambda a, b: hl.i32(a[2 * x + 1]) + a[2 * x],
          lambda a, b: _even(a) + _odd(a), 4, ("i32x4.extadd_pairwise_i16x8_s",),
          "widening_pairwise_add", stride=2),
    Idiom("nearest", (F32, F32), lambda a, b: hl.round(a[x]), lambda a, b: np.round(a), 4,
          ("f32x4.nearest",)),
    # Conversions wasm has only for 32-bit lanes, and integer division, which it lacks: in
    # vector registers, not lane by lane.
    Idiom("u8_to_f32", (U8, U8), lambda a, b: hl.f32(a[x]) * 0.5, lambda a, b: a * 0.5, 16,
          ("i32x4.extend_low_i16x8_u", "v128.or"), absent=("f32.convert_i32_u",)),
    Idiom("i16_to_f32", (I16, I16), lambda a, b: hl.f32(a[x]) * 0.5, lambda a, b: a * 0.5, 8,
          ("i32x4.extend_low_i16x8_s", "i32x4.add"), absent=("f32.convert_i32_s",)),
    Idiom("f32_to_u8", (F32, F32), lambda a, b: hl.u8(a[x]),
          lambda a, b: np.nan_to_num(_sat(a, np.uint8)), 16,
          ("i32x4.trunc_sat_f32x4_s", "i8x16.narrow_i16x8_u"), absent=("i32.trunc_sat_f32_u",)),
    Idiom("f32_to_i16", (F32, F32), lambda a, b: hl.i16(a[x]),
          lambda a, b: np.nan_to_num(_sat(a, np.int16)), 8,
          ("i32x4.trunc_sat_f32x4_s", "i16x8.narrow_i32x4_s"), absent=("i32.trunc_sat_f32_s",)),
    Idiom("div_u8", (U8, U8), lambda a, b: a[x] / b[x] + a[x] % b[x],
          lambda a, b: _euclid_sum(a, b, np.uint8), 16, ("f32x4.div",), absent=("i32.div_u",)),
    Idiom("div_i16", (I16, I16), lambda a, b: a[x] / b[x] + a[x] % b[x],
          lambda a, b: _euclid_sum(a, b, np.int16), 8, ("f32x4.div",), absent=("i32.div_s",)),
    Idiom("div_i32", (I32, I32), lambda a, b: a[x] / b[x] + a[x] % b[x],
          lambda a, b: _euclid_sum(a, b, np.int32), 4, ("f64x2.div", "f64x2.floor"),
          absent=("i32.div_s", "i32.rem_s", "i32.trunc_sat_f64_s")),
]
BY_NAME = {i.name: i for i in IDIOMS}


def _inputs(idiom: Idiom) -> list[np.ndarray]:
    """a and b: every pair of extremes (min, max, 0, +-1) first, then random values."""
    n = idiom.stride * WIDTH + 2
    dtype = idiom.types[0].dtype
    rng = np.random.default_rng(sum(map(ord, idiom.name)))
    if dtype.kind == "f":
        special = [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -1.5, 1e9 + 0.5, 8388609.0, -0.0,
                   np.nan, np.inf, -np.inf, 255.5, 256.0, -1.0, 32767.9, -32769.0]
        a = np.concatenate([special, rng.uniform(-300, 300, n - len(special))])
        return [a.astype(dtype), a.astype(dtype)]
    info = np.iinfo(dtype)
    extremes = sorted({info.min, info.max, 0, 1, info.max - 1, max(info.min, -1)})
    pairs = [(info.min, info.min), *itertools.product(extremes, extremes)]
    a, b = (np.array([p[i] for p in pairs], dtype=np.int64) for i in (0, 1))
    a, b = (np.concatenate([v, rng.integers(info.min, int(info.max) + 1, n)])[:n] for v in (a, b))
    return [a.astype(dtype), b.astype(dtype)]


def _pipeline(idiom: Idiom, lanes: int | None = None):
    a, b = (hl.ImageParam(t, 1, name) for t, name in zip(idiom.types, "ab"))
    f = hl.Func(idiom.name)
    f[x] = idiom.define(a, b)
    f.vectorize(x, lanes or idiom.lanes)
    return f, [a, b]


def _compiled(idiom: Idiom, kind: str, tmp_path) -> str:
    f, inputs = _pipeline(idiom)
    path = str(tmp_path / f"{idiom.name}.{kind}")
    method = {"s": f.compile_to_assembly, "stmt": f.compile_to_lowered_stmt}[kind]
    method(path, inputs, idiom.name, hl.Target(SIMD))
    with open(path) as file:
        return file.read()


def _check_golden(name: str, text: str) -> None:
    path = os.path.join(FILES, name)
    if UPDATE:
        with open(path, "w") as file:
            file.write(text)
        return
    if not os.path.exists(path):
        pytest.fail(f"no golden file {name}; run with WEBHAL_UPDATE_GOLDEN=1 to create it")
    with open(path) as file:
        assert text == file.read(), \
            f"{name} changed; if intended, WEBHAL_UPDATE_GOLDEN=1 updates it"


def _realize(f, inputs, data, target: str) -> np.ndarray:
    for param, values in zip(inputs, data):
        param.set(hl.Buffer(values))
    return f.realize([WIDTH], hl.Target(target)).data().copy()


@pytest.mark.parametrize("idiom", IDIOMS, ids=str)
def test_instruction_in_assembly(idiom, tmp_path, llvm_wasm):
    asm = _compiled(idiom, "s", tmp_path)
    for instruction in idiom.instructions:
        assert re.search(rf"\b{re.escape(instruction)}\b", asm), \
            f"{idiom.name}: no {instruction} in the wasm assembly"
    for instruction in idiom.absent:
        assert not re.search(rf"\b{re.escape(instruction)}\b", asm), \
            f"{idiom.name}: {instruction} in the wasm assembly (lane by lane)"


@pytest.mark.parametrize("idiom", [i for i in IDIOMS if i.intrinsic], ids=str)
def test_intrinsic_in_lowered_statement(idiom, tmp_path):
    assert f"{idiom.intrinsic}(" in _compiled(idiom, "stmt", tmp_path)


@pytest.mark.parametrize("name", ["add_sat_u8", "dot"])
def test_golden_assembly(name, tmp_path, llvm_wasm):
    _check_golden(f"simd_{name}.wasm_simd128.s", _compiled(BY_NAME[name], "s", tmp_path))


@pytest.fixture(params=["reference", *TARGETS])
def target(request) -> str:
    if request.param.startswith("wasm"):
        for fixture in ("llvm_wasm", "wasm_ld", "wasmtime_engine"):
            request.getfixturevalue(fixture)
    return request.param


@pytest.mark.parametrize("idiom", IDIOMS, ids=str)
def test_same_values_as_reference(idiom, target):
    f, inputs = _pipeline(idiom)
    data = _inputs(idiom)
    got = _realize(f, inputs, data, target)
    if target == "reference":  # the oracle itself, against numpy
        wide = [v[:idiom.stride * WIDTH].astype(np.float64 if v.dtype.kind == "f" else np.int64)
                for v in data]
        want = np.asarray(idiom.expected(*wide)).astype(got.dtype)
    else:
        want = _realize(f, inputs, data, "reference")
    np.testing.assert_array_equal(got, want, err_msg=f"{idiom.name} on {target}")


# Vector widths other than one wasm register: several instructions, or a padded one.
OTHER_WIDTHS = [("add_sat_u8", 32), ("avgr_u8", 8), ("narrow_i16_u8", 8), ("narrow_i32_u8", 4),
                ("dot", 8), ("dot", 2), ("q15mulr", 16), ("extadd_pairwise_u8", 16),
                ("extadd_pairwise_u8", 4), ("extmul_i8", 8)]


@pytest.mark.parametrize(("name", "lanes"), OTHER_WIDTHS, ids=[f"{n}x{k}" for n, k in
                                                               OTHER_WIDTHS])
@pytest.mark.parametrize("compiled", TARGETS)
def test_other_vector_widths(name, lanes, compiled, llvm_wasm, wasm_ld, wasmtime_engine):
    idiom = BY_NAME[name]
    f, inputs = _pipeline(idiom, lanes)
    data = _inputs(idiom)
    np.testing.assert_array_equal(_realize(f, inputs, data, compiled),
                                  _realize(f, inputs, data, "reference"))


# Look-alikes whose values differ from the idiom's for some inputs: left as they are.
NOT_IDIOMS = [
    # u16 subtraction wraps below zero before the min
    ("wrapping_sub", (U8, U8), lambda a, b: hl.u8(hl.min(hl.u16(a[x]) - b[x], 255)), 16,
     "saturating_sub"),
    # without saturation, -32768 * -32768 wraps to -32768 where q15mulr gives 32767
    ("q15_wrapping", (I16, I16), lambda a, b: hl.i16((hl.i32(a[x]) * b[x] + 16384) >> 15), 8,
     "q15mulr"),
    # negative values wrap: no lower bound
    ("narrow_no_lower_bound", (I16, I16), lambda a, b: hl.u8(hl.min(a[x], 255)), 16,
     "saturating_narrow"),
    # the sum of two u16 in u16 wraps before the halving
    ("halving_of_wrapped_sum", (U16, U16), lambda a, b: hl.u8((a[x] + b[x] + 1) / 2), 8,
     "rounding_halving_add"),
    # no rounding: (a + b) / 2 is not avgr_u's (a + b + 1) / 2
    ("halving_add", (U8, U8), lambda a, b: hl.u8((hl.u16(a[x]) + b[x]) / 2), 16,
     "rounding_halving_add"),
    # loads two apart, not adjacent
    ("pairwise_gap", (U8, U8), lambda a, b: hl.u16(a[2 * x]) + a[2 * x + 2], 8,
     "widening_pairwise_add"),
]


@pytest.mark.parametrize(("name", "types", "define", "lanes", "intrinsic"), NOT_IDIOMS,
                         ids=[n[0] for n in NOT_IDIOMS])
def test_look_alikes_are_left_alone(name, types, define, lanes, intrinsic, tmp_path, llvm_wasm,
                                    wasm_ld, wasmtime_engine):
    idiom = Idiom(name, types, define, lambda a, b: None, lanes, (), intrinsic, stride=2)
    assert f"{intrinsic}(" not in _compiled(idiom, "stmt", tmp_path)
    f, inputs = _pipeline(idiom)
    data = _inputs(idiom)
    np.testing.assert_array_equal(_realize(f, inputs, data, SIMD),
                                  _realize(f, inputs, data, "reference"))
