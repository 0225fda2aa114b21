"""Types and Halide's rules for combining them: Expr types, promotion, Python constants."""

import warnings

import numpy as np
import pytest

import webhal as hl

from ._helpers import value_of

x = hl.Var("x")

TYPES = {
    "u8": hl.UInt(8), "u16": hl.UInt(16), "u32": hl.UInt(32), "u64": hl.UInt(64),
    "i8": hl.Int(8), "i16": hl.Int(16), "i32": hl.Int(32), "i64": hl.Int(64),
    "f16": hl.Float(16), "f32": hl.Float(32), "f64": hl.Float(64), "bool": hl.Bool(),
}


def typed(name: str):
    """An Expr of the named type that is not a constant (so nothing folds)."""
    return hl.cast(TYPES[name], x)


# -- the types themselves --------------------------------------------------------------------

@pytest.mark.parametrize("name, t, dtype, bits", [
    ("uint8", hl.UInt(8), np.uint8, 8), ("int16", hl.Int(16), np.int16, 16),
    ("uint32", hl.UInt(32), np.uint32, 32), ("int64", hl.Int(64), np.int64, 64),
    ("float32", hl.Float(32), np.float32, 32), ("float64", hl.Float(64), np.float64, 64),
    ("float16", hl.Float(16), np.float16, 16), ("bool", hl.Bool(), np.bool_, 1),
])
def test_type_name_dtype_and_bits(name, t, dtype, bits):
    assert str(t) == name
    assert t.dtype == np.dtype(dtype)
    assert t.bits == bits


def test_type_predicates():
    assert hl.Int(8).is_int() and not hl.Int(8).is_uint()
    assert hl.UInt(8).is_uint() and hl.UInt(8).is_int_or_uint()
    assert hl.Float(32).is_float() and not hl.Float(32).is_int_or_uint()
    assert hl.Bool().is_bool() and hl.Bool() == hl.UInt(1)
    assert hl.Int(32) == hl.Int(32) and hl.Int(32) != hl.UInt(32)


def test_default_type_is_halides_zero_bit_handle():
    t = hl.Type()
    assert t.is_handle() and t.bits() == 0 and t.lanes() == 0 and str(t) == "handle0"
    assert t.code() == hl.TypeCode.Handle and t != hl.Handle()


def test_type_codes_by_halides_names():
    assert hl.Type(hl.TypeCode.Int, 32, 1) == hl.Type(hl.TypeCode.Int, 32) == hl.Int(32)
    assert hl.UInt(8).code() == hl.TypeCode.UInt and hl.UInt(8).code is hl.TypeCode.UINT
    assert hl.Int(32).with_code(hl.TypeCode.Float) == hl.Float(32)


@pytest.mark.parametrize("t, lo, hi", [
    (hl.UInt(8), 0, 255), (hl.Int(8), -128, 127), (hl.UInt(16), 0, 65535),
    (hl.Int(16), -32768, 32767), (hl.UInt(32), 0, 2**32 - 1), (hl.Int(32), -2**31, 2**31 - 1),
    (hl.Bool(), 0, 1),
])
def test_integer_limits(t, lo, hi):
    assert (t.min(), t.max()) == (lo, hi)


def test_float_limits_are_finite_extremes():
    assert hl.Float(32).max() == float(np.finfo(np.float32).max)
    assert hl.Float(64).min() == -float(np.finfo(np.float64).max)


# -- types of leaves ---------------------------------------------------------------------------

def test_leaf_types():
    assert x.type() == hl.Int(32)
    assert hl.Expr(3).type() == hl.Int(32)
    assert hl.Expr(2**31).type() == hl.Int(64)
    assert hl.Expr(1.5).type() == hl.Float(32)
    assert hl.Expr(True).type() == hl.Bool()
    assert hl.Param(hl.UInt(16), "p").type() == hl.UInt(16)
    assert hl.RDom([(0, 4)]).x.type() == hl.Int(32)


def test_comparisons_and_logic_are_bool():
    assert (x < 3).type() == hl.Bool()
    assert (typed("f32") == 1.5).type() == hl.Bool()
    assert ((x < 3) & (x > 1)).type() == hl.Bool()
    assert (~(x < 3)).type() == hl.Bool()


# -- promotion of two Exprs (Halide's match_types) ----------------------------------------------

@pytest.mark.parametrize("a, b, result", [
    ("u8", "u8", "u8"), ("u8", "u16", "u16"), ("u16", "u32", "u32"), ("i8", "i32", "i32"),
    ("u8", "i8", "i8"), ("u8", "i16", "i16"), ("u16", "i8", "i16"), ("u32", "i8", "i32"),
    ("i32", "u8", "i32"), ("u32", "i32", "i32"), ("u64", "i8", "i64"),
    ("u8", "f32", "f32"), ("i32", "f32", "f32"), ("f32", "f64", "f64"), ("f16", "f32", "f32"),
    ("i64", "f16", "f16"), ("u8", "f64", "f64"),
])
def test_binary_promotion(a, b, result):
    for e in (typed(a) + typed(b), typed(b) + typed(a), typed(a) * typed(b),
              hl.min(typed(a), typed(b))):
        assert e.type() == TYPES[result]
    assert (typed(a) < typed(b)).type() == hl.Bool()


def test_promotion_keeps_values_of_mixed_signedness():
    # u8 200 + i8 -100: both become int8, 200 wraps to -56, so the sum is -156 -> 100.
    assert value_of(hl.u8(200) + hl.i8(-100)) == 100
    assert value_of(hl.u16(65535) - hl.u8(1)) == 65534
    assert value_of(hl.i32(-1) + hl.u8(200)) == 199


# -- Python constants ----------------------------------------------------------------------------

def test_int_constant_takes_the_other_operands_type():
    assert (typed("u8") + 3).type() == hl.UInt(8)
    assert (3 + typed("i16")).type() == hl.Int(16)
    assert (typed("u8") < 255).type() == hl.Bool()
    assert (typed("f64") * 2).type() == hl.Float(64)
    assert value_of(hl.u8(250) + 10) == 4  # wraps in uint8


@pytest.mark.parametrize("make", [lambda: typed("u8") + 256, lambda: typed("u8") - (-1),
                                  lambda: typed("i8") * 200, lambda: typed("u16") == 70000])
def test_int_constant_that_does_not_fit_is_an_error(make):
    with pytest.raises(hl.CompileError, match="constant"):
        make()


def test_int_constant_outside_int32_is_int64():
    assert (typed("u32") + 2**31).type() == hl.Int(64)
    assert (x + 4_000_000_000).type() == hl.Int(64)
    assert value_of(hl.u32(4_000_000_000) + 2**32) == 4_000_000_000 + 2**32


def test_float_constant_with_an_integer_makes_float32():
    assert (typed("u8") + 1.5).type() == hl.Float(32)
    assert (typed("i32") * 0.5).type() == hl.Float(32)
    assert (typed("f16") + 0.5).type() == hl.Float(32)


def test_float_constant_beside_float64_is_rounded_to_float32_first():
    # As in Halide's Python bindings: a Python float is a float32 constant, then widened.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = hl.f64(hl.Expr(0)) + 1.1
    assert e.type() == hl.Float(64)
    assert value_of(e) == float(np.float32(1.1))
    assert value_of(hl.f64(hl.Expr(0)) + 0.5) == 0.5  # exact in float32: no change, no warning


def test_lossy_float_constant_warns_at_the_users_line():
    for make in (lambda: hl.Expr(0.1), lambda: typed("u8") + 0.1, lambda: hl.pow(x, 2.2),
                 lambda: hl.min(typed("f32"), 0.7)):
        with pytest.warns(RuntimeWarning, match="float32") as record:  # as in Halide
            make()
        assert record[0].filename == __file__


def test_division_of_python_int_by_expr_keeps_expr_type():
    assert (100 / typed("u8")).type() == hl.UInt(8)
    assert (100 // typed("f32")).type() == hl.Float(32)


def test_min_max_take_python_ints_as_int32():
    # Halide's Python min/max make Exprs of Python numbers first: hl.max(u8, 3) is int32.
    assert hl.max(typed("u8"), 3).type() == hl.Int(32)
    assert hl.min(typed("i16"), 3).type() == hl.Int(32)
    assert hl.min(typed("u8"), 3.5).type() == hl.Float(32)
    assert hl.max(typed("u8"), typed("u8")).type() == hl.UInt(8)
    assert hl.absd(typed("i16"), 5).type() == hl.UInt(32)


def test_clamp_keeps_the_first_arguments_type():
    assert hl.clamp(typed("u8"), 0, 50).type() == hl.UInt(8)
    assert hl.clamp(typed("f32"), 0, 1).type() == hl.Float(32)
    assert hl.clamp(x, typed("u8"), 5).type() == hl.Int(32)


def test_select_casts_int_literals_to_the_other_value():
    assert hl.select(x > 0, typed("u8"), 1).type() == hl.UInt(8)
    assert hl.select(x > 0, 2, typed("i16")).type() == hl.Int(16)
    assert value_of(hl.select(hl.Expr(0) > 0, hl.u8(1), 300)) == 44  # wraps, as Halide's
    assert value_of(hl.select(hl.Expr(0) > 0, hl.u8(1), -1)) == 255
    assert hl.select(x > 0, 1.5, 2).type() == hl.Float(32)


def test_values_of_different_types_are_refused_as_in_halide():
    """Halide refuses these rather than pick a type; so does webhal (a program that runs in
    webhal must run in Halide)."""
    cases = [
        (lambda: hl.select(x > 0, typed("u8"), typed("i16")), "values of select"),
        (lambda: hl.select(x > 0, typed("u8"), 1.5), "values of select"),
        (lambda: hl.mux(x, [typed("u8"), typed("i16")]), "values of mux"),
        (lambda: typed("u8") & typed("i8"), "both operands signed or both unsigned"),
        (lambda: typed("i8") ^ typed("u16"), "both operands signed or both unsigned"),
        (lambda: hl.clamp(typed("u8"), typed("i16"), 3), "lower bound of clamp"),
        (lambda: hl.clamp(typed("u8"), 0, 300), "upper bound of clamp"),
        (lambda: hl.clamp(typed("u8"), x, x), "lower bound of clamp"),
    ]
    for make, message in cases:
        with pytest.raises(hl.CompileError, match=message):
            make()


def test_what_halide_accepts_beside_those():
    assert (typed("u8") & typed("u16")).type() == hl.UInt(16)
    assert (typed("u8") | 3).type() == hl.UInt(8)
    assert hl.select(x > 0, typed("f32"), 2).type() == hl.Float(32)
    assert hl.mux(x, [typed("u8"), 3]).type() == hl.UInt(8)  # a Python int takes their type
    assert hl.clamp(typed("i16"), typed("u8"), typed("u8")).type() == hl.Int(16)  # widens
    assert hl.clamp(typed("f32"), 0, 1).type() == hl.Float(32)


# Bounds of clamp that are Exprs of another type: Halide converts those it can without loss
# (a constant its type holds exactly, a value of a narrower type, a widening cast of either) and
# refuses the rest. Each case: (value's type, lower bound, upper bound), a bound as (type, value)
# for a constant or (type, None) for the non-constant cast of x.
CLAMP_BOUNDS = [
    ("i64", ("u64", 2), ("u64", 1978344244445146328)),
    ("u8", ("i32", 5), ("i32", 100)),
    ("f32", ("i32", 1), ("i32", 3)),
    ("i32", ("f32", 1.0), ("f32", 3.0)),
    ("i16", ("u8", None), ("i16", 100)),
    ("i32", ("i64", -7), ("u16", None)),
    ("i16", ("i32", 2), ("i32", 100000)),
    ("u8", ("i32", -5), ("i32", 100)),
    ("i16", ("i32", None), ("i16", 100)),
    ("u64", ("i64", -1), ("i64", 3)),
    ("i32", ("u32", 1), ("u32", 4000000000)),
    ("i32", ("f32", 1.5), ("f32", 3.0)),
    ("u16", ("f64", 65535.0), ("f64", 65536.0)),
]


@pytest.mark.halide
@pytest.mark.parametrize("case", CLAMP_BOUNDS, ids=lambda c: "-".join(map(str, c)))
def test_clamp_bounds_of_other_types_as_in_halide(case):
    """The same refusals, and otherwise the same type and values over a few points."""
    from tests.halide_peer import require
    (halide,) = require("halide")

    def clamped(lib):
        v = lib.Var("v")

        def cast(name, value):
            kind = {"u": lib.UInt, "i": lib.Int, "f": lib.Float}[name[0]]
            return lib.cast(kind(int(name[1:])), v * 3 if value is None else value)

        try:
            e = lib.clamp(cast(case[0], None), cast(*case[1]), cast(*case[2]))
        except Exception as exc:  # noqa: BLE001 - a refusal is the answer to compare
            return type(exc).__name__, None
        f = lib.Func("clamped")
        f[v] = e
        out = f.realize([8], hl.Target("reference")) if lib is hl else f.realize([8])
        return str(e.type()), np.asarray(out)

    (ours, ours_values), (theirs, theirs_values) = clamped(hl), clamped(halide)
    if theirs == "HalideError":
        assert ours == "CompileError"
    else:
        assert ours == theirs
        np.testing.assert_array_equal(ours_values, theirs_values)


def test_cast_of_a_python_int_wraps():
    assert value_of(hl.cast(hl.UInt(8), 300)) == 44
    assert value_of(hl.u8(-1)) == 255
    assert value_of(hl.cast(hl.Int(32), 2**40 + 5)) == 5


def test_abs_and_absd_are_unsigned_for_signed_ints():
    assert hl.abs(typed("i8")).type() == hl.UInt(8)
    assert hl.abs(typed("i32")).type() == hl.UInt(32)
    assert hl.abs(typed("u16")).type() == hl.UInt(16)
    assert hl.abs(typed("f32")).type() == hl.Float(32)
    assert hl.absd(typed("i16"), typed("i16")).type() == hl.UInt(16)
    assert hl.absd(typed("f64"), typed("f64")).type() == hl.Float(64)


def test_math_functions_make_floats():
    assert hl.sqrt(x).type() == hl.Float(32)
    assert hl.sqrt(typed("f64")).type() == hl.Float(64)
    assert hl.floor(typed("u8")).type() == hl.Float(32)
    assert hl.atan2(typed("f64"), typed("f32")).type() == hl.Float(64)
    assert hl.is_nan(typed("f32")).type() == hl.Bool()


def test_pow_types():
    assert hl.pow(x, 2).type() == hl.Int(32)  # a constant int exponent multiplies
    assert (typed("u8") ** 2).type() == hl.UInt(8)
    assert hl.pow(x, 0.5).type() == hl.Float(32)
    assert hl.pow(typed("f64"), typed("f32")).type() == hl.Float(64)
    assert hl.pow(typed("f32"), typed("f64")).type() == hl.Float(32)  # the base's type
    assert (2 ** x).type() == hl.Float(32)


def test_shift_types():
    assert (typed("u8") << 1).type() == hl.UInt(8)
    assert (typed("u8") >> typed("u16")).type() == hl.UInt(16)
    assert (typed("i8") >> typed("u16")).type() == hl.Int(16)
    assert (typed("u16") << typed("i8")).type() == hl.UInt(16)
    assert (3 << typed("u8")).type() == hl.Int(32)


def test_bitwise_types():
    assert (typed("u8") & 3).type() == hl.UInt(8)
    assert (typed("u8") ^ typed("u16")).type() == hl.UInt(16)
    assert (~typed("i16")).type() == hl.Int(16)
    with pytest.raises(hl.CompileError):
        typed("f32") & 1


def test_cast_helpers():
    for helper, t in [(hl.u8, hl.UInt(8)), (hl.u16, hl.UInt(16)), (hl.u32, hl.UInt(32)),
                      (hl.u64, hl.UInt(64)), (hl.i8, hl.Int(8)), (hl.i16, hl.Int(16)),
                      (hl.i32, hl.Int(32)), (hl.i64, hl.Int(64)), (hl.f16, hl.Float(16)),
                      (hl.f32, hl.Float(32)), (hl.f64, hl.Float(64))]:
        assert helper(x).type() == t
    assert hl.cast(hl.Float(32), x).type() == hl.Float(32)
    assert hl.reinterpret(hl.UInt(32), typed("f32")).type() == hl.UInt(32)
    with pytest.raises(hl.CompileError, match="width"):
        hl.reinterpret(hl.UInt(16), typed("f32"))


def test_func_type_is_its_values_type():
    f = hl.Func("f")
    f[x] = hl.u16(x) * 2
    assert f.type() == hl.UInt(16)
    assert np.asarray(f.realize([3], "reference")).dtype == np.uint16


def test_a_python_float_is_a_float32_even_in_a_cast_to_float64():
    """As Halide's bindings (which warn): hl.cast(hl.Float(64), 0.1) is float32(0.1) widened;
    hl.f64(0.1) keeps every bit, hl.f32(0.1) rounds without a warning."""
    with pytest.warns(RuntimeWarning, match="loses precision"):
        widened = hl.cast(hl.Float(64), 0.1)
    assert value_of(widened) == float(np.float32(0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert value_of(hl.f64(0.1)) == 0.1
        assert value_of(hl.f32(0.1)) == float(np.float32(0.1))


def test_type_queries_as_halides():
    """can_represent of a Type, is_max/is_min and same_handle_type answer as Halide 21's."""
    assert hl.Float(32).can_represent(hl.Bool()) and not hl.Bool().can_represent(hl.Float(32))
    assert hl.Int(32).can_represent(hl.UInt(16)) and not hl.Int(16).can_represent(hl.UInt(16))
    assert hl.Float(64).can_represent(hl.Int(32)) and not hl.Float(32).can_represent(hl.Int(32))
    assert hl.Bool().is_max(1) and hl.Bool().is_min(0) and hl.Int(8).is_min(-128)
    assert not hl.Float(32).is_max(1)
    assert hl.Handle().same_handle_type(hl.Handle())
