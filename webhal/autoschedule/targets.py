"""What the autoscheduler knows of each machine it schedules for.

A `Machine` is a handful of figures, not a simulator: the vector width (wasm SIMD128 is 128 bits
for every type, 16 x u8 to 2 x f64), how dear a widening or a gather is, the worker pool and
what one parallel job costs to hand out, and for WebGPU the adapter limits every schedule must
respect (invocations per workgroup, workgroup storage) and the fixed cost of a dispatch.
The figures are rough costs in nanoseconds; the search compares schedules with them, so only
their ratios matter.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from webhal.target import Target


@dataclass(frozen=True)
class Machine:
    """One target as the cost model sees it."""

    name: str                 # "wasm_simd128", "wasm", "host", "webgpu"
    gpu: bool                 # loops become WebGPU dispatches
    vector_bits: int          # width of one SIMD register (0: no SIMD)
    threads: int              # workers a parallel loop may use (with `pools`: a typical one)
    job_ns: float             # cost of handing one parallel job to a worker
    op_ns: float              # one vector (or, without SIMD, scalar) arithmetic op
    widen_ns: float           # one widening or narrowing of a vector (extend/narrow)
    gather_ns: float          # one lane of a data-dependent load (SIMD128 has no gathers)
    byte_ns: float            # one byte moved to or from memory beyond the caches
    cache_bytes: int          # what a worker keeps close (a strip's intermediates should fit)
    realize_ns: float         # allocating and bounding one compute_root'd buffer
    # WebGPU only
    dispatch_ns: float = 0.0  # fixed cost of one dispatch (a compute_root'd stage)
    load_ns: float = 0.0      # a load instruction (a tap) of a stored Func or input, cached
    shared_load_ns: float = 0.0  # one load from workgroup memory
    barrier_ns: float = 0.0   # a workgroup barrier, per invocation
    max_invocations: int = 256          # per workgroup (WebGPU's default limit)
    workgroup_storage_bytes: int = 16384  # maxComputeWorkgroupStorageSize default
    invocations_in_flight: int = 4096   # the adapter's parallelism, roughly
    # Pool sizes the worker pool may have at run time (wasm_threads: the user's
    # navigator.hardwareConcurrency); empty: exactly `threads` workers.
    pools: tuple[int, ...] = ()
    # The pool of run-time size, as measured on V8 (see WASM_POOLS): what handing out one
    # job costs the whole loop (serialized: the pool's queue is taken one job at a time), and
    # the share of one job's length by which the last worker finishes after the others.
    hand_out_ns: float = 0.0
    tail: float = 0.0
    # A fused producer's strip larger than this leaves the first-level cache (its rows written,
    # then read back from the next level); a sliding window's few rows stay in it. 0: not priced.
    l1_bytes: int = 0

    def parallel_ns(self, ns: float, jobs: int) -> float:
        """Time of `ns` of work split into `jobs` equal parallel jobs.

        A pool of `threads` workers: min(P, jobs) of them share the work and each job costs
        `job_ns`, handed out P at a time. A pool of run-time size (`pools`): per size P, the
        work spread over P workers plus the imbalance, `tail` of one job's length (workers
        wake late and jobs are uneven, so the last one ends after the others: many small jobs
        balance better than one a worker), at least a job's length where there are fewer
        jobs than workers, plus `hand_out_ns` per job; the mean over the sizes, P weighted by
        P (the mean of the time relative to what P workers could do, so that idle workers on
        16 cores count as much as too many small jobs on 2)."""
        if not self.pools:
            p = self.threads
            return ns / min(p, jobs) + jobs * self.job_ns / p
        return sum(p * (max(ns / min(p, jobs), ns / p + self.tail * (1 - 1 / p) * ns / jobs)
                        + jobs * self.hand_out_ns) for p in self.pools) / sum(self.pools)

    def lanes(self, bits: int) -> int:
        """Lanes of one vector of `bits`-wide elements (1 without SIMD)."""
        return max(1, self.vector_bits // bits) if self.vector_bits else 1


# V8/wasmtime on SIMD128: one op per lane group, widenings cost about one op each, a gather is
# a scalar load and a lane insert per lane, and a parallel job costs a few microseconds (a
# futex wake and a cache miss on another core): jobs under ~50 us lose on 2 cores.
_WASM = dict(job_ns=4000.0, op_ns=0.5, widen_ns=0.6, gather_ns=1.5, byte_ns=0.12,
             cache_bytes=256 * 1024, realize_ns=2000.0)
# Native code: wider vectors where the CPU has them, cheap jobs on a pthread pool.
_HOST = dict(job_ns=1500.0, op_ns=0.3, widen_ns=0.3, gather_ns=1.0, byte_ns=0.08,
             cache_bytes=512 * 1024, realize_ns=1000.0)
# A WebGPU dispatch (encoding, bind groups, submission) costs tens of microseconds whatever
# it computes; an invocation's arithmetic is nearly free next to its memory traffic.
# A workgroup barrier is nearly free on a GPU and ruinous on the CPU adapters (SwiftShader runs
# each invocation up to it in turn): a float 3x3 blur with its horizontal pass in workgroup
# memory ran 6.7x slower than two dispatches on SwiftShader, 0.67x on lavapipe; the u8 blur
# 28x on SwiftShader. One WebGPU build serves every adapter, so a barrier is charged enough
# that the model keeps to dispatches; measured tuning (tune=N) tries workgroup memory on the
# adapter at hand.
# A load instruction (`load_ns`, each distinct tap of a kernel) is served by the GPU's caches
# where neighbouring invocations read the same or adjacent elements; what goes to memory is
# the distinct elements a workgroup's tile reads (cost._footprint) and what it writes, at
# `byte_ns` a byte: 1.5 ops. Hardware pays more (the H200 about 7 fp32 ops a byte of HBM
# bandwidth, the CPU adapters on two cores several), but one build serves every adapter and
# the model keeps other costs (a dispatch, a tap) as measured before: at 0.03 only the local
# Laplacian's schedules moved (its fine levels' horizontal passes inlined into their vertical
# ones, as its hand schedule has them: 4096^2 on the H200 1.59x -> 1.30x of the hand
# schedule, 0.94-0.98x with cost.CostModel.layers_inside); at 0.08 the u8 blur's horizontal
# pass would be inlined too at 1024^2 (not measured); at 0.004 (each tap charged as a load
# from memory, a buffer's traffic at a fifth of one) the local Laplacian kept 30 dispatches
# at 4096^2 to the hand schedule's 25.
_GPU = dict(job_ns=0.0, op_ns=0.02, widen_ns=0.0, gather_ns=0.05, byte_ns=0.03,
            cache_bytes=16384, realize_ns=5000.0, dispatch_ns=40000.0, load_ns=0.04,
            shared_load_ns=0.01, barrier_ns=1.0)


# The sizes a wasm_threads pool may have: the pool starts navigator.hardwareConcurrency workers
# (Emscripten's core count), which is 2 to 16 on most users' machines and unknown when the
# schedule is chosen. Planned for 4 workers alone, strips came out 8 a frame (128 of 1024
# rows): on the GPU machine's 16 cores half the workers idled and the suite's threads
# autoschedules took 1.8x the hand schedules' time (2.5x for the blur). Planned over these
# sizes with jobs beyond a pool's size taken as balanced, 64-row strips (16 jobs): 1.22x /
# 1.17x there (two runs); with the imbalance priced (_WASM_POOL), 8-32 rows: 0.98x / 0.98x
# (docs/autoschedule.md).
WASM_POOLS = (2, 4, 8, 16)
# Measured on the GPU machine (16 cores, Node 20; benchmarks/build/t29, docs/autoschedule.md
# "The per-job cost"): a job costs a loop 75-98 ns whatever the pool's size (2 to 16 workers),
# and 64 jobs (strips of 16 rows) took 0.60-0.88x the time of 16 (one a worker) on five of the
# suite's pipelines on 16 workers; the 16-, 32- and 64-job times fit a tail of half a job.
_WASM_POOL = dict(hand_out_ns=90.0, tail=0.5, l1_bytes=32 * 1024)


def machine_for(target: Target, parallelism: int | None = None) -> Machine:
    """The Machine a target runs on. `parallelism`: the worker count to plan for (the
    autoscheduler's `parallelism` parameter), else the host's cores, or for wasm_threads a
    pool of run-time size (WASM_POOLS; `threads` 4, a typical one)."""
    if target.has_gpu_feature():
        return Machine("webgpu", True, 0, 1, **_GPU)
    if target.is_wasm:
        simd = target.has_feature("wasm_simd128")
        threads = target.has_feature("wasm_threads")
        pool = dict(pools=WASM_POOLS, **_WASM_POOL) if threads and not parallelism else {}
        return Machine("wasm_simd128" if simd else "wasm", False, 128 if simd else 0,
                       parallelism or (4 if threads else 1), **_WASM, **pool)
    bits = target.natural_vector_size(8) * 8 if not target.is_reference else 128
    return Machine("host", False, bits, parallelism or (os.cpu_count() or 1), **_HOST)
