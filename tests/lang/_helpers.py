"""Small helpers shared by the language tests: realize on the reference evaluator, as numpy."""

from __future__ import annotations

import numpy as np

import webhal as hl

REFERENCE = hl.Target("reference")


def realize(f, sizes) -> np.ndarray:
    """f (a Func or Pipeline) realized over [0, size) per dimension, in numpy's axis order."""
    return np.asarray(f.realize(list(sizes), REFERENCE))


def realize_at(f, mins, sizes, t) -> np.ndarray:
    """f realized over [min, min + size) per dimension into a Buffer of type t."""
    out = hl.Buffer(t, list(sizes))
    out.set_min(list(mins))
    f.realize(out, REFERENCE)
    return np.asarray(out)


def value_of(e, t=None):
    """The value of an Expr without free Vars, computed by the reference evaluator."""
    f = hl.Func("value")
    f[()] = e
    out = np.asarray(f.realize([], REFERENCE))
    return out[()] if t is None else t(out[()])


def grid(h: int, w: int):
    """Index arrays (y, x) of an h x w image, as numpy's mgrid, in int64."""
    return np.mgrid[0:h, 0:w].astype(np.int64)
