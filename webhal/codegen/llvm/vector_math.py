"""exp, log and pow of float32 vectors, computed in vector registers (libm works one lane at a
time, which throws away SIMD). Range reduction plus minimax polynomials (the classic Cephes
single-precision coefficients), about 1 ulp on their main ranges; special values (0, negative,
subnormal, infinite, NaN) follow C's powf/expf/logf.

Each function has two versions: a short one valid when every lane is an ordinary value (a
positive normal argument, an exp argument whose result is normal) and a complete one. A vector
takes the short one unless one of its lanes is out of range; in image pipelines that branch is
almost never taken, and the short path has half the instructions (no selects for special
values, a single scale factor in exp, the mantissa split with integer arithmetic)."""

from __future__ import annotations

from llvmlite import ir as ll

from webhal.codegen.llvm.types import I1, I32

LOG_POLY = [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
            1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
            3.3333331174e-1]
EXP_POLY = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
            1.6666665459e-1, 5.0000001201e-1]
LN2_HI, LN2_LO = 0.693359375, -2.12194440e-4
LOG2E = 1.44269504088896341
SQRT_HALF = 0.70710678118654752440
SQRT_HALF_BITS = 0x3F3504F3
MIN_NORMAL_BITS = 0x00800000
ROUNDING_SHIFT = 12582912.0  # 1.5 * 2**23: adding it rounds a float below 2**22 to an integer
EXP_FAST_LIMIT = 87.0  # |x| below it: 2**n is a normal float, so one scale factor does
INF_BITS, NAN_BITS = 0x7F800000, 0x7FC00000


class VectorMath:
    def __init__(self, cg, vt: ll.VectorType):
        self.cg, self.b, self.vt = cg, cg.builder, vt
        self.it = ll.VectorType(I32, vt.count)

    def f(self, value: float) -> ll.Constant:
        return ll.Constant(self.vt, [ll.Constant(self.vt.element, value)] * self.vt.count)

    def i(self, value: int) -> ll.Constant:
        return ll.Constant(self.it, [ll.Constant(I32, value)] * self.vt.count)

    def bits(self, v):
        return self.b.bitcast(v, self.it)

    def from_bits(self, v):
        return self.b.bitcast(v, self.vt)

    def call(self, name: str, *args):
        fn = self.cg.intrinsic(name, self.vt, [self.vt] * len(args))
        return self.b.call(fn, list(args))

    def poly(self, x, coefficients):
        b = self.b
        acc = self.f(coefficients[0])
        for c in coefficients[1:]:
            acc = b.fadd(b.fmul(acc, x), self.f(c))
        return acc

    def log(self, x):
        return self._either(self._positive_normal(x), self._log_positive_normal(x),
                            lambda: self.log_full(x))

    def _positive_normal(self, x):
        """Lanes holding a positive, normal, finite float: bits in [0x00800000, 0x7F800000)."""
        return self.b.icmp_unsigned("<", self.b.sub(self.bits(x), self.i(MIN_NORMAL_BITS)),
                                    self.i(INF_BITS - MIN_NORMAL_BITS))

    def _log_positive_normal(self, x):
        """ln x for positive normal x: subtracting sqrt(1/2)'s bits splits x into 2**k * m with
        m in [sqrt(1/2), sqrt(2)) using integer arithmetic alone."""
        b = self.b
        xb = self.bits(x)
        offset = b.sub(xb, self.i(SQRT_HALF_BITS))
        k = b.ashr(offset, self.i(23))
        m = self.from_bits(b.sub(xb, b.and_(offset, self.i(-(1 << 23)))))
        return self._log_of_split(b.fsub(m, self.f(1.0)), b.sitofp(k, self.vt))

    def _log_of_split(self, m, fe):
        """ln((1 + m) * 2**fe) for m in [sqrt(1/2) - 1, sqrt(2) - 1)."""
        b = self.b
        z = b.fmul(m, m)
        y = b.fmul(b.fmul(m, z), self.poly(m, LOG_POLY))
        y = b.fadd(y, b.fmul(fe, self.f(LN2_LO)))
        y = b.fsub(y, b.fmul(z, self.f(0.5)))
        return b.fadd(b.fadd(m, y), b.fmul(fe, self.f(LN2_HI)))

    def log_full(self, x):
        """ln x for every float."""
        b = self.b
        # Subnormals have no exponent bits to read: scale them by 2**23 into the normal range.
        tiny = b.fcmp_ordered("<", x, self.f(1.1754943508222875e-38))
        xb = self.bits(b.select(tiny, b.fmul(x, self.f(8388608.0)), x))
        e = b.sub(b.lshr(b.and_(xb, self.i(0x7F800000)), self.i(23)), self.i(126))
        e = b.select(tiny, b.sub(e, self.i(23)), e)
        m = self.from_bits(b.or_(b.and_(xb, self.i(0x007FFFFF)), self.i(0x3F000000)))  # [0.5, 1)
        small = b.fcmp_ordered("<", m, self.f(SQRT_HALF))
        e = b.select(small, b.sub(e, self.i(1)), e)
        m = b.select(small, b.fsub(b.fadd(m, m), self.f(1.0)), b.fsub(m, self.f(1.0)))
        r = self._log_of_split(m, b.sitofp(e, self.vt))
        # log(0) = -inf, log(negative or NaN) = NaN, log(inf) = inf.
        r = b.select(b.fcmp_ordered("==", x, self.f(0.0)), self.f(float("-inf")), r)
        r = b.select(b.fcmp_unordered("<", x, self.f(0.0)), self.f(float("nan")), r)
        r = b.select(b.fcmp_unordered("uno", x, x), x, r)
        return b.select(b.fcmp_ordered("==", x, self.f(float("inf"))), x, r)

    def exp(self, x):
        small = self.b.fcmp_ordered("<", self.call("llvm.fabs", x), self.f(EXP_FAST_LIMIT))
        return self._either(small, self._exp_small(x), lambda: self.exp_full(x))

    def _exp_small(self, x):
        """e**x for |x| < EXP_FAST_LIMIT: the result and its factor 2**n are normal floats.
        Adding 1.5 * 2**23 rounds x log2(e) to the integer n and leaves n in the low bits of
        the sum (no float-to-int conversion, which wasm only has in a slow saturating form)."""
        b = self.b
        shifted = b.fadd(b.fmul(x, self.f(LOG2E)), self.f(ROUNDING_SHIFT))
        fx = b.fsub(shifted, self.f(ROUNDING_SHIFT))
        # n << 23 plus the exponent bias is 2**n's bit pattern: the shift pushes 1.5 * 2**23's
        # own bits (all above bit 8) out of the word.
        scale = b.add(b.shl(self.bits(shifted), self.i(23)), self.i(127 << 23))
        return b.fmul(self._exp_of_reduced(x, fx), self.from_bits(scale))

    def _exp_of_reduced(self, x, fx):
        """e**(x - fx ln 2) for x - fx ln 2 within [-ln 2 / 2, ln 2 / 2] (ln 2 in two parts)."""
        b = self.b
        r = b.fsub(b.fsub(x, b.fmul(fx, self.f(LN2_HI))), b.fmul(fx, self.f(LN2_LO)))
        z = b.fmul(r, r)
        return b.fadd(b.fadd(b.fmul(self.poly(r, EXP_POLY), z), r), self.f(1.0))

    def exp_full(self, x):
        """e**x for every float."""
        b = self.b
        low, high = self.f(-104.0), self.f(88.72283935546875)  # selects: no libm call in wasm
        c = b.select(b.fcmp_ordered("<", x, low), low, x)
        c = b.select(b.fcmp_ordered(">", c, high), high, c)
        fx = self.call("llvm.floor", b.fadd(b.fmul(c, self.f(LOG2E)), self.f(0.5)))
        y = self._exp_of_reduced(c, fx)
        n = b.fptosi(fx, self.it)
        # 2**n as two factors, so that n up to 128 (x near 88.7) does not overflow the exponent.
        half = b.ashr(n, self.i(1))
        s1 = self.from_bits(b.shl(b.add(half, self.i(127)), self.i(23)))
        s2 = self.from_bits(b.shl(b.add(b.sub(n, half), self.i(127)), self.i(23)))
        result = b.fmul(b.fmul(y, s1), s2)
        result = b.select(b.fcmp_ordered(">", x, self.f(88.72283935546875)),
                          self.f(float("inf")), result)
        result = b.select(b.fcmp_ordered("<", x, self.f(-103.97)), self.f(0.0), result)
        return b.select(b.fcmp_unordered("uno", x, x), x, result)

    def pow(self, x, y):
        b = self.b
        t = b.fmul(y, self._log_positive_normal(x))
        ok = b.and_(self._positive_normal(x),
                    b.fcmp_ordered("<", self.call("llvm.fabs", t), self.f(EXP_FAST_LIMIT)))
        return self._either(ok, self._exp_small(t), lambda: self.pow_full(x, y))

    def _either(self, ok, fast, full):
        """`fast` when every lane is ok, else `full()`, computed on a branch of its own (marked
        unlikely) so that the common case pays one vector test for the special values."""
        b = self.b
        all_ok = b.call(self.cg.intrinsic("llvm.vector.reduce.and", I1, [ok.type], [ok.type]),
                        [ok])
        start = b.block
        special = start.function.append_basic_block("math.special")
        join = start.function.append_basic_block("math.join")
        b.cbranch(all_ok, join, special).set_weights([1 << 20, 1])
        b.position_at_end(special)
        slow = full()
        slow_end = b.block
        b.branch(join)
        b.position_at_end(join)
        result = b.phi(self.vt)
        result.add_incoming(fast, start)
        result.add_incoming(slow, slow_end)
        return result

    def pow_full(self, x, y):
        """x**y with C's powf special cases."""
        b = self.b
        ax = self.call("llvm.fabs", x)
        r = self.exp_full(b.fmul(y, self.log_full(ax)))
        # Negative bases: an integer exponent gives a signed result, others NaN.
        y_int = b.fcmp_ordered("==", self.call("llvm.trunc", y), y)
        half = b.fmul(y, self.f(0.5))
        y_odd = b.and_(y_int, b.fcmp_ordered("!=", self.call("llvm.trunc", half), half))
        negative = b.fcmp_ordered("<", x, self.f(0.0))
        signed = b.select(y_odd, b.fneg(r), r) if hasattr(b, "fneg") else \
            b.select(y_odd, b.fsub(self.f(-0.0), r), r)
        r = b.select(negative, b.select(y_int, signed, self.f(float("nan"))), r)
        # x == 1 or y == 0 give 1 (even for NaN), as C's powf.
        one = b.or_(b.fcmp_ordered("==", x, self.f(1.0)), b.fcmp_ordered("==", y, self.f(0.0)))
        return b.select(one, self.f(1.0), r)
