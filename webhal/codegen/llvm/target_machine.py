"""LLVM target machines for webhal targets, and the optimization pipeline."""

from __future__ import annotations

import functools

import llvmlite.binding as llvm

from webhal.errors import CompileError


@functools.cache
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def is_host(target) -> bool:
    """Whether `target` is this machine's arch, bits and os (its features may differ)."""
    from webhal.target import get_host_target
    host = get_host_target()
    return (target.arch, target.bits, target.os) == (host.arch, host.bits, host.os)


def triple(target) -> str:
    """This process's own triple for the host; the target's for wasm and cross-compilation."""
    return llvm.get_process_triple() if is_host(target) and not target.is_wasm else \
        target.llvm_triple


def target_machine(target, *, jit: bool = False) -> llvm.TargetMachine:
    """The machine for `target`: wasm32 with exactly the target's wasm features; this host's
    CPU with the target's x86 features; or, cross-compiling (another arch, bits or os), a
    generic CPU of that triple with the target's features."""
    _initialize()
    t = triple(target)
    try:
        lt = llvm.Target.from_triple(t)
    except RuntimeError as e:
        raise CompileError(f"llvmlite has no LLVM target for {t}: {e}") from None
    if target.is_wasm:
        return lt.create_target_machine(cpu="generic", features=target.llvm_cpu_features,
                                        opt=3, reloc="static")
    features = target.llvm_cpu_features if target.arch in ("x86", "arm") else ""
    cpu = llvm.get_host_cpu_name() if is_host(target) else "generic"
    return lt.create_target_machine(cpu=cpu, features=features, opt=3,
                                    reloc="pic" if not jit else "default",
                                    codemodel="jitdefault" if jit else "small")


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    """LLVM's -O3 pipeline without the loop vectorizer (vector widths are the schedule's) and
    without LLVM's loop unrolling and interleaving, as Halide's default pipeline (without
    EnableLLVMLoopOpt): the schedule says what to unroll. On x86 its runtime unrolling of every
    inner loop by 4 made Loop Strength Reduction two thirds of the machine-code time (camera
    pipe: 1.0 of 1.5 s) for a third more code. wasm too (LLVM's wasm cost model only unrolls
    small loops: camera pipe's and local Laplacian's .wasm are byte-identical either way):
    interpolate's .wasm 6% smaller, bilateral grid's 5%, unsharp's 0.4%, and their Node run
    time the same (median ratio without/with over 12 alternating rounds, two runs, 2 shared
    cores at load 4-5: 0.98/0.93, 0.98/0.95, 0.98/1.03; identical binaries read 0.99/1.02)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = False
    pto.loop_interleaving = False
    pto.loop_unrolling = False
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)
