"""Random expressions for the differential tester, as Python source over a module `hl`.

Every value carries an interval of what it can be, so the generator only writes expressions
whose meaning Halide defines: no signed 32/64-bit overflow, no float-to-int cast out of range,
no NaN (min/max/clamp of NaN vary between Halide's targets), no division of a type's minimum by
-1. Narrow integers wrap, as Halide defines. Float values fed by math functions (whose last
bits differ between libm, Halide's polynomials and the GPU) are marked inexact, and never reach
a rounding, a comparison or a cast to an integer, where a last-bit difference would turn into
a large one.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

import numpy as np

INT_TYPES = ["uint8", "int8", "uint16", "int16", "int32", "uint32"]
WIDE_TYPES = ["int64", "uint64"]  # CPU targets only: WGSL has no 64-bit types
FLOAT_TYPES = ["float32", "float64"]
HL_TYPE = {"uint8": "hl.UInt(8)", "int8": "hl.Int(8)", "uint16": "hl.UInt(16)",
           "int16": "hl.Int(16)", "int32": "hl.Int(32)", "uint32": "hl.UInt(32)",
           "int64": "hl.Int(64)", "uint64": "hl.UInt(64)",
           "float32": "hl.Float(32)", "float64": "hl.Float(64)", "bool": "hl.Bool()"}
BOUNDARIES = ["repeat_edge", "repeat_image", "mirror_image", "mirror_interior",
              "constant_exterior"]
TAILS = ["Auto", "GuardWithIf", "ShiftInwards", "RoundUp"]
MARGIN = 24  # inputs read without a boundary condition reach this far outside the output
COORD = (-2 * MARGIN, 3 * MARGIN)  # what x and y can be anywhere in a pipeline


def type_range(t: str) -> tuple[float, float]:
    if t == "bool":
        return 0, 1
    if t.startswith("float"):
        return -math.inf, math.inf
    info = np.iinfo(t)
    return int(info.min), int(info.max)


def _floor(v: float) -> float:
    return math.floor(v) if isinstance(v, float) and math.isfinite(v) else v


def _ceil(v: float) -> float:
    return math.ceil(v) if isinstance(v, float) and math.isfinite(v) else v


def bits(t: str) -> int:
    return 1 if t == "bool" else np.dtype(t).itemsize * 8


def signed(t: str) -> bool:
    return t.startswith("int") or t.startswith("float")


@dataclass(frozen=True)
class Val:
    """An expression's source text, type, the interval of its values, and whether a float is
    computed only with correctly rounded operations (so every target gives the same bits)."""
    code: str
    type: str
    lo: float
    hi: float
    exact: bool = True

    def fits(self, t: str) -> bool:
        lo, hi = type_range(t)
        return lo <= self.lo and self.hi <= hi


class Generator:
    """Draws expressions from a seed's random stream; PipelineGenerator (program.py) builds
    a whole Program on it. `gpu`: only the types WGSL has (no 64-bit)."""

    def __init__(self, seed: int, gpu: bool = False):
        self.seed, self.gpu = seed, gpu
        self.rng = random.Random(seed * 2 + int(gpu))
        self.lines: list[str] = []
        self.features: set[str] = set()
        self.floaty: set[str] = set()  # images and Funcs whose values come from floats
        self.int_types = INT_TYPES if gpu else INT_TYPES + WIDE_TYPES
        self.float_types = ["float32"] if gpu else FLOAT_TYPES

    # -- helpers ---------------------------------------------------------------------------

    def from_float(self, code: str) -> bool:
        """Whether code may compute a value from a float (a cast, a float image or Func)."""
        return "Float(" in code or any(re.search(rf"\b{n}\[", code) for n in self.floaty)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def const(self, t: str, lo=None, hi=None) -> Val:
        """A constant of type t, as Halide's typed constant."""
        if t.startswith("float"):
            v = self.pick([0.0, 0.5, -1.25, 3.0, 100.0, -7.5, 0.1])
            return Val(f"hl.cast({HL_TYPE[t]}, {v!r})", t, v if t == "float64" else
                       float(np.float32(v)), v if t == "float64" else float(np.float32(v)))
        tlo, thi = type_range(t)
        thi = min(thi, 2**63 - 1)  # (Halide's Python cast takes an int64)
        lo = tlo if lo is None else max(lo, tlo)
        hi = thi if hi is None else min(hi, thi)
        v = self.pick([lo, hi, 0, 1, 2, 3, 7, -1, -3, 100, lo + 1, hi - 1,
                       self.rng.randint(lo, hi)])
        v = min(max(v, lo), hi)
        return Val(f"hl.cast({HL_TYPE[t]}, {v})", t, v, v)

    @staticmethod
    def wrap(t: str, lo: float, hi: float, code: str, exact: bool = True) -> Val | None:
        """A result of type t whose exact interval is [lo, hi]: narrow and unsigned integers
        wrap (their interval becomes the type's), 32/64-bit signed overflow is refused (None:
        undefined in Halide)."""
        tlo, thi = type_range(t)
        if t.startswith("float"):
            if max(abs(lo), abs(hi)) > 1e30:
                return None
            return Val(code, t, lo, hi, exact)
        if lo < tlo or hi > thi:
            if t in ("int32", "int64"):
                return None
            lo, hi = tlo, thi
        return Val(code, t, lo, hi, exact)

    @staticmethod
    def cast(t: str, a: Val, fn: str = "hl.cast") -> Val:
        code = f"{fn}({HL_TYPE[t]}, {a.code})"
        if t.startswith("float"):  # rounded as the cast rounds: u32 4294967295 is 2**32
            near = np.float32 if t == "float32" else np.float64
            return Val(code, t, float(near(a.lo)), float(near(a.hi)), a.exact)
        # Integer bounds stay exact integers: a float bound such as -443.9 added to a 64-bit
        # constant near -2**63 rounds to -2**63 and would look as if it fit (seed 7881).
        a = Val(a.code, a.type, _floor(a.lo), _ceil(a.hi), a.exact)
        if a.fits(t):
            return Val(code, t, a.lo, a.hi)
        if fn == "hl.saturating_cast":
            tlo, thi = type_range(t)
            return Val(code, t, min(max(a.lo, tlo), thi), max(min(a.hi, thi), tlo))
        return Val(code, t, *type_range(t))

    def to_type(self, t: str, a: Val) -> Val | None:
        """a as type t, with a cast Halide defines: floats are clamped into range first."""
        if a.type == t:
            return a
        if a.type.startswith("float") and not t.startswith("float"):
            if not a.exact:
                return None
            tlo, thi = type_range(t)
            if not a.fits(t):
                if self.chance(0.5):
                    return self.cast(t, a, "hl.saturating_cast")
                lo, hi = max(tlo, -2e9), min(thi, 2e9)
                a = Val(f"hl.clamp({a.code}, {float(lo)!r}, {float(hi)!r})", a.type,
                        max(a.lo, lo), min(a.hi, hi))
        return self.cast(t, a, self.pick(["hl.cast", "hl.cast", "hl.saturating_cast"]))

    # -- expressions -----------------------------------------------------------------------

    def leaf(self, t: str, sources: list[Val]) -> Val:
        kind = self.pick(["source", "source", "source", "coordinate", "constant"])
        if kind == "source" and sources:
            v = self.to_type(t, self.pick(sources))
            if v is not None:
                return v
        if kind == "coordinate" or t.startswith("float"):
            c = self.pick(["x", "y", "x - y", "x + 2 * y"])
            lo, hi = COORD
            span = {"x": (lo, hi), "y": (lo, hi), "x - y": (lo - hi, hi - lo),
                    "x + 2 * y": (3 * lo, 3 * hi)}[c]
            v = self.to_type(t, Val(c, "int32", *span))
            if v is not None:
                return v
        return self.const(t)

    def expr(self, t: str, sources: list[Val], depth: int) -> Val:
        for _ in range(8):
            if depth == 0 or self.chance(0.25):
                return self.leaf(t, sources)
            v = (self.float_op if t.startswith("float") else self.int_op)(t, sources, depth)
            if v is not None:
                return v
        return self.leaf(t, sources)

    def common(self, t: str, a: Val, b: Val, sources, depth) -> Val | None:
        """Operations of every type: min, max, clamp, select, absd, a cast through another
        type, mux."""
        op = self.pick(["min", "max", "clamp", "select", "select3", "absd", "through", "mux"])
        if op == "min":
            return Val(f"hl.min({a.code}, {b.code})", t, min(a.lo, b.lo), min(a.hi, b.hi),
                       a.exact and b.exact)
        if op == "max":
            return Val(f"hl.max({a.code}, {b.code})", t, max(a.lo, b.lo), max(a.hi, b.hi),
                       a.exact and b.exact)
        if op == "clamp":  # constant bounds of t, sometimes the wrong way round
            lo, hi = self.const(t), self.const(t)
            if lo.lo > hi.lo and self.chance(0.7):
                lo, hi = hi, lo
            vlo = min(max(a.lo, lo.lo), hi.lo) if lo.lo <= hi.lo else lo.lo
            vhi = min(max(a.hi, lo.lo), hi.lo) if lo.lo <= hi.lo else lo.lo
            return Val(f"hl.clamp({a.code}, {lo.code}, {hi.code})", t, vlo, vhi, a.exact)
        if op in ("select", "select3"):
            cond = self.condition(sources, depth - 1)
            if cond is None:
                return None
            # (Halide's select of two Func references is a Tuple: Exprs make it an Expr)
            if op == "select":
                return hull(f"hl.select({cond}, {as_expr(a.code)}, {as_expr(b.code)})", a, b)
            c = self.expr(t, sources, depth - 1)
            cond2 = self.condition(sources, depth - 1)
            if cond2 is None:
                return None
            return hull(f"hl.select({cond}, {as_expr(a.code)}, {cond2}, {as_expr(b.code)}, "
                        f"{as_expr(c.code)})", a, b, c)
        if op == "absd":
            if t.startswith("float"):
                return self.wrap(t, 0, max(abs(a.hi - b.lo), abs(b.hi - a.lo)),
                                 f"hl.absd({a.code}, {b.code})", a.exact and b.exact)
            # Halide's absd of integers is unsigned of the same width
            ut = "uint" + str(bits(t))
            d = Val(f"hl.absd({a.code}, {b.code})", ut, 0,
                    min(max(abs(a.hi - b.lo), abs(b.hi - a.lo)), type_range(ut)[1]))
            return self.to_type(t, d)
        if op == "through":  # another type and back
            other = self.pick(self.int_types + self.float_types)
            mid = self.to_type(other, a)
            return None if mid is None else self.to_type(t, mid)
        if op == "mux":
            c = self.expr(t, sources, depth - 1)
            i = self.to_type("int32", self.pick(sources)) if sources else None
            if i is None:
                return None
            return hull(f"hl.mux({as_expr(i.code)}, [{as_expr(a.code)}, {as_expr(b.code)}, "
                        f"{as_expr(c.code)}])", a, b, c)
        return None

    def condition(self, sources, depth) -> str | None:
        t = self.pick(self.int_types + self.float_types)
        a, b = self.expr(t, sources, depth), self.expr(t, sources, depth)
        if not (a.exact and b.exact):
            return None
        cmp = self.pick(["<", "<=", "==", "!=", ">", ">="])
        cond = f"({a.code}) {cmp} ({b.code})"
        if self.chance(0.2):
            other = self.condition(sources, depth - 1) if depth > 0 else None
            if other is not None:
                cond = f"({cond}) {self.pick(['&', '|'])} ({other})"
        return cond

    def int_op(self, t: str, sources, depth) -> Val | None:
        a, b = self.expr(t, sources, depth - 1), self.expr(t, sources, depth - 1)
        op = self.pick(["+", "-", "*", "/", "%", "common", "common", "bit", "shift", "const",
                        "lerp", "promote", "sat"])
        tlo, thi = type_range(t)
        if op in ("+", "-", "*"):
            corners = [eval(f"p {op} q") for p in (a.lo, a.hi) for q in (b.lo, b.hi)]  # noqa: S307
            return self.wrap(t, min(corners), max(corners), f"({a.code}) {op} ({b.code})")
        if op in ("/", "%"):
            if signed(t) and a.lo <= tlo and b.lo <= -1 <= b.hi:
                return None  # the type's minimum over -1 overflows
            m = max(abs(a.lo), abs(a.hi))
            if op == "/":
                return Val(f"({a.code}) / ({b.code})", t, max(-m, tlo), min(m, thi))
            bm = max(abs(b.lo), abs(b.hi))
            return Val(f"({a.code}) % ({b.code})", t, 0, min(max(bm - 1, 0), thi))
        if op == "common":
            return self.common(t, a, b, sources, depth)
        if op == "bit":
            o = self.pick(["&", "|", "^", "~"])
            if o == "~":
                return Val(f"~({a.code})", t, tlo, thi)
            return Val(f"({a.code}) {o} ({b.code})", t, tlo, thi)
        if op == "shift":
            return self.shift(t, a, sources, depth)
        if op == "const":  # a Python constant: Halide converts it to the Expr's type
            c = self.rng.randint(max(tlo, -100), min(thi, 100))
            o = self.pick(["+", "-", "*", "/", "%", "min", "max"])
            if o in ("min", "max"):
                return Val(f"hl.{o}({a.code}, {c})", t, *(
                    (min(a.lo, c), min(a.hi, c)) if o == "min" else (max(a.lo, c), max(a.hi, c))))
            if o in ("/", "%"):
                if signed(t) and c == -1 and a.lo <= tlo:
                    return None
                m = max(abs(a.lo), abs(a.hi))
                if o == "/":
                    return Val(f"({a.code}) / {c}", t, max(-m, tlo), min(m, thi))
                return Val(f"({a.code}) % {c}", t, 0, max(abs(c) - 1, 0))
            left = self.chance(0.5)
            corners = [eval(f"p {o} {c}" if left else f"{c} {o} p") for p in (a.lo, a.hi)]  # noqa: S307
            code = f"({a.code}) {o} {c}" if left else f"{c} {o} ({a.code})"
            return self.wrap(t, min(corners), max(corners), code)
        if op == "lerp":
            if self.from_float(a.code + b.code):
                return None  # Halide 21 gets an integer lerp of values cast from float wrong
            w = self.expr(self.pick(["uint8", "float32"]), sources, depth - 1)
            if w.type == "float32":
                if not w.exact:
                    return None
                w = Val(f"hl.clamp({w.code}, 0.0, 1.0)", "float32", 0.0, 1.0)
            return Val(f"hl.lerp({a.code}, {b.code}, {w.code})", t, min(a.lo, b.lo),
                       max(a.hi, b.hi))
        if op == "promote":  # an operation between two types: Halide's promotion rules
            other = self.pick(self.int_types + ["float32"])
            c = self.expr(other, sources, depth - 1)
            o = self.pick(["+", "-", "*", "min", "max"])
            rt = promote(t, other)
            if rt is None:
                return None
            av, cv = self.cast(rt, a), self.cast(rt, c)  # the intervals Halide's casts give
            if o in ("min", "max"):
                pick = min if o == "min" else max
                r = Val(f"hl.{o}({a.code}, {c.code})", rt, pick(av.lo, cv.lo),
                        pick(av.hi, cv.hi), c.exact)
            else:
                corners = [eval(f"p {o} q") for p in (av.lo, av.hi) for q in (cv.lo, cv.hi)]  # noqa: S307
                r = self.wrap(rt, min(corners), max(corners), f"({a.code}) {o} ({c.code})",
                              c.exact)
            return None if r is None else self.to_type(t, r)
        if op == "sat":
            other = self.pick(self.int_types + self.float_types)
            mid = self.to_type(other, a)
            if mid is None:
                return None
            return self.cast(t, mid, "hl.saturating_cast")
        return None

    def shift(self, t: str, a: Val, sources, depth) -> Val | None:
        """a << s or a >> s, by a constant or by another value, of a's type or the other
        signedness of its width (negative amounts shift the other way); amounts stay below
        the width."""
        n = bits(t)
        o = self.pick(["<<", ">>"])
        kind = self.pick(["const", "same", "other"])
        # a left shift of a 32/64-bit signed value past its range is signed overflow,
        # undefined in Halide as for `*`: only by a constant, and where the values fit
        wide_signed = t in ("int32", "int64")
        if kind == "const":
            s = self.rng.randint(0, n - 1)
            code = f"({a.code}) {o} {s}"
            if wide_signed and o == "<<" and \
                    self.wrap(t, a.lo * 2**s, a.hi * 2**s, code) is None:
                return None
        else:
            if wide_signed and o == "<<":
                return None
            st = t if kind == "same" else ("u" + t if signed(t) else t[1:])
            raw = self.expr(st, sources, depth - 1)
            # amounts in (-n, n): a remainder keeps them there
            if signed(st):
                sign = self.pick([1, -1])
                if wide_signed and sign == -1:
                    return None  # (a Euclidean remainder is never negative) a left shift
                amt = f"(({raw.code}) % {n}) * hl.cast({HL_TYPE[st]}, {sign})"
            else:
                amt = f"({raw.code}) % {n}"
            code = f"({a.code}) {o} ({amt})"
        return Val(code, t, *type_range(t))

    def float_op(self, t: str, sources, depth) -> Val | None:
        a, b = self.expr(t, sources, depth - 1), self.expr(t, sources, depth - 1)
        op = self.pick(["+", "-", "*", "/", "common", "common", "math", "round", "const",
                        "lerp", "promote"])
        ex = a.exact and b.exact
        if op in ("+", "-", "*"):
            corners = [eval(f"p {op} q") for p in (a.lo, a.hi) for q in (b.lo, b.hi)]  # noqa: S307
            return self.wrap(t, min(corners), max(corners), f"({a.code}) {op} ({b.code})", ex)
        if op == "/":  # by |b| + 1, never zero
            m = max(abs(a.lo), abs(a.hi))
            return self.wrap(t, -m, m, f"({a.code}) / (hl.abs({b.code}) + 1)",
                             ex and not self.gpu)
        if op == "common":
            return self.common(t, a, b, sources, depth)
        if op == "math":
            return self.math(t, a, b)
        if op == "round":
            if not a.exact:
                return None
            fn = self.pick(["floor", "ceil", "round", "trunc"])
            return Val(f"hl.{fn}({a.code})", t, math.floor(a.lo), math.ceil(a.hi))
        if op == "const":
            c = self.pick([0.5, 2.0, -3.0, 0.25, 10.0, 1])
            o = self.pick(["+", "-", "*"])
            corners = [eval(f"p {o} {c}") for p in (a.lo, a.hi)]  # noqa: S307
            return self.wrap(t, min(corners), max(corners), f"({a.code}) {o} {c!r}", a.exact)
        if op == "lerp":
            w = self.expr(t, sources, depth - 1)
            return Val(f"hl.lerp({a.code}, {b.code}, hl.clamp({w.code}, 0.0, 1.0))", t,
                       min(a.lo, b.lo), max(a.hi, b.hi), ex and w.exact and not self.gpu)
        if op == "promote":  # an integer meets a float: the float's type wins
            i = self.expr(self.pick(self.int_types), sources, depth - 1)
            o = self.pick(["+", "-", "*"])
            corners = [eval(f"p {o} q") for p in (a.lo, a.hi) for q in (i.lo, i.hi)]  # noqa: S307
            return self.wrap(t, min(corners), max(corners), f"({a.code}) {o} ({i.code})",
                             a.exact and t == "float64" or (a.exact and i.fits("int16")))
        return None

    def math(self, t: str, a: Val, b: Val) -> Val | None:
        fn = self.pick(["sqrt", "exp", "log", "sin", "cos", "tanh", "atan2", "pow", "abs",
                        "fract"])
        m = max(abs(a.lo), abs(a.hi))
        if fn == "sqrt":
            return Val(f"hl.sqrt(hl.abs({a.code}))", t, 0, math.sqrt(m) + 1, a.exact and
                       not self.gpu)
        if fn == "abs":
            return Val(f"hl.abs({a.code})", t, 0, m, a.exact)
        if fn == "fract":
            if not a.exact:
                return None
            return Val(f"hl.fract({a.code})", t, 0, 1)
        if fn == "exp":
            return Val(f"hl.exp(hl.clamp({a.code}, -20.0, 20.0))", t, 0, math.exp(20), False)
        if fn == "log":
            return Val(f"hl.log(hl.abs({a.code}) + 1)", t, 0, math.log(m + 1) + 1, False)
        if fn in ("sin", "cos", "tanh"):
            if m > 1e4:
                return None
            return Val(f"hl.{fn}({a.code})", t, -1, 1, False)
        if fn == "atan2":
            return Val(f"hl.atan2({a.code}, {b.code})", t, -4, 4, False)
        if fn == "pow":
            if m > 1e6:
                return None
            return Val(f"hl.pow(hl.abs({a.code}) + 1, hl.clamp({b.code}, -2.0, 2.0))", t,
                       0, (m + 1) ** 2, False)
        return None


def promote(a: str, b: str) -> str | None:
    """Halide's result type of a binary operation between values of types a and b."""
    if a == b:
        return a
    fa, fb = a.startswith("float"), b.startswith("float")
    if fa or fb:
        if fa and fb:
            return a if bits(a) >= bits(b) else b
        return a if fa else b
    if signed(a) == signed(b):
        return a if bits(a) >= bits(b) else b
    # one signed, one unsigned: a signed type of the wider width
    return "int" + str(max(bits(a), bits(b)))


def hull(code: str, *choices: Val) -> Val:
    """A value that is one of `choices` (a select, a mux): their type, the union of their
    intervals, exact when all are."""
    return Val(code, choices[0].type, min(v.lo for v in choices), max(v.hi for v in choices),
               all(v.exact for v in choices))


def as_expr(code: str) -> str:
    """A Func reference wrapped as an Expr: Halide's mux takes Exprs only, its select of two
    Func references is a Tuple, and it has no Expr(Expr) (a Buffer read is an Expr there)."""
    return f"hl.Expr({code})" if re.fullmatch(r"(f\d+|b\d+|h)\[[^\[\]]*\]", code) else code
