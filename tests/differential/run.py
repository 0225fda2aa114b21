"""Run a Program in Halide and in webhal, and say how they compare.

Halide runs on this machine's CPU with `strict_float` (no fused multiply-adds, so float results
are the correctly rounded ones webhal gives). What a program means is what Halide computes with
no schedule (every Func inline): a schedule never changes values, and Halide's scheduled run
sometimes does (a bug of Halide's; the report counts those). The scheduled run tells whether
Halide accepts the schedule; a GPU schedule is compiled (not run) for Halide's `host-webgpu`.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass

import numpy as np

import webhal

from .program import Program

CPU_TARGETS = ["reference", "host", "wasm-32-wasmrt", "wasm-32-wasmrt-wasm_simd128"]
GPU_TARGETS = ["host-webgpu", "host-vulkan-vk_float16"]  # the same GPU schedules on both APIs
# Where webhal's autoscheduler is checked (--autoschedule): every machine it models.
AUTOSCHEDULE_TARGETS = ["host", "wasm-32-wasmrt-wasm_simd128",
                        "wasm-32-wasmrt-wasm_simd128-wasm_threads"]

# Float outputs that went through math functions: their last bits differ between libm,
# Halide's polynomials and the GPU's built-ins; cancellation later makes that absolute.
RTOL, ATOL_SCALE = 1e-4, 1e-5


# A GPU program whose values need 64 bits somewhere (a lerp of int32s goes through float64,
# as in Halide): its hand schedule keeps that stage on the CPU or both libraries refuse it;
# webhal's GPU autoschedule makes every stage a kernel and refuses it by name.
NO_64_BITS_ON_GPU = r"WebGPU has no 64-bit types|needs the target feature vk_(float|int)64"


@dataclass
class Outcome:
    """What one engine made of a program: values, or the error it raised."""
    engine: str
    values: np.ndarray | None = None
    error: str = ""
    schedule_changes_values: bool = False  # Halide's scheduled run differs from its meaning

    @property
    def ok(self) -> bool:
        return self.values is not None


# Halide's refusals that webhal does not share, on purpose (docs/semantics.md): a program
# Halide refuses for one of these and webhal runs is `accepted_on_purpose`; any other refusal
# of Halide's that webhal's compiled targets do not share is a finding (`accepted`).
ACCEPTED_ON_PURPOSE = {
    # realize(sizes) enlarges the output to what every stage writes (Halide's bounds query
    # leaves out some update stages and unrolled tails, then refuses its own buffer)
    r"Output buffer \S+ is accessed at -?\d+, which is (beyond the max|before the min)":
        "realize enlarges the output",
    # Halide's WGSL has no 8/16-bit values in some places; webhal packs them in words
    r"Invalid integer bitwidth for WGSL": "narrow types on WebGPU",
    # and only some vector widths; webhal legalizes vectors of any width
    r"Unsupported vector width in WGSL": "vectors on WebGPU",
}


@dataclass
class Verdict:
    seed: int
    target: str
    # agree | mismatch | dtype | refused | accepted | accepted_on_purpose | both_refused |
    # gpu_64bit
    kind: str
    detail: str = ""

    @property
    def bad(self) -> bool:
        """A finding: a wrong value, a program Halide runs and webhal refuses, or one Halide
        refuses and a compiled target runs, not on purpose."""
        return self.kind in ("mismatch", "refused", "dtype", "accepted")


def _error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 600 else text[:600] + " ..."


def run_halide(program: Program, scheduled: bool = True) -> Outcome:
    """Halide's values of `program`: its meaning (every Func inline). With `scheduled` the
    program's schedule is also run (or, for a GPU program, compiled), as Halide must accept
    it; an autoscheduled run of webhal compares with the meaning alone."""
    import halide
    target = halide.Target("host-strict_float")
    if not scheduled:
        try:
            meaning = program.build(halide, schedule=False).realize(list(program.size), target)
            return Outcome("halide", np.array(np.asarray(meaning)))
        except Exception as exc:  # noqa: BLE001 - Halide's refusal is an outcome
            return Outcome("halide", error=_error(exc))
    try:
        scheduled = program.build(halide, schedule=True)
        if program.gpu:
            with tempfile.TemporaryDirectory() as tmp:
                scheduled.compile_to_lowered_stmt(os.path.join(tmp, "p.stmt"), [],
                                                  halide.StmtOutputFormat.Text,
                                                  halide.Target("host-webgpu"))
        else:
            got = np.array(np.asarray(scheduled.realize(list(program.size), target)))
        meaning = program.build(halide, schedule=False).realize(list(program.size), target)
        out = Outcome("halide", np.array(np.asarray(meaning)))
        if not program.gpu:
            out.schedule_changes_values = not _same(program, got, out.values).all()
        return out
    except Exception as exc:  # noqa: BLE001 - Halide's refusal is an outcome
        return Outcome("halide", error=_error(exc))


def _fuses(target: str) -> bool:
    """Whether webhal's float code for `target` may fuse multiply-adds, as Halide's does on x86
    with FMA (its strict_float run here never does): floats are then compared as inexact."""
    if target == "reference":
        return False
    t = webhal.Target(target)
    return t.arch == "x86" and t.has_feature("fma") and not t.has_feature("strict_float")


def _same(program: Program, a: np.ndarray, b: np.ndarray, fused: bool = False) -> np.ndarray:
    """Where a and b agree: bit for bit, or within the tolerance of inexact floats."""
    if a.dtype.kind == "f" and (fused or not program.exact):
        scale = float(np.nanmax(np.abs(b))) if b.size else 0.0
        return np.isclose(a, b, rtol=RTOL, atol=ATOL_SCALE * max(scale, 1.0), equal_nan=True)
    if a.dtype.kind == "f":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return a == b


def estimated_size(program: Program) -> list[int]:
    """The output size an autoschedule is chosen for: about half the size it then computes,
    as a schedule chosen for one picture meets others."""
    return [n // 2 + 1 for n in program.size]


def run_webhal(program: Program, target: str, autoschedule: bool = False) -> Outcome:
    """webhal's values of `program` on `target`: with its own schedule, or with
    `autoschedule` its algorithm scheduled by webhal's autoscheduler for `target` with the
    estimated_size, then computed into an output Buffer of exactly the program's size (as a
    package's caller passes one: nothing may be written beyond it)."""
    try:
        out = program.build(webhal, schedule=not autoschedule and (
            target != "reference" or not program.gpu))
        if autoschedule:
            out.set_estimates([(0, n) for n in estimated_size(program)])
            pipeline = webhal.Pipeline(out)
            pipeline.apply_autoscheduler(webhal.Target(target),
                                         webhal.AutoschedulerParams("Webhal"))
            result = webhal.Buffer(out.type(), list(program.size))
            pipeline.realize(result, webhal.Target(target))
            return Outcome(target, np.array(np.asarray(result)))
        result = out.realize(list(program.size), webhal.Target(target))
        return Outcome(target, np.array(np.asarray(result)))
    except webhal.HalideError as exc:
        return Outcome(target, error=_error(exc))


def compare(program: Program, want: Outcome, got: Outcome) -> Verdict:
    v = Verdict(program.seed, got.engine, "agree")
    if not want.ok:
        v.kind = "accepted" if got.ok else "both_refused"
        v.detail = want.error if got.ok else f"Halide: {want.error}\nwebhal: {got.error}"
        if got.ok and (got.engine == "reference" or any(
                re.search(p, want.error) for p in ACCEPTED_ON_PURPOSE)):
            v.kind = "accepted_on_purpose"  # (the reference evaluator ignores schedules)
        return v
    if not got.ok:
        v.kind, v.detail = "refused", got.error
        if program.gpu and re.search(NO_64_BITS_ON_GPU, got.error):
            v.kind = "gpu_64bit"  # not a finding: every stage of a GPU autoschedule is a kernel
        return v
    a, b = got.values, want.values
    if a.dtype != b.dtype or a.shape != b.shape:
        v.kind = "dtype"
        v.detail = f"webhal {a.dtype}{a.shape}, Halide {b.dtype}{b.shape}"
        return v
    same = _same(program, a, b, _fuses(got.engine))
    if not same.all():
        where = np.argwhere(~same)
        first = [f"at {tuple(int(i) for i in p[::-1])} (x first): webhal {a[tuple(p)]!r}, "
                 f"Halide {b[tuple(p)]!r}" for p in where[:4]]
        v.kind = "mismatch"
        v.detail = f"{len(where)} of {a.size} values differ\n" + "\n".join(first)
    return v


def check(program: Program, targets: list[str], autoschedule: bool = False
          ) -> tuple[list[Verdict], bool]:
    """Verdicts of `program` on each of `targets` against Halide, and whether Halide's own
    schedule changed its values; with `autoschedule`, webhal's autoschedule of the algorithm
    against Halide's meaning of it."""
    want = run_halide(program, scheduled=not autoschedule)
    return ([compare(program, want, run_webhal(program, t, autoschedule)) for t in targets],
            want.schedule_changes_values)
