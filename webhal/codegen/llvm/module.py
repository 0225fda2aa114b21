"""A pipeline's entry function: `int name(halide_buffer_t *in..., scalar params...,
halide_buffer_t *out...)` with Halide's AOT calling convention, around the lowered body."""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.binding as llvm
from llvmlite import ir as ll

from webhal.codegen.llvm.statements import StmtCodegen
from webhal.codegen.llvm.target_machine import optimize, target_machine, triple
from webhal.codegen.llvm.types import (
    BUFFER_DIM,
    BUFFER_DIMENSIONS,
    BUFFER_FLAGS,
    BUFFER_HOST,
    BUFFER_T,
    BUFFER_TYPE,
    DIMENSION_T,
    HOST_DIRTY,
    I8,
    I32,
    I64,
    PTR,
    llvm_type,
)
from webhal.errors import CompileError
from webhal.ir.module import Module


@dataclass(frozen=True)
class Argument:
    """One parameter of the entry function, in order."""

    name: str
    is_buffer: bool
    type: object      # element type (buffers) or value type (scalars)
    dimensions: int   # 0 for scalars
    is_output: bool = False


def arguments(module: Module) -> list[Argument]:
    """The entry function's parameters: the inputs in order, then one buffer per output."""
    out = []
    for a in module.arguments:
        if hasattr(a, "dimensions"):
            out.append(Argument(a.name(), True, a.type(), a.dimensions()))
        else:
            out.append(Argument(a.name(), False, a.type(), 0))
    for fn in module.outputs:
        out.append(Argument(fn.name, True, fn.type, fn.dimensions, True))
    return out


def build_module(lowered: Module) -> tuple[ll.Module, list[Argument]]:
    """The LLVM module of the host code (not yet optimized) and the entry's parameters."""
    target = lowered.target
    args = arguments(lowered)
    tm = target_machine(target)
    module = ll.Module(name=lowered.name)
    module.triple = triple(target)
    module.data_layout = str(tm.target_data)
    size_t = I32 if target.bits == 32 else I64
    cg = StmtCodegen(module, size_t)
    cg.index_bits = size_t.width
    cg.wasm_simd128 = target.is_wasm and target.has_feature("wasm_simd128")
    cg.vector_registers = cg.wasm_simd128 or not target.is_wasm
    cg.measured_stack = target.is_wasm
    cg.contract_floats = not target.has_feature("strict_float")
    cg.reciprocal_divisions = not target.has_feature("strict_float")
    if target.arch == "x86":
        cg.clamp_float_to_int = True
        cg.x86_64 = target.bits == 64
        avx = target.has_feature("avx")
        cg.x86_fmax = {32: ("llvm.x86.avx.max.ps.256", 8) if avx else ("llvm.x86.sse.max.ps", 4),
                       64: ("llvm.x86.avx.max.pd.256", 4) if avx else ("llvm.x86.sse2.max.pd", 2)}
        cg.pmulhuw = {8: "llvm.x86.sse2.pmulhu.w"}
        if target.has_feature("avx2"):
            cg.pmulhuw[16] = "llvm.x86.avx2.pmulhu.w"
        if target.has_feature("avx512_skylake"):
            cg.pmulhuw[32] = "llvm.x86.avx512.pmulhu.w.512"
    fnty = ll.FunctionType(I32, [PTR if a.is_buffer else _argument_type(a.type) for a in args])
    fn = ll.Function(module, fnty, name=lowered.name)
    entry = fn.append_basic_block("entry")
    body = fn.append_basic_block("body")
    cg.function, cg.entry_block, cg.builder = fn, entry, ll.IRBuilder(body)
    b = cg.builder
    for a, value in zip(args, fn.args):
        value.name = a.name
        if a.is_buffer:
            _unpack_buffer(cg, a, value)
        else:
            cg.symbols[a.name] = value if value.type == llvm_type(a.type) else \
                b.bitcast(value, llvm_type(a.type))
    declared = {id(a) for a in lowered.arguments}
    for name, image in lowered.images.items():
        if id(image) not in declared:
            _embed_buffer(cg, lowered, name, image)
    cg.stmt(lowered.body)
    if not b.block.is_terminated:
        for a, value in zip(args, fn.args):
            if a.is_output:  # the host copy is now the newest
                p = b.gep(value, [ll.Constant(I32, 0), ll.Constant(I32, BUFFER_FLAGS)],
                          source_etype=BUFFER_T)
                flags = b.load(p, typ=I64)
                b.store(b.or_(flags, ll.Constant(I64, HOST_DIRTY)), p)
        b.ret(ll.Constant(I32, 0))
    ll.IRBuilder(entry).branch(body)
    return module, args


def _argument_type(t) -> ll.Type:
    """A scalar argument's type: float16 comes as its bits (uint16_t in the header), since C
    callers and ctypes have no portable half type."""
    return ll.IntType(16) if t.is_float() and t.bits == 16 else llvm_type(t)


def _unpack_buffer(cg: StmtCodegen, a: Argument, buf: ll.Value) -> None:
    b = cg.builder
    name = cg.string(a.name)

    def field(i, typ):
        p = b.gep(buf, [ll.Constant(I32, 0), ll.Constant(I32, i)], source_etype=BUFFER_T)
        return b.load(p, typ=typ)

    def fail_unless(ok, error, *extra):
        with b.if_then(b.not_(ok), likely=False):
            types = [PTR, PTR, *(v.type for v in extra)]
            f = cg.declare(error, I32, types)
            b.ret(b.call(f, [cg.user_context, name, *extra]))

    fail_unless(b.icmp_unsigned("!=", buf, ll.Constant(PTR, None)),
                "halide_error_buffer_argument_is_null")
    dims = field(BUFFER_DIMENSIONS, I32)
    fail_unless(b.icmp_signed("==", dims, ll.Constant(I32, a.dimensions)),
                "halide_error_bad_dimensions", dims, ll.Constant(I32, a.dimensions))
    host = field(BUFFER_HOST, PTR)
    fail_unless(b.icmp_unsigned("!=", host, ll.Constant(PTR, None)), "halide_error_host_is_null")
    cg.symbols[a.name] = host
    cg.symbols[f"{a.name}.type"] = field(BUFFER_TYPE, I32)
    cg.symbols[f"{a.name}.dimensions"] = dims
    dim = field(BUFFER_DIM, PTR)
    for d in range(a.dimensions):
        for j, what in enumerate(("min", "extent", "stride")):
            p = b.gep(dim, [ll.Constant(I32, d), ll.Constant(I32, j)], source_etype=DIMENSION_T)
            cg.symbols[f"{a.name}.{what}.{d}"] = b.load(p, typ=I32)


def _embed_buffer(cg: StmtCodegen, lowered: Module, name: str, buf) -> None:
    """A Buffer the pipeline reads that is no argument (an hl.Buffer captured by a definition,
    as Halide embeds one): its data as a constant of the object, its fields as constants."""
    import numpy as np
    if name in lowered.device_buffers():
        raise CompileError(f"GPU kernels read Buffer {name}, which is compiled into the "
                           "pipeline (it is no argument): webhal does not support that on a "
                           "GPU; pass it as an hl.ImageParam")
    data = np.ascontiguousarray(np.asarray(buf))  # numpy's axes reversed: x varies fastest
    raw = bytearray(data.tobytes())
    g = ll.GlobalVariable(cg.module, ll.ArrayType(I8, len(raw)), name=f"{name}.embedded")
    g.global_constant, g.linkage, g.align = True, "private", 64
    g.initializer = ll.Constant(ll.ArrayType(I8, len(raw)), raw)
    t = buf.type()
    code = 2 if t.is_float() else 1 if t.is_uint() or t.is_bool() else 0
    cg.symbols[name] = g.bitcast(PTR)
    cg.symbols[f"{name}.type"] = ll.Constant(I32, code | t.bits << 8 | 1 << 16)
    cg.symbols[f"{name}.dimensions"] = ll.Constant(I32, buf.dimensions())
    stride = 1
    for d in range(buf.dimensions()):
        extent = buf.dim(d).extent()
        for what, value in (("min", buf.dim(d).min()), ("extent", extent), ("stride", stride)):
            cg.symbols[f"{name}.{what}.{d}"] = ll.Constant(I32, value)
        stride *= extent


def compile_module(module: ll.Module, target, *, jit: bool = False) -> llvm.ModuleRef:
    """Parse, verify and optimize; the returned module is ready for emit or the JIT."""
    tm = target_machine(target, jit=jit)
    try:
        ref = llvm.parse_assembly(str(module))
        ref.verify()
    except RuntimeError as e:
        raise CompileError(f"webhal generated invalid LLVM IR (a webhal bug): {e}") from None
    optimize(ref, tm)
    return ref


def emit_object(ref: llvm.ModuleRef, target) -> bytes:
    return target_machine(target).emit_object(ref)


def emit_assembly(ref: llvm.ModuleRef, target) -> str:
    return target_machine(target).emit_assembly(ref)
