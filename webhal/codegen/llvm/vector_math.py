"""exp, log and pow of float32 vectors, computed in vector registers (libm works one lane at a
time, which throws away SIMD). Range reduction plus minimax polynomials (the classic Cephes
single-precision coefficients), about 1 ulp on their main ranges; special values (0, negative,
infinite, NaN) follow C's powf/expf/logf."""

from __future__ import annotations

from llvmlite import ir as ll

from webhal.codegen.llvm.types import I32

LOG_POLY = [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
            1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
            3.3333331174e-1]
EXP_POLY = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
            1.6666665459e-1, 5.0000001201e-1]
LN2_HI, LN2_LO = 0.693359375, -2.12194440e-4
SQRT_HALF = 0.70710678118654752440
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
        fe = b.sitofp(e, self.vt)
        z = b.fmul(m, m)
        y = b.fmul(b.fmul(m, z), self.poly(m, LOG_POLY))
        y = b.fadd(y, b.fmul(fe, self.f(LN2_LO)))
        y = b.fsub(y, b.fmul(z, self.f(0.5)))
        r = b.fadd(b.fadd(m, y), b.fmul(fe, self.f(LN2_HI)))
        # log(0) = -inf, log(negative or NaN) = NaN, log(inf) = inf.
        r = b.select(b.fcmp_ordered("==", x, self.f(0.0)), self.f(float("-inf")), r)
        r = b.select(b.fcmp_unordered("<", x, self.f(0.0)), self.f(float("nan")), r)
        r = b.select(b.fcmp_unordered("uno", x, x), x, r)
        return b.select(b.fcmp_ordered("==", x, self.f(float("inf"))), x, r)

    def exp(self, x):
        b = self.b
        low, high = self.f(-104.0), self.f(88.72283935546875)  # selects: no libm call in wasm
        c = b.select(b.fcmp_ordered("<", x, low), low, x)
        c = b.select(b.fcmp_ordered(">", c, high), high, c)
        fx = self.call("llvm.floor", b.fadd(b.fmul(c, self.f(1.44269504088896341)),
                                            self.f(0.5)))
        r = b.fsub(b.fsub(c, b.fmul(fx, self.f(LN2_HI))), b.fmul(fx, self.f(LN2_LO)))
        z = b.fmul(r, r)
        y = b.fadd(b.fadd(b.fmul(self.poly(r, EXP_POLY), z), r), self.f(1.0))
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
        ax = self.call("llvm.fabs", x)
        r = self.exp(b.fmul(y, self.log(ax)))
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
