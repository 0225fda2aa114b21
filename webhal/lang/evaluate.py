"""hl.evaluate: the value of an expression without free Vars, computed by running it."""

from __future__ import annotations

from webhal.lang.func import Func
from webhal.lang.pipeline import Pipeline


def evaluate(value):
    """The value of an Expr that uses no Vars (Params, Buffers and other Funcs may appear) as a
    Python int, float or bool; a tuple of Exprs gives a tuple of values. It is computed by a
    zero-dimensional pipeline on the JIT target (HL_JIT_TARGET), so it wraps, rounds and
    divides as compiled code does."""
    exprs = list(value) if isinstance(value, tuple) else [value]
    outputs = Pipeline([Func(e) for e in exprs]).realize([])
    results = tuple(b[()] for b in (outputs if isinstance(outputs, list) else [outputs]))
    return results if isinstance(value, tuple) else results[0]


def evaluate_may_gpu(value):
    """Halide's evaluate that may run on the target's GPU. A zero-dimensional pipeline has no
    loop to give a GPU, so webhal computes it as `evaluate` does, on the target's CPU part."""
    return evaluate(value)
