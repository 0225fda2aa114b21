"""Evaluate IR expressions over every point of small variable ranges, with the reference
evaluator (numpy, the IR's own semantics: wrapping, Euclidean division), so that analyses can be
checked against what expressions really compute."""

from __future__ import annotations

import itertools

import numpy as np

from webhal.ir import nodes as ir
from webhal.ir.types import Int
from webhal.ir.visitor import free_variables
from webhal.reference.evaluate import Evaluator

I32 = Int(32)


def var(name: str, t=I32) -> ir.Variable:
    return ir.Variable(t, name)


def evaluate(e: ir.Expr, env: dict[str, object]) -> np.ndarray:
    """e's values where each variable in env takes its (broadcast) array of values."""
    return np.asarray(Evaluator(None, env).eval(e))


def grid(e: ir.Expr, ranges: dict[str, tuple[int, int]]) -> dict[str, np.ndarray]:
    """Arrays for the variables of `ranges` that broadcast against each other to every
    combination of their values (both ends included)."""
    types = {v.name: v.type for v in free_variables(e)}
    env = {}
    for axis, (name, (lo, hi)) in enumerate(ranges.items()):
        shape = [1] * len(ranges)
        shape[axis] = hi - lo + 1
        dtype = types.get(name, I32).dtype
        env[name] = np.arange(lo, hi + 1).astype(dtype).reshape(shape)
    return env


def samples(names: dict[str, list[int]]):
    """Each assignment of the listed values to the named variables."""
    keys = list(names)
    for values in itertools.product(*(names[k] for k in keys)):
        yield dict(zip(keys, values))
