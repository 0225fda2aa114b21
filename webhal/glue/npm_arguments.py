"""What an npm package says about each argument beyond its type: the name of each axis, the
constraints the generator puts on its buffers (`output.dim(0).set_bounds(0, 3)`), and what a
scalar Param takes (its range, and whether NaN and infinities may pass). index.js carries it for
runtime_js/buffers.js to check shapes and scalars with; index.d.ts and the README show it.

Axis names: an output's are its Func's pure Vars. An input has none of its own, so its axes take
the names of the Vars it is read with, where some definition reads it with one distinct Var in
each index (`input[c, x + 1, y]`); else `d0`, `d1`, ...
"""

from __future__ import annotations

import math
import re

from webhal.ir import nodes as ir
from webhal.ir.printer import to_string
from webhal.ir.visitor import walk

_FIELD = re.compile(r"\b([A-Za-z_][\w$]*)\.(min|extent|stride)\.(\d+)\b")
_SETTERS = ("min", "extent", "stride")


def describe(arguments: list[dict], module, functions) -> list[dict]:
    """`arguments` (name, kind, type, dimensions, output) with `axes` and `constraints` added
    to buffers, `range` and `nonfinite` to scalars. `module` is the lowered module (its inputs
    and outputs), `functions` every Function of the pipeline."""
    sources = {a.name(): a for a in module.arguments}
    outputs = {fn.name: fn for fn in module.outputs}
    out = []
    for arg in arguments:
        name = arg["name"]
        if arg["kind"] == "scalar":
            out.append({**arg, **_scalar(sources.get(name), arg["type"])})
            continue
        if arg["output"]:
            fn = outputs[name]
            axes = list(fn.pure_args)
            given = fn.output_constraints
        else:
            axes = _input_axes(name, arg["dimensions"], functions)
            given = getattr(sources.get(name), "_constraints", {})
        out.append({**arg, "axes": axes, "constraints": _constraints(name, given)})
    return out


def _constraints(buffer: str, given: dict) -> list[dict]:
    """One entry per constrained field, in dimension order: the value when it is a constant
    (null when it depends on other arguments) and the constraint as the generator says it."""
    found = []
    for (field, d), value in sorted(given.items(), key=lambda kv: (kv[0][1],
                                                                  _SETTERS.index(kv[0][0]))):
        if value is None:  # dim(0).set_stride(Expr()): any stride, nothing to check
            continue
        const = value.value if isinstance(value, ir.IntImm) else None
        text = const if const is not None else _FIELD.sub(
            lambda m: f"{m[1]}.dim({m[3]}).{m[2]}()", to_string(value))
        found.append({"dim": d, "field": field, "value": const,
                      "text": f"{buffer}.dim({d}).{field}() == {text}"})
    return found


def _input_axes(name: str, dims: int, functions) -> list[str]:
    """The Vars an input is read with, or d0, d1, ... when no read names one Var per index."""
    return _read_axes(name, dims, {fn.name: fn for fn in functions}) or \
        [f"d{i}" for i in range(dims)]


def _read_axes(name: str, dims: int, functions: dict, depth: int = 0) -> list[str] | None:
    """The Vars some definition reads `name` with, one distinct Var per index. A wrapper's
    implicit Vars (`_0`, as BoundaryConditions makes) take the names the wrapper is read with."""
    if depth > 4:
        return None
    for fn in functions.values():
        for definition in fn.definitions:
            for node in definition.nodes():
                for call in walk(node):
                    if not (isinstance(call, ir.Call) and call.name == name):
                        continue
                    axes = [_only_var(a) for a in call.args]
                    if len(axes) != dims or not all(axes) or len(set(axes)) != dims:
                        continue
                    if any(_implicit(a) for a in axes):
                        if not all(a in fn.pure_args for a in axes if _implicit(a)):
                            continue
                        outer = _read_axes(fn.name, len(fn.pure_args), functions, depth + 1)
                        if outer is None:
                            continue
                        axes = [outer[fn.pure_args.index(a)] if _implicit(a) else a
                                for a in axes]
                        if len(set(axes)) != dims:
                            continue
                    return axes
    return None


def _implicit(name: str) -> bool:
    return name.startswith("_") and name[1:].isdigit()


def _only_var(e) -> str | None:
    """The one Var in index `e` (`x`, `x + 1`, `clamp(_0, 0, n)`), else None: an RDom's
    variable (`r0$x`) names no axis; a buffer's fields (`input.min.0`) are not Vars."""
    names = {n.name for n in walk(e) if isinstance(n, ir.Variable) and "." not in n.name}
    name = next(iter(names)) if len(names) == 1 else ""
    return name if name.isidentifier() else None


def _scalar(param, type_name: str) -> dict:
    """A scalar's range (constant bounds of its Param, else null) and, for floats, whether
    NaN and infinities may be passed (`hl.InputScalar(hl.Float(32), allow_nonfinite=True)`)."""
    bounds = []
    for bound in (getattr(param, "_min", None), getattr(param, "_max", None)):
        is_const = isinstance(bound, ir.IntImm | ir.UIntImm | ir.FloatImm)
        # An infinite bound is no bound (JSON has no Infinity).
        bounds.append(bound.value if is_const and math.isfinite(bound.value) else None)
    info = {"range": bounds}
    if type_name.startswith("float"):
        info["nonfinite"] = bool(getattr(param, "allow_nonfinite", False))
    return info


# What the generated index.d.ts and README say of an argument.

EXAMPLE_NAMES = {"x": "width", "y": "height"}


def fixed_extents(arg: dict) -> dict[int, int]:
    """Dimension -> the extent a constraint fixes it to."""
    return {c["dim"]: c["value"] for c in arg.get("constraints", ())
            if c["field"] == "extent" and c["value"] is not None}


def ts_shape(arg: dict) -> str:
    """The shape as a labeled TypeScript tuple, fixed extents as literal types:
    `[c: 3, x: number, y: number]`."""
    fixed = fixed_extents(arg)
    labels = [re.sub(r"\W", "_", a) for a in arg["axes"]]
    return "[" + ", ".join(f"{label}: {fixed.get(d, 'number')}"
                           for d, label in enumerate(labels)) + "]"


def shape_words(arg: dict, names: dict[str, str] | None = None) -> str:
    """The shape in words, fixed extents as numbers: `[3, x, y]` (axes renamed by `names`)."""
    fixed, names = fixed_extents(arg), names or {}
    return "[" + ", ".join(str(fixed.get(d, names.get(a, a)))
                           for d, a in enumerate(arg["axes"])) + "]"


def example(arg: dict) -> str:
    """A JavaScript value for the argument, as the README's example passes it."""
    if arg["kind"] == "scalar":
        if arg["type"] == "bool":
            return "true"
        low, _ = arg.get("range", (None, None))
        return str(low) if low is not None else "1"
    fixed = fixed_extents(arg)
    count = " * ".join(str(fixed.get(d, EXAMPLE_NAMES.get(a, a)))
                       for d, a in enumerate(arg["axes"])) or "1"
    return f"{{ data: new {ARRAYS[arg['type']]}({count}), " \
           f"shape: {shape_words(arg, EXAMPLE_NAMES)} }}"


def doc(arg: dict, device: bool) -> str:
    """One line on the argument: its type, axes, shape and constraints."""
    if arg["kind"] == "scalar":
        text = f"{arg['type']} scalar"
        low, high = arg.get("range", (None, None))
        if low is not None or high is not None:
            text += f" in [{'-Infinity' if low is None else low}, " \
                    f"{'Infinity' if high is None else high}]"
        if "nonfinite" in arg:
            text += ("; NaN and infinities allowed" if arg["nonfinite"] else
                     "; finite (NaN and infinities are a RangeError)")
        return text
    array = ARRAYS[arg["type"]]
    text = f"{arg['type']} buffer ({array}) over ({', '.join(arg['axes'])}), shape " \
           f"{shape_words(arg)}, dimension 0 innermost"
    if arg["constraints"]:
        text += "; the generator requires " + ", ".join(c["text"] for c in arg["constraints"])
    if device:
        text += "; on the webgpu variant also a GPUBuffer of p.device"
    return text


# Element type -> its typed array (runtime_js/buffers.js's ARRAYS).
ARRAYS = {"bool": "Uint8Array", "int8": "Int8Array", "uint8": "Uint8Array",
                "int16": "Int16Array", "uint16": "Uint16Array", "int32": "Int32Array",
                "uint32": "Uint32Array", "float32": "Float32Array", "float64": "Float64Array"}
