"""hl.Callable: what Pipeline.compile_to_callable returns, a compiled pipeline called with
Buffers and numbers in the order of its arguments, then its output Buffers (as in Halide)."""

from __future__ import annotations

import numpy as np

from webhal.errors import ArgumentError, user_location
from webhal.lang.buffer import Buffer
from webhal.lower import gc_paused
from webhal.target import get_host_target


class Callable:
    """Made by compile_to_callable: compiled once (lowered once, to check that `arguments`
    cover every input), then called any number of times."""

    @gc_paused  # lowering and code generation as one stretch (see gc_paused)
    def __init__(self, pipeline, arguments, target):
        from webhal.aot import lower_for_aot
        self._pipeline = pipeline
        self._arguments = list(arguments)
        self._target = target
        outputs = list(pipeline.outputs())
        self._names = [a.name() for a in self._arguments] + [f.name() for f in outputs]
        pipeline.validate_schedules()
        self._compiled = None
        self._call_fast = None  # the compiled code's call on values as given, where it has one
        if target.is_reference:  # lowered only to check the arguments cover the inputs
            lower_for_aot(pipeline, self._arguments, "callable", get_host_target())
        else:
            from webhal.jit import runner
            self._compiled = runner(lower_for_aot(pipeline, self._arguments, "callable",
                                                  target))
            self._call_fast = getattr(self._compiled, "call_fast", None)

    def __call__(self, *args, **kwargs):
        """Run the pipeline: each argument by position or by name, the outputs last."""
        if self._call_fast is not None and not kwargs and len(args) == len(self._names):
            # numpy arrays, hl.Buffers and Python numbers go straight to the compiled code;
            # the user's line is looked up only for an error
            code = self._call_fast(args)
            if code is not None:
                if code != 0:
                    from webhal.jit import call_failed
                    call_failed(self._compiled, code, user_location())
                return
        # The messages start with Halide's sentences, which Halide's own tests look for.
        where, n = user_location(), len(self._names)
        names = f"its arguments are {', '.join(self._names)}"
        if len(args) > n:
            raise ArgumentError(f"Expected at most {n} positional arguments, but saw "
                                f"{len(args)}. ({names})", where)
        if not kwargs and len(args) < n:
            raise ArgumentError(f"Expected exactly {n} positional arguments, but saw "
                                f"{len(args)}. ({names})", where)
        values = dict(zip(self._names, args))
        for k, v in kwargs.items():
            if k not in self._names:
                raise ArgumentError(f"Unknown argument '{k}' specified via keyword. ({names})",
                                    where)
            if k in values:
                raise ArgumentError(f"Argument {k} specified multiple times.", where)
            values[k] = v
        for name in self._names:
            if name not in values:
                raise ArgumentError(f"Argument {name} was not specified by either positional "
                                    f"or keyword argument. ({names})", where)
        for a, name in zip([*self._arguments, *self._pipeline.outputs()], self._names):
            _check_kind(a, name, values[name], where)
        # numpy arrays are taken as hl.Buffer(array) takes them (x is the last axis)
        ordered = [Buffer(v) if isinstance(v, np.ndarray) else v
                   for v in (values[n] for n in self._names)]
        inputs, outputs = ordered[:len(self._arguments)], ordered[len(self._arguments):]
        if self._compiled is None:
            self._run_reference(inputs, outputs, where)
            return
        from webhal.jit import call
        converted = []
        for a, v in zip(self._arguments, inputs):
            if not hasattr(a, "dimensions") and a.type().is_float() and a.type().bits == 16:
                v = int(np.float16(v).view(np.uint16))
            converted.append(v)
        call(self._compiled, converted + outputs, where)

    def _run_reference(self, inputs, outputs, where) -> None:
        from webhal.reference import realize_into
        for a, v in zip(self._arguments, inputs):
            a.set(v)
        realize_into([f.function() for f in self._pipeline.outputs()], outputs, where,
                     tuple(getattr(self._pipeline, "_requirements", ())))


def _check_kind(argument, name: str, value, where) -> None:
    """A buffer argument takes an hl.Buffer or a numpy array, a scalar one a number."""
    wants_buffer = hasattr(argument, "dimensions")  # ImageParam, or an output Func
    ok = isinstance(value, (Buffer, np.ndarray)) if wants_buffer else \
        isinstance(value, (int, float, bool, np.number, np.bool_))
    if not ok:
        what = "hl.Buffer (or a numpy array)" if wants_buffer else "a number"
        raise ArgumentError(f"Argument {name} is {value!r}, which is not an instance of {what}",
                            where)
