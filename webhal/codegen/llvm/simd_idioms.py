"""LLVM code for the SIMD idioms that passes/find_intrinsics.py recognizes (their meaning is
documented there). With wasm SIMD they become its instructions: add_sat/sub_sat (llvm.*.sat),
avgr_u and extmul (the patterns LLVM's wasm backend selects them from), narrow, q15mulr_sat, dot
and extadd_pairwise (wasm intrinsics, 128 bits at a time). Everywhere else, and for types wasm
has no instruction for, they are the same arithmetic in plain LLVM IR."""

from __future__ import annotations

from llvmlite import ir as ll

from webhal.codegen.llvm.types import I32, llvm_type
from webhal.ir.types import Int, Type

IDIOMS = frozenset({"saturating_add", "saturating_sub", "rounding_halving_add", "widening_mul",
                    "saturating_narrow", "q15mulr", "widening_pairwise_add", "dot"})

I16X8, I32X4 = ll.VectorType(ll.IntType(16), 8), ll.VectorType(I32, 4)


def emit(cg, e, args: list[ll.Value]) -> ll.Value:
    b, t = cg.builder, e.type
    lt = llvm_type(t)
    simd = cg.wasm_simd128 and t.lanes > 1
    match e.name:
        case "saturating_add" | "saturating_sub":
            name = ("s" if t.is_int() else "u") + e.name.removeprefix("saturating_")
            return b.call(cg.intrinsic(f"llvm.{name}.sat", lt, [lt, lt]), args)
        case "widening_mul":
            x, y = (cg.convert(v, a.type, t) for v, a in zip(args, e.args))
            return b.mul(x, y)
        case "rounding_halving_add":
            # (a + b + 1) >> 1 in twice the width, which LLVM selects avgr_u from.
            wide = Type(t.code, 2 * t.bits, t.lanes)
            x, y = (cg.convert(v, t, wide) for v in args)
            s = b.add(b.add(x, y), cg.const(wide, 1))
            one = cg.const(wide, 1)
            return b.trunc(b.ashr(s, one) if t.is_int() else b.lshr(s, one), lt)
        case "saturating_narrow":
            src = e.args[0].type
            if simd and src.is_int_or_uint() and src.bits in (16, 32) and t.bits in (8, 16):
                v = args[0]
                if src.is_uint():
                    # narrow_* reads its lanes as signed, so unsigned ones are clamped first.
                    # (LLVM 22 selects narrow for trunc(umin(x, 255)) without the clamp, which
                    # gives 0 for lanes >= 2**15: that pattern must not reach it.)
                    v = b.call(cg.intrinsic("llvm.umin", v.type, [v.type, v.type]),
                               [v, cg.const(src, t.max())])
                return wasm_narrow(cg, v, src, t)
            return _clamp_and_truncate(cg, args[0], src, t)
        case "q15mulr":
            if simd:
                fn = cg.intrinsic("llvm.wasm.q15mulr.sat.signed", I16X8, [I16X8, I16X8], [])
                return _by_vectors(cg, args, 8, t.lanes, lambda c: b.call(fn, c))
            wide = Int(32, t.lanes)
            x, y = (cg.convert(v, t, wide) for v in args)
            s = b.ashr(b.add(b.mul(x, y), cg.const(wide, 16384)), cg.const(wide, 15))
            return _clamp_and_truncate(cg, s, wide, t)
        case "dot":
            if simd:
                fn = cg.intrinsic("llvm.wasm.dot", I32X4, [I16X8, I16X8], [])
                return _by_vectors(cg, args, 8, t.lanes, lambda c: b.call(fn, c))
            (ue, uo), (ve, vo) = (_even_odd(cg, v) for v in args)
            src = e.args[0].type.with_lanes(t.lanes)
            product = lambda x, y: b.mul(cg.convert(x, src, t), cg.convert(y, src, t))  # noqa
            return b.add(product(ue, ve), product(uo, vo))
        case "widening_pairwise_add":
            src = e.args[0].type
            if simd and src.bits in (8, 16):
                sign = "signed" if src.is_int() else "unsigned"
                per = 128 // src.bits
                vin = ll.VectorType(ll.IntType(src.bits), per)
                vout = ll.VectorType(ll.IntType(t.bits), per // 2)
                fn = cg.intrinsic(f"llvm.wasm.extadd.pairwise.{sign}", vout, [vin], [vout, vin])
                return _by_vectors(cg, args, per, t.lanes, lambda c: b.call(fn, c))
            even, odd = _even_odd(cg, args[0])
            half = src.with_lanes(t.lanes)
            return b.add(cg.convert(even, half, t), cg.convert(odd, half, t))
    raise AssertionError(e.name)


def _clamp_and_truncate(cg, v: ll.Value, src: Type, t: Type) -> ll.Value:
    b = cg.builder
    lo, hi = max(t.min(), src.min()), min(t.max(), src.max())
    s = "s" if src.is_int() else "u"
    if lo > src.min():
        v = b.call(cg.intrinsic(f"llvm.{s}max", v.type, [v.type, v.type]),
                   [v, cg.const(src, lo)])
    if hi < src.max():
        v = b.call(cg.intrinsic(f"llvm.{s}min", v.type, [v.type, v.type]),
                   [v, cg.const(src, hi)])
    return b.trunc(v, llvm_type(t))


def wasm_narrow(cg, v: ll.Value, src: Type, t: Type) -> ll.Value:
    """narrow_*: halves the width with saturation, from two vectors of signed lanes. A wider
    gap takes signed steps first (clamping to int16, then to uint8, is clamping to uint8)."""
    bits = src.bits
    while bits > t.bits:
        half = bits // 2
        sign = "unsigned" if half == t.bits and t.is_uint() else "signed"
        vin = ll.VectorType(ll.IntType(bits), 128 // bits)
        vout = ll.VectorType(ll.IntType(half), 256 // bits)
        fn = cg.intrinsic(f"llvm.wasm.narrow.{sign}", vout, [vin, vin], [vout, vin])
        per = 128 // bits

        def one(chunk, fn=fn, per=per):
            (x,) = chunk
            return cg.builder.call(fn, [_lanes(cg, x, range(per)),
                                        _lanes(cg, x, range(per, 2 * per))])
        v = _by_vectors(cg, [v], 2 * per, t.lanes, one)
        bits = half
    return v


def _lanes(cg, v: ll.Value, indices, other: ll.Value | None = None) -> ll.Value:
    """The lanes of v (then of `other`) at `indices`; v itself when that is all of it."""
    indices = list(indices)
    if other is None and indices == list(range(v.type.count)):
        return v
    mask = ll.Constant(ll.VectorType(I32, len(indices)), [ll.Constant(I32, i) for i in indices])
    return cg.builder.shuffle_vector(v, v if other is None else other, mask)


def _even_odd(cg, v: ll.Value) -> tuple[ll.Value, ll.Value]:
    n = v.type.count
    if n == 2:
        return tuple(cg.builder.extract_element(v, ll.Constant(I32, i)) for i in (0, 1))
    return _lanes(cg, v, range(0, n, 2)), _lanes(cg, v, range(1, n, 2))


def _by_vectors(cg, values: list[ll.Value], per: int, out_lanes: int, op) -> ll.Value:
    """op applied to `per` lanes of each value at a time (zeros pad the last piece), results
    joined and cut to out_lanes."""
    n = values[0].type.count
    total = -(-n // per) * per
    zero = ll.Constant(values[0].type, None)
    values = [_lanes(cg, v, [*range(n), *[n] * (total - n)], zero) if total > n else v
              for v in values]
    parts = [op([_lanes(cg, v, range(i, i + per)) for v in values])
             for i in range(0, total, per)]
    while len(parts) > 1:
        if len(parts) % 2:
            parts.append(ll.Constant(parts[0].type, None))
        m = parts[0].type.count
        parts = [_lanes(cg, x, range(2 * m), y) for x, y in zip(parts[::2], parts[1::2])]
    return _lanes(cg, parts[0], range(out_lanes))
