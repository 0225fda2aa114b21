"""The cost of calling a compiled pipeline from Python: webhal against Halide, side by side.

    .venv/bin/python -m benchmarks.call_overhead [--rounds N]

Two pipelines, each written once over a module `hl` and compiled with `compile_to_callable`
for the host by webhal and by Halide (PyPI):
- `identity`: one 16-element uint8 input copied to the output (two buffers);
- `addconstant`: as Halide's addconstantpy test generator: 11 scalars (bool, every integer
  width signed and unsigned, float, double), 13 input buffers of every type (float16 too; 1, 2
  and 3 dimensions) and 13 outputs, each an input plus a scalar: 37 arguments.
The buffers are tiny (16 elements), so a call's time is almost all the Python side of it.
Each figure is the median over batches of the time per call, in microseconds; `rounds` runs
alternate the two libraries so that a busy machine disturbs both alike. The table gives both
times, their difference (what webhal spends beyond Halide's whole call) and their ratio.
"""

from __future__ import annotations

import argparse
import time
from statistics import median
from types import ModuleType

import numpy as np

import webhal

N = 16  # elements per buffer dimension

# (name, hl type factory, numpy dtype) of addconstantpy's buffers
BUFFER_TYPES = [("uint8", "UInt", 8, np.uint8), ("uint16", "UInt", 16, np.uint16),
                ("uint32", "UInt", 32, np.uint32), ("uint64", "UInt", 64, np.uint64),
                ("int8", "Int", 8, np.int8), ("int16", "Int", 16, np.int16),
                ("int32", "Int", 32, np.int32), ("int64", "Int", 64, np.int64),
                ("float", "Float", 32, np.float32), ("double", "Float", 64, np.float64),
                ("half", "Float", 16, np.float16)]
SCALAR_VALUES = {"uint1": True, "uint8": 3, "uint16": 5, "uint32": 7, "uint64": 9, "int8": -2,
                 "int16": -4, "int32": 6, "int64": -8, "float": 1.5, "double": 2.25}


def build_identity(hl: ModuleType):
    """(callable, arguments) for a one-input copy."""
    x = hl.Var("x")
    inp = hl.ImageParam(hl.UInt(8), 1, "input")
    out = hl.Func("identity")
    out[x] = inp[x]
    target = _target(hl)
    callable_ = out.compile_to_callable([inp], target)
    return callable_, [np.arange(N, dtype=np.uint8), np.zeros(N, np.uint8)]


def build_addconstant(hl: ModuleType):
    """(callable, arguments) for addconstantpy's pipeline: every scalar type, every buffer
    type, 37 arguments."""
    x, y, z = hl.Var("x"), hl.Var("y"), hl.Var("z")
    scalars = {"uint1": hl.Param(hl.Bool(), "scalar_uint1")}
    for name, factory, bits, _ in BUFFER_TYPES[:10]:
        scalars[name] = hl.Param(getattr(hl, factory)(bits), f"scalar_{name}")
    inputs, outputs, arrays = [], [], []
    for name, factory, bits, dtype in BUFFER_TYPES:
        t = getattr(hl, factory)(bits)
        inp, out = hl.ImageParam(t, 1, f"input_{name}"), hl.Func(f"output_{name}")
        added = (hl.cast(hl.Float(16), scalars["float"]) if name == "half"
                 else scalars[name])
        out[x] = inp[x] + added
        inputs.append(inp)
        outputs.append(out)
        # Halide's bindings take no numpy uint64 arrays ("Unsupported Buffer<> type"): both
        # libraries get their own hl.Buffer there
        arrays.append(_filled(hl, t) if name == "uint64" else np.arange(N).astype(dtype))
    for dims, shape in ((2, (N, N)), (3, (4, N, N))):
        inp, out = hl.ImageParam(hl.Int(8), dims, f"input_{dims}d"), hl.Func(f"output_{dims}d")
        coords = [x, y, z][:dims]
        out[coords] = inp[coords] + scalars["int8"]
        inputs.append(inp)
        outputs.append(out)
        arrays.append(np.ones(shape, np.int8))
    pipeline = hl.Pipeline(outputs)
    callable_ = pipeline.compile_to_callable([*scalars.values(), *inputs], _target(hl))
    outs = [hl.Buffer(a.type(), [N]) if isinstance(a, hl.Buffer) else np.zeros_like(a)
            for a in arrays]
    values = [SCALAR_VALUES[k] for k in scalars] + arrays + outs
    return callable_, values


def _filled(hl: ModuleType, t):
    """An hl.Buffer of N elements 0, 1, 2, ... (Halide does not zero a new Buffer)."""
    b = hl.Buffer(t, [N])
    for i in range(N):
        b[i] = i
    return b


def _target(hl: ModuleType):
    return webhal.Target("host") if hl is webhal else hl.get_jit_target_from_environment()


def time_per_call_us(call, batches: int = 9, batch_s: float = 0.02) -> float:
    """Median over batches of the time per call (after a warm-up)."""
    start, calls = time.perf_counter(), 0
    while calls < 10 or time.perf_counter() - start < 0.05:
        call()
        calls += 1
    per_batch = max(1, int(batch_s * calls / (time.perf_counter() - start)))
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(per_batch):
            call()
        times.append((time.perf_counter() - t0) / per_batch * 1e6)
    return median(times)


def check_outputs(name: str, built: dict) -> None:
    """Both libraries wrote the same outputs."""
    (_, a), (_, b) = built["webhal"], built["halide"]
    for i, (wa, ha) in enumerate(zip(a, b)):
        if not np.array_equal(np.asarray(wa), np.asarray(ha)):
            raise SystemExit(f"{name}: argument {i} differs between webhal and Halide")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.call_overhead",
                                description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=2, help="measurements per library (default 2)")
    args = p.parse_args(argv)
    import halide
    libraries = {"webhal": webhal, "halide": halide}
    import os
    print(f"load average {os.getloadavg()[0]:.2f}; microseconds per call (median of batches)")
    print(f"{'pipeline':12} {'round':>5} {'webhal':>9} {'Halide':>9} {'difference':>10} "
          f"{'ratio':>6}")
    for name, build in (("identity", build_identity), ("addconstant", build_addconstant)):
        built = {lib: build(hl) for lib, hl in libraries.items()}
        for callable_, values in built.values():
            callable_(*values)
        check_outputs(name, {lib: (c, v) for lib, (c, v) in built.items()})
        for r in range(args.rounds):
            us = {lib: time_per_call_us(lambda c=c, v=v: c(*v)) for lib, (c, v) in built.items()}
            print(f"{name:12} {r + 1:>5} {us['webhal']:9.2f} {us['halide']:9.2f} "
                  f"{us['webhal'] - us['halide']:10.2f} {us['webhal'] / us['halide']:6.1f}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
