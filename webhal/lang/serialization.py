"""serialize_pipeline / deserialize_pipeline / deserialize_parameters, with Halide's Python
signatures, in a file format of webhal's own (`.hlpipe` by convention).

A file is a header line, then two pickles: the pipeline's Params and ImageParams by name
(without data bound to them), and its output Functions with everything they reach
(definitions, schedules, RDoms, embedded Buffers). In the second, each Param and ImageParam is
written as a reference by name, so that deserializing can bind the caller's instead
(`user_params`, as Halide's does). Reading
unpickles with an allow-list: only webhal's IR and data classes (and numpy's arrays) can be
made, never a function call, so a file cannot run code; it is still a format for pipelines
you made, not for untrusted input.
"""

from __future__ import annotations

import io
import os
import pickle

from webhal.errors import CompileError, user_location

MAGIC = b"webhal pipeline 1\n"

# Modules whose classes a file may contain (pure data: IR, types, schedules, inputs).
_DATA_MODULES = ("webhal.ir.nodes", "webhal.ir.stmt", "webhal.ir.types", "webhal.ir.function",
                 "webhal.ir.schedule", "webhal.lang.param", "webhal.lang.buffer",
                 "webhal.lang.func", "webhal.lang.stage", "webhal.errors")
_ALLOWED = {("copyreg", "_reconstructor"), ("copyreg", "__newobj__"),
            ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "object"),
            ("numpy", "ndarray"), ("numpy", "dtype"),
            ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar")}


class _Writer(pickle.Pickler):
    def persistent_id(self, obj):
        from webhal.lang.param import ImageParam, Param
        return ("param", obj.name()) if isinstance(obj, (Param, ImageParam)) else None


class _Reader(pickle.Unpickler):
    """Reads one pickle from `stream`, making only allowed classes; Param references resolve
    through `params`."""

    def __init__(self, stream, params: dict | None = None):
        super().__init__(stream)
        self.params = params or {}

    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        if module in _DATA_MODULES:
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise CompileError(f"not a webhal pipeline file: it names {module}.{name}, which a "
                           "serialized pipeline never contains", user_location())

    def persistent_load(self, pid):
        kind, name = pid
        if kind != "param" or name not in self.params:
            raise CompileError(f"a serialized pipeline refers to Param {name}, which it does "
                               "not list", user_location())
        return self.params[name]


def _parameters(pipeline) -> dict:
    """The pipeline's Params and ImageParams by name (not its embedded Buffers)."""
    from webhal.lang.param import ImageParam
    from webhal.lower import gather_inputs
    images, params = gather_inputs(pipeline.functions())
    return {**{n: i for n, i in images.items() if isinstance(i, ImageParam)}, **params}


def serialize_pipeline(pipeline, filename=None, get_params: bool = False):
    """Write `pipeline` to `filename` (a path), or return it as bytes when no filename is
    given; with get_params, also return its Params by name (a dict), as Halide's does:
    `params`, `data` or `(data, params)`."""
    params = _parameters(pipeline)
    out = io.BytesIO()
    out.write(MAGIC)
    pickle.dump(params, out, protocol=pickle.HIGHEST_PROTOCOL)
    _Writer(out, protocol=pickle.HIGHEST_PROTOCOL).dump(
        [f.function() for f in pipeline._funcs])
    data = out.getvalue()
    if filename is None:
        return (data, params) if get_params else data
    with open(os.fspath(filename), "wb") as f:
        f.write(data)
    return params if get_params else None


def _read(source) -> io.BytesIO:
    """The serialized pipeline (given as bytes, or read from a path) after its header."""
    data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else \
        open(os.fspath(source), "rb").read()
    if not data.startswith(MAGIC):
        raise CompileError("not a webhal pipeline file (serialize_pipeline writes them); "
                           "webhal does not read Halide's own .hlpipe format", user_location())
    return io.BytesIO(data[len(MAGIC):])


def deserialize_parameters(source) -> dict:
    """The Params a serialized pipeline uses, by name (from a path or bytes)."""
    return _Reader(_read(source)).load()


def deserialize_pipeline(source, user_params: dict | None = None):
    """The Pipeline serialize_pipeline wrote (a path or bytes). Each Param named in
    `user_params` is replaced by the one given there (with its value); the others are the
    Params as they were serialized."""
    from webhal.lang.func import Func
    from webhal.lang.pipeline import Pipeline
    stream = _read(source)
    params = _Reader(stream).load()
    for name, p in (user_params or {}).items():
        if name in params:
            params[name] = p
    functions = _Reader(stream, params).load()
    return Pipeline([Func._of(fn) for fn in functions])
