"""Halide itself as the oracle: a fixed slice of random pipelines and schedules (program.py,
expressions.py) run in PyPI Halide and in webhal on every target this machine has; integers
and correctly rounded floats must match bit for bit, other floats within run.RTOL, and a
schedule Halide accepts must not be refused. `python -m tests.differential --seeds 0:2000` is
the long run (README).
"""

from __future__ import annotations

import functools
import itertools
import re

import numpy as np
import pytest

import webhal
from tests.halide_peer import require

from .expressions import INT_TYPES, WIDE_TYPES, Generator, Val, promote
from .program import generate
from .run import AUTOSCHEDULE_TARGETS, CPU_TARGETS, GPU_TARGETS, compare, run_halide, run_webhal

halide, = require("halide")

pytestmark = pytest.mark.halide

CPU_SEEDS = range(0, 48)
GPU_SEEDS = range(0, 24)


@functools.cache
def _program(seed: int, gpu: bool):
    return generate(seed, gpu)


@functools.cache
def _halide(seed: int, gpu: bool, scheduled: bool = True):
    return run_halide(_program(seed, gpu), scheduled)


def _check_slice(seeds, gpu: bool, target: str, auto: bool = False) -> None:
    findings, agreed = [], 0
    for seed in seeds:
        program = _program(seed, gpu)
        verdict = compare(program, _halide(seed, gpu, not auto),
                          run_webhal(program, target, auto))
        if verdict.bad:
            flags = (" --gpu" if gpu else "") + (" --autoschedule" if auto else "")
            findings.append(f"seed {seed} ({verdict.kind}; `python -m tests.differential "
                            f"--show {seed}{flags}`):\n  "
                            + verdict.detail.replace("\n", "\n  "))
        agreed += verdict.kind == "agree"
    assert not findings, f"{target}: {len(findings)} of {len(seeds)} programs differ from " \
        "Halide\n" + "\n".join(findings)
    # the slice must mostly be programs both accept, or it tests little
    assert agreed >= len(seeds) // 2, f"only {agreed} of {len(seeds)} programs ran in both"


@pytest.mark.parametrize("target", CPU_TARGETS)
def test_cpu_schedules_agree_with_halide(target, request):
    if target.startswith("wasm"):
        for fixture in ("llvm_wasm", "wasm_ld", "wasmtime_engine"):
            request.getfixturevalue(fixture)
    _check_slice(CPU_SEEDS, False, target)


@pytest.mark.gpu
@pytest.mark.parametrize("target", GPU_TARGETS)
def test_gpu_schedules_agree_with_halide(target, request):
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    _check_slice(GPU_SEEDS, True, target)


@pytest.mark.parametrize("target", AUTOSCHEDULE_TARGETS)
def test_cpu_autoschedules_agree_with_halide(target, request):
    """webhal's autoschedule of each program's algorithm, for `target` at the output's size,
    against Halide's meaning of it (a producer read by an update got a region of 256 by
    default, vectorized by 32 beyond an input 49 wide: seed 276 on the host)."""
    if target.startswith("wasm"):
        for fixture in ("llvm_wasm", "wasm_ld", "wasmtime_engine"):
            request.getfixturevalue(fixture)
    _check_slice(CPU_SEEDS, False, target, auto=True)


@pytest.mark.gpu
@pytest.mark.parametrize("target", GPU_TARGETS)
def test_gpu_autoschedules_agree_with_halide(target, request):
    """The same for WebGPU and Vulkan (an output with an update tiled 4 wide at 3, which
    Halide refuses as webhal does: seeds 54 and 137 before its tiles were guarded)."""
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    _check_slice(GPU_SEEDS, True, target, auto=True)


def test_promotion_rules_are_halides():
    """The generator's model of Halide's type promotion (and so its value intervals) is what
    both libraries do, for every pair of types."""
    types = INT_TYPES + WIDE_TYPES + ["float32", "float64"]
    hl_type = {"uint8": "UInt(8)", "int8": "Int(8)", "uint16": "UInt(16)", "int16": "Int(16)",
               "int32": "Int(32)", "uint32": "UInt(32)", "int64": "Int(64)",
               "uint64": "UInt(64)", "float32": "Float(32)", "float64": "Float(64)"}
    for a, b in itertools.product(types, types):
        for hl in (webhal, halide):
            pa = hl.Param(eval(f"hl.{hl_type[a]}"))  # noqa: S307
            pb = hl.Param(eval(f"hl.{hl_type[b]}"))  # noqa: S307
            got = str((pa + pb).type())
            assert got == promote(a, b), f"{hl.__name__}: {a} + {b} is {got}"


def test_programs_are_the_same_in_both_libraries():
    """The generated source builds with both modules and realizes to the same dtype."""
    program = _program(3, False)
    a = np.asarray(program.build(webhal, False).realize(list(program.size),
                                                        webhal.Target("reference")))
    b = np.asarray(program.build(halide, False).realize(list(program.size)))
    assert a.dtype == b.dtype == np.dtype(program.output_type)


def test_casts_to_float_round_the_interval():
    """uint32 4294967295 as a float32 is 2**32, beyond uint32: a cast back must be clamped
    (the long run's seed 2848 cast it back plainly, a float-to-int overflow Halide leaves
    undefined; its constant folding wrapped to 0, webhal saturates)."""
    v = Generator(0).cast("float32", Val("a", "uint32", 0, 4294967295))
    assert v.hi == 4294967296.0 and not v.fits("uint32")
    assert Generator(0).cast("float64", Val("a", "int64", 0, 2**63 - 1)).hi == 2.0**63


def test_casts_to_integers_keep_exact_bounds():
    """A float cast to int64 has integer bounds, so a sum with a constant near -2**63 is seen
    to overflow (the long run's seed 7881 added -9223372036854775807 to a cast float of at
    least -443.9: as floats the sum rounded to -2**63 and looked as if it fit)."""
    v = Generator(0).cast("int64", Val("a", "float32", -443.94, 356.29))
    assert (v.lo, v.hi) == (-444, 357) and isinstance(v.lo, int)
    low = -9223372036854775807
    assert Generator.wrap("int64", low + v.lo, low + v.hi, "s") is None


@pytest.mark.parametrize("t", ["int32", "int64"])
def test_wide_signed_left_shifts_never_overflow(t):
    """A left shift of a 32/64-bit signed value that overflows is undefined in Halide (the long
    run's seeds 3825, 5070 and 6676 shifted int32/int64 values past their range, directly or by
    a negative amount, and Halide's values followed its own assumptions): only constant left
    shifts whose values fit, and right shifts by amounts that are never negative."""
    a = Val("a", t, -50000, 50000)
    sources = [Val("s", t, -5, 5), Val("u", "u" + t, 0, 9)]
    made = 0
    for seed in range(400):
        v = Generator(seed).shift(t, a, sources, 2)
        if v is None:
            continue
        made += 1
        const = re.fullmatch(r"\(a\) << (\d+)", v.code)
        if const:
            assert 50000 << int(const[1]) < 2 ** (int(t[3:]) - 1), v.code
            continue
        assert v.code.startswith("(a) >> ") and not v.code.endswith(", -1))"), v.code
    assert made > 50
