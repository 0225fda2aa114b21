"""Halide itself as the oracle: a fixed slice of random pipelines and schedules (program.py,
expressions.py) run in PyPI Halide and in webhal on every target this machine has; integers
and correctly rounded floats must match bit for bit, other floats within run.RTOL, and a
schedule Halide accepts must not be refused. `python -m tests.differential --seeds 0:2000` is
the long run (README).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import webhal
from tests.halide_peer import require

from .expressions import INT_TYPES, WIDE_TYPES, promote
from .program import generate
from .run import CPU_TARGETS, GPU_TARGETS, compare, run_halide, run_webhal

halide, = require("halide")

pytestmark = pytest.mark.halide

CPU_SEEDS = range(0, 48)
GPU_SEEDS = range(0, 24)


@functools.cache
def _program(seed: int, gpu: bool):
    return generate(seed, gpu)


@functools.cache
def _halide(seed: int, gpu: bool):
    return run_halide(_program(seed, gpu))


def _check_slice(seeds, gpu: bool, target: str) -> None:
    findings, agreed = [], 0
    for seed in seeds:
        program = _program(seed, gpu)
        verdict = compare(program, _halide(seed, gpu), run_webhal(program, target))
        if verdict.bad:
            findings.append(f"seed {seed} ({verdict.kind}; `python -m tests.differential "
                            f"--show {seed}{' --gpu' if gpu else ''}`):\n  "
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
