"""The ABI between compiled pipelines and their runtimes, written once.

Everything that compiled code and a runtime must agree on is here as data: the layout of
halide_buffer_t and its parts (Halide's public runtime ABI), type and error codes, the runtime's
error functions (their parameters, codes and messages), and the `webhal_gpu_*` calls with the
packing of kernel arguments. The LLVM types, the ctypes and wasm-memory views read these tables;
the C header `webhal/include/HalideRuntime.h` and the JavaScript module `runtime_js/abi.js` are
generated from them:

    python -m webhal.abi --write     # regenerate both
    python -m webhal.abi --check     # exit 1 if either is stale

docs/abi.md describes the same contract in prose.
"""

from __future__ import annotations

import json
import pathlib
import struct
import sys
import textwrap
from dataclasses import dataclass

from webhal.errors import BufferError, HalideError

# -- scalar kinds ----------------------------------------------------------------------------------

# The kinds a field or parameter can have, with their C spelling. A pointer's size is the target's;
# `string` is a pointer to NUL-terminated text.
C_TYPES = {"uint8": "uint8_t", "uint16": "uint16_t", "int32": "int32_t", "uint32": "uint32_t",
           "uint64": "uint64_t", "pointer": "void *", "string": "const char *"}
_SIZES = {"uint8": 1, "uint16": 2, "int32": 4, "uint32": 4, "uint64": 8}
POINTER_SIZES = (4, 8)  # wasm32; 64-bit hosts


def size_of(kind: str, pointer_bytes: int) -> int:
    """Size and alignment of a kind (uint64 is 8-aligned on wasm32 and on 64-bit hosts)."""
    return pointer_bytes if kind in ("pointer", "string") else _SIZES[kind]


# -- structures ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    name: str
    kind: str            # how readers store it (a key of C_TYPES)
    c_type: str = ""     # the C header's spelling, when it says more than the kind
    comment: str = ""

    @property
    def c_declaration(self) -> str:
        spelled = self.c_type or C_TYPES[self.kind]
        return f"{spelled}{'' if spelled.endswith('*') else ' '}{self.name};"


@dataclass(frozen=True)
class Struct:
    name: str
    fields: tuple[Field, ...]
    comment: str

    def index(self, field: str) -> int:
        return [f.name for f in self.fields].index(field)

    def offsets(self, pointer_bytes: int) -> dict[str, int]:
        """Each field's offset in bytes, with C's natural alignment."""
        out, at = {}, 0
        for f in self.fields:
            size = size_of(f.kind, pointer_bytes)
            at = -(-at // size) * size
            out[f.name] = at
            at += size
        return out

    def size(self, pointer_bytes: int) -> int:
        last = self.fields[-1]
        end = self.offsets(pointer_bytes)[last.name] + size_of(last.kind, pointer_bytes)
        align = max(size_of(f.kind, pointer_bytes) for f in self.fields)
        return -(-end // align) * align


HALIDE_TYPE_T = Struct("halide_type_t", (
    Field("code", "uint8", comment="a halide_type_code_t"),
    Field("bits", "uint8", comment="bits per lane: 1 (bool), 8, 16, 32 or 64"),
    Field("lanes", "uint16", comment="1 for scalars"),
), "An element type: 4 bytes, read as one uint32 code | bits << 8 | lanes << 16.")

HALIDE_DIMENSION_T = Struct("halide_dimension_t", (
    Field("min", "int32"),
    Field("extent", "int32"),
    Field("stride", "int32", comment="in elements"),
    Field("flags", "uint32", comment="reserved, keep 0"),
), "One dimension of a buffer: coordinates min .. min + extent - 1.")

# `type` is a halide_type_t; its 4 bytes are read and written as one uint32 (see pack_type).
HALIDE_BUFFER_T = Struct("halide_buffer_t", (
    Field("device", "uint64", comment="device handle (0: none)"),
    Field("device_interface", "pointer", "const struct halide_device_interface_t *"),
    Field("host", "pointer", "uint8_t *", "the element at (min, min, ...)"),
    Field("flags", "uint64", comment="halide_buffer_flags"),
    Field("type", "uint32", "struct halide_type_t"),
    Field("dimensions", "int32"),
    Field("dim", "pointer", "halide_dimension_t *"),
    Field("padding", "pointer", comment="reserved"),
), "A view of n-dimensional data. webhal needs `host` allocated, dim[0].stride == 1, and "
   "`dimensions` equal to what the pipeline declares.")

STRUCTS = (HALIDE_TYPE_T, HALIDE_DIMENSION_T, HALIDE_BUFFER_T)

# -- codes -----------------------------------------------------------------------------------------

TYPE_CODES = {"int": 0, "uint": 1, "float": 2, "handle": 3, "bfloat": 4}
BUFFER_FLAGS = {"host_dirty": 1,    # the host copy is newer than the device copy
                "device_dirty": 2}  # the device copy is newer than the host copy


def pack_type(code: str, bits: int, lanes: int = 1) -> int:
    """A halide_type_t as the uint32 compiled code compares: code | bits << 8 | lanes << 16."""
    return TYPE_CODES[code] | bits << 8 | lanes << 16


def type_name(packed: int) -> str:
    """"uint8", "bool", "float32x4", ... for a packed halide_type_t."""
    codes = {v: k for k, v in TYPE_CODES.items()}
    kind, bits, lanes = codes.get(packed & 0xFF, "?"), (packed >> 8) & 0xFF, packed >> 16
    name = "bool" if kind == "uint" and bits == 1 else f"{kind}{bits}"
    return name if lanes <= 1 else f"{name}x{lanes}"


# What a pipeline or runtime call returns: 0, or one of Halide's error codes (the ones webhal uses).
ERROR_CODES = {
    "success": 0,
    "generic_error": -1,
    "explicit_bounds_too_small": -2,
    "bad_type": -3,
    "access_out_of_bounds": -4,
    "constraint_violated": -8,
    "out_of_memory": -11,
    "buffer_argument_is_null": -12,
    "copy_to_host_failed": -14,
    "device_malloc_failed": -16,
    "internal_error": -22,
    "device_run_failed": -23,
    "requirement_failed": -27,
    "specialize_fail": -31,
    "host_is_null": -34,
    "bad_dimensions": -43,
}

# -- the runtime's error functions -----------------------------------------------------------------

# Parameters after `void *user_context`, in Halide's order. Each returns the error code of its
# name (halide_error_bad_type returns ERROR_CODES["bad_type"]).
ERROR_FUNCTIONS = {
    "halide_error_access_out_of_bounds": (
        ("func_name", "string"), ("dimension", "int32"), ("min_touched", "int32"),
        ("max_touched", "int32"), ("min_valid", "int32"), ("max_valid", "int32")),
    "halide_error_bad_type": (("func_name", "string"), ("type_given", "uint32"),
                              ("correct_type", "uint32")),
    "halide_error_bad_dimensions": (("func_name", "string"), ("dimensions_given", "int32"),
                                    ("correct_dimensions", "int32")),
    "halide_error_constraint_violated": (("var", "string"), ("value", "int32"),
                                         ("constrained_var", "string"),
                                         ("constrained_value", "int32")),
    "halide_error_buffer_argument_is_null": (("buffer_name", "string"),),
    "halide_error_host_is_null": (("func_name", "string"),),
    "halide_error_out_of_memory": (),
    "halide_error_explicit_bounds_too_small": (
        ("func_name", "string"), ("var_name", "string"), ("min_bound", "int32"),
        ("max_bound", "int32"), ("min_required", "int32"), ("max_required", "int32")),
    "halide_error_specialize_fail": (("message", "string"),),
}

# Pipeline.add_requirement's check: the message is pieces packed as webhal_print's (below), so
# that it can show values; returns ERROR_CODES["requirement_failed"].
REQUIREMENT_FUNCTION = "webhal_error_requirement_failed"
REQUIREMENT_PARAMS = (("condition", "string"), ("kinds", "string"), ("values", "pointer"))


def error_code(function: str) -> int:
    """The code a runtime error function returns (generic_error for one webhal does not know)."""
    if function == REQUIREMENT_FUNCTION:
        return ERROR_CODES["requirement_failed"]
    return ERROR_CODES.get(function.removeprefix("halide_error_"), ERROR_CODES["generic_error"])


def requirement_message(condition: str, message: str) -> str:
    """What webhal_error_requirement_failed reports (Halide's words)."""
    wrapped = condition if condition.startswith("(") and condition.endswith(")") else \
        f"({condition})"
    return f"Requirement Failed: {wrapped} {message}"


def string_parameters(function: str) -> tuple[int, ...]:
    """Positions (after user_context) of an error function's string parameters."""
    return tuple(i for i, (_, kind) in enumerate(ERROR_FUNCTIONS.get(function, ()))
                 if kind == "string")


# -- printing (hl.print, hl.print_when, Func.trace_*) -----------------------------------------

# int32_t webhal_print(void *user_context, const char *kinds, const int64_t *values): one line
# made of len(kinds) pieces, concatenated, then a newline. values[i] holds piece i as
# PRINT_KINDS[kinds[i]] says; the runtime returns 0. Halide's formats: integers in decimal,
# float32 (and float16) as printf's %f, float64 as %e, bool as true/false.
PRINT_FUNCTION = "webhal_print"
PRINT_KINDS = {
    "i": "signed integer, sign-extended to 64 bits",
    "u": "unsigned integer, zero-extended to 64 bits",
    "f": "float32 or float16, widened to a double's bits",
    "d": "float64, a double's bits",
    "b": "bool, 0 or 1",
    "s": "a pointer to a NUL-terminated string, zero-extended to 64 bits",
}


def print_kind(t) -> str:
    """The PRINT_KINDS letter of a value of webhal Type `t` (a string piece is "s")."""
    if t.is_bool():
        return "b"
    if t.is_float():
        return "d" if t.bits == 64 else "f"
    return "i" if t.is_int() else "u"


def print_values(kinds: str, words: list[int], read_string) -> list:
    """The values of webhal_print's slots (unsigned 64-bit words) as Python numbers and strings
    (`read_string(address)` reads a string piece)."""
    out = []
    for kind, w in zip(kinds, words):
        match kind:
            case "f" | "d":
                out.append(struct.unpack("<d", struct.pack("<Q", w))[0])
            case "i":
                out.append(w - (1 << 64) if w >> 63 else w)
            case "s":
                out.append(read_string(w))
            case _:
                out.append(w)
    return out


def format_print(kinds: str, values: list) -> str:
    """The line webhal_print prints (without its newline): `values` are Python numbers and
    strings, one per letter of `kinds`."""
    out = []
    for kind, v in zip(kinds, values):
        match kind:
            case "f":
                out.append(f"{float(v):f}")
            case "d":
                out.append(f"{float(v):e}")
            case "b":
                out.append("true" if v else "false")
            case "s":
                out.append(v)
            case _:
                out.append(str(int(v)))
    return "".join(out)


# The messages: one text on every target, and the reference evaluator's too.
BOUNDARY_HINT = ("; pass a larger buffer or read it through a boundary condition "
                 "(hl.BoundaryConditions.repeat_edge)")
# An output is written beyond its buffer when it is smaller than a split or vector factor of its
# schedule (the last tile shifts inwards, past the start), or an update writes beyond it.
# realize(sizes) enlarges its own buffers; a buffer the caller passes (realize(buffer), the AOT
# entry) is only checked, as in Halide.
OUTPUT_HINT = ("; the schedule writes that far: pass a larger output buffer (at least each "
               "split and vector factor, and all its update definitions write; realize with "
               "sizes does this itself), or split with hl.TailStrategy.GuardWithIf")


def out_of_bounds(what: str, dim: int, min_touched: int, max_touched: int, min_valid: int,
                  max_valid: int) -> str:
    """`what` is e.g. "Input buffer input"."""
    hint = BOUNDARY_HINT if what.startswith("Input") else \
        OUTPUT_HINT if what.startswith("Output") else ""
    if min_touched < min_valid:
        return (f"{what} is accessed at {min_touched}, which is before the min ({min_valid}) "
                f"in dimension {dim}{hint}")
    return (f"{what} is accessed at {max_touched}, which is beyond the max ({max_valid}) in "
            f"dimension {dim}{hint}")


def error_message(function: str, args: list) -> tuple[str, type[HalideError]]:
    """The text and exception class of a runtime error call (args without user_context,
    strings already read)."""
    match function:
        case "halide_error_access_out_of_bounds":
            return out_of_bounds(*args), BufferError
        case "halide_error_bad_type":
            name, given, correct = args
            return (f"{name} has type {type_name(correct)}, but the buffer passed in has type "
                    f"{type_name(given)}"), BufferError
        case "halide_error_bad_dimensions":
            name, given, correct = args
            return (f"{name} needs a buffer of {correct} dimensions, but the buffer passed in "
                    f"has {given}"), BufferError
        case "halide_error_constraint_violated":
            var, val, constrained, cval = args
            why = ("webhal needs the innermost dimension of every buffer to be dense unless "
                   "its dim(0) stride is constrained (an interleaved image)"
                   if var.endswith(".stride.0") and str(cval) == "1" else
                   "the dim() constraints of the ImageParam or output_buffer() say so; pass a "
                   "buffer that meets them (hl.Buffer.make_interleaved for an interleaved one)")
            return (f"constraint violated: {var} ({val}) == {constrained} ({cval}); {why}",
                    BufferError)
        case "halide_error_buffer_argument_is_null":
            return f"buffer argument {args[0]} is NULL", BufferError
        case "halide_error_host_is_null":
            return (f"buffer {args[0]} has no host memory (webhal does not do bounds queries: "
                    "allocate the buffer first)"), BufferError
        case "halide_error_explicit_bounds_too_small":
            func, var, lo, hi, required_lo, required_hi = args
            return (f"Bounds given for {func} in {var} (from {lo} to {hi}) do not cover required "
                    f"region (from {required_lo} to {required_hi}); realize the bound()'s "
                    "region or change the bound()"), BufferError
        case "halide_error_out_of_memory":
            return "out of memory while running the pipeline", HalideError
        case "halide_error_specialize_fail":
            return ("A schedule specialized with specialize_fail() was chosen: "
                    f"{args[0]}"), HalideError
    return f"{function}{tuple(args)}", HalideError


# -- GPU calls -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GpuCall:
    """A `webhal_gpu_*` function: int name(void *user_context, params...). It returns 0, or
    `fails_with` when the device or the runtime fails."""

    params: tuple[tuple[str, str], ...]
    fails_with: str


GPU_CALLS = {
    "webhal_gpu_buffer": GpuCall((("id", "int32"), ("host", "pointer"), ("nbytes", "int32"),
                                  ("host_is_current", "int32")), "device_malloc_failed"),
    "webhal_gpu_host_dirty": GpuCall((("id", "int32"),), "internal_error"),
    "webhal_gpu_copy_to_host": GpuCall((("id", "int32"),), "copy_to_host_failed"),
    "webhal_gpu_run": GpuCall((("kernel", "int32"), ("groups_x", "int32"), ("groups_y", "int32"),
                               ("groups_z", "int32"), ("args", "pointer"), ("nbytes", "int32")),
                              "device_run_failed"),
}

# webhal_gpu_run's `args`: each kernel scalar takes one 4-byte little-endian slot, in the order of
# the manifest's `scalars`: a value's bits, zero-extended when narrower (float16 in the low half,
# bool as 0 or 1; kernels sign-extend narrow signed integers themselves).
GPU_SCALAR_BYTES = 4
# The uniform buffer that carries them is a whole number of 16-byte rows (WGSL's uniform layout).
GPU_ARGS_ALIGNMENT = 16


def gpu_args_bytes(scalars: int) -> int:
    """Size of a kernel's argument uniform buffer."""
    rows = -(-scalars * GPU_SCALAR_BYTES // GPU_ARGS_ALIGNMENT)
    return max(1, rows) * GPU_ARGS_ALIGNMENT


# -- the profiler (target feature `profile`, webhal/passes/profiling.py) -----------------------

# int32_t name(void *user_context, params...), each returning 0. The runtime keeps, per thread,
# the Func being computed and since when; each call charges the time since the last call to it.
# Func id 0 is the pipeline's overhead, ids 1.. the Funcs named in pipeline_start's `funcs`
# (comma-separated, in that order).
PROFILER_FUNCTIONS = {
    "webhal_profiler_pipeline_start": (("pipeline", "string"), ("funcs", "string")),
    "webhal_profiler_pipeline_end": (),
    "webhal_profiler_set_current_func": (("func", "int32"),),
    "webhal_profiler_parallel_start": (),
    "webhal_profiler_parallel_end": (),
    "webhal_profiler_task_start": (("func", "int32"),),
    "webhal_profiler_task_end": (),
}

# -- the C header ----------------------------------------------------------------------------------

HEADER_PATH = pathlib.Path(__file__).parent / "include" / "HalideRuntime.h"
JS_PATH = pathlib.Path(__file__).parent.parent / "runtime_js" / "abi.js"
_REGENERATE = "python -m webhal.abi --write"


def _c_enum(name: str, prefix: str, values: dict[str, int], typedef: bool) -> str:
    body = ",\n".join(f"    {prefix}{k} = {v}" for k, v in values.items())
    if typedef:
        return f"typedef enum {name} {{\n{body}\n}} {name};\n"
    return f"enum {name} {{\n{body}\n}};\n"


def _c_struct(s: Struct, typedef: bool) -> str:
    lines = []
    for f in s.fields:
        decl = f"    {f.c_declaration}"
        lines.append(f"{decl:<32}/* {f.comment} */" if f.comment else decl)
    body = "\n".join(lines)
    head = _c_comment(s.comment)
    if typedef:
        return f"{head}typedef struct {s.name} {{\n{body}\n}} {s.name};\n"
    return f"{head}struct {s.name} {{\n{body}\n}};\n"


def _c_comment(text: str) -> str:
    lines = textwrap.wrap(text, 96)
    return "/* " + "\n * ".join(lines) + " */\n"


def _c_function(name: str, params) -> str:
    """int name(void *user_context, ...); wrapped under its parenthesis."""
    spelled = ["void *user_context"] + [
        f"{C_TYPES[k]}{'' if C_TYPES[k].endswith('*') else ' '}{n}" for n, k in params]
    head = f"int {name}("
    lines, line = [], head
    for i, p in enumerate(spelled):
        p += ");" if i == len(spelled) - 1 else ","
        if len(line) + len(p) + 1 > 100 and line != head:
            lines.append(line.rstrip())
            line = " " * len(head)
        line += p + " "
    return "\n".join(lines + [line.rstrip()])


def runtime_header() -> str:
    """The text of webhal/include/HalideRuntime.h (generated pipeline headers embed it too)."""
    errors = "\n".join(_c_function(name, params) for name, params in ERROR_FUNCTIONS.items())
    parts = [
        f"""/* webhal's runtime header: the C view of pipelines compiled by webhal.
 *
 * Generated from webhal/abi.py by `{_REGENERATE}`; do not edit.
 * The types follow the layout of Halide's public runtime ABI, so C and C++ code written
 * against Halide's ahead-of-time pipelines compiles and links against webhal's (docs/abi.md).
 */
#ifndef HALIDE_HALIDERUNTIME_H
#define HALIDE_HALIDERUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {{
#endif
""",
        "/* What kind of number an element is. */\n"
        + _c_enum("halide_type_code_t", "halide_type_", TYPE_CODES, typedef=True),
        _c_struct(HALIDE_TYPE_T, typedef=False),
        _c_struct(HALIDE_DIMENSION_T, typedef=True),
        _c_enum("halide_buffer_flags", "halide_buffer_flag_", BUFFER_FLAGS, typedef=True),
        "struct halide_device_interface_t;\n",
        _c_struct(HALIDE_BUFFER_T, typedef=True),
        "/* What pipelines return: 0 on success, else one of these (Halide's values). */\n"
        + _c_enum("halide_error_code_t", "halide_error_code_", ERROR_CODES, typedef=False),
        """/* A task of a parallel loop: runs iteration `task_number` with the loop's values. */
typedef int (*halide_task_t)(void *user_context, int task_number, uint8_t *closure);

/* The runtime's entry points. The library defines each weakly; define your own to replace it
 * (halide_error to route messages, halide_do_par_for to run tasks on your threads). */
void halide_error(void *user_context, const char *message);
void *halide_malloc(void *user_context, size_t size);
void halide_free(void *user_context, void *ptr);
int halide_do_par_for(void *user_context, halide_task_t task, int min, int size,
                      uint8_t *closure);

/* In libraries built with the target feature `profile`: print each profiled pipeline's
 * report through halide_print (Halide's format), and forget what was measured. */
void halide_profiler_report(void *user_context);
void halide_profiler_reset(void);

/* What compiled code calls when a check fails: each reports through halide_error and returns
 * its halide_error_code_t. */
""" + errors + "\n",
        """#ifdef __cplusplus
}
#endif

#endif /* HALIDE_HALIDERUNTIME_H */
"""]
    return "\n".join(parts)


# -- the JavaScript module -------------------------------------------------------------------------

def _js(value, indent: int = 0, spread: bool = False) -> str:
    """A JavaScript literal: on one line when short and not `spread`, else one entry a line."""
    if isinstance(value, dict):
        items = [f"{k}: {_js(v, indent + 2)}" for k, v in value.items()]
        brackets = "{}"
    elif isinstance(value, list | tuple):
        items = [_js(v, indent + 2) for v in value]
        brackets = "[]"
    else:
        return json.dumps(value)
    one_line = brackets[0] + ", ".join(items) + brackets[1]
    if not spread and indent + len(one_line) < 80 and "\n" not in one_line:
        return one_line
    inner = "".join(f"{' ' * (indent + 2)}{item},\n" for item in items)
    return f"{brackets[0]}\n{inner}{' ' * indent}{brackets[1]}"


def javascript_module() -> str:
    """The text of runtime_js/abi.js: the same tables for the JavaScript runtime (wasm32)."""
    def const(name: str, table: dict, comment: str) -> str:
        comment = "\n".join(textwrap.wrap(comment, 97, initial_indent="// ",
                                           subsequent_indent="// "))
        return f"{comment}\nexport const {name} = Object.freeze({_js(table, spread=True)});\n"

    def layout(s: Struct) -> dict:
        return {"size": s.size(4), **s.offsets(4)}

    gpu = {name: {"params": c.params, "fails_with": ERROR_CODES[c.fails_with]}
           for name, c in GPU_CALLS.items()}
    errors = {name: {"params": params, "code": error_code(name)}
              for name, params in ERROR_FUNCTIONS.items()}
    parts = [
        f"// Generated from webhal/abi.py by `{_REGENERATE}`; do not edit.\n"
        "// The ABI between compiled pipelines and webhal's runtimes (docs/abi.md).\n",
        const("TYPE_CODE", TYPE_CODES, "halide_type_t.code"),
        const("BUFFER_FLAG", BUFFER_FLAGS, "bits of halide_buffer_t.flags"),
        const("ERROR_CODE", ERROR_CODES, "what pipelines and runtime calls return"),
        const("HALIDE_TYPE_T", layout(HALIDE_TYPE_T), "byte offsets and size in wasm32 memory"),
        const("HALIDE_DIMENSION_T", layout(HALIDE_DIMENSION_T),
              "byte offsets and size in wasm32 memory"),
        const("HALIDE_BUFFER_T", layout(HALIDE_BUFFER_T),
              "byte offsets and size in wasm32 memory (`type` is one uint32)"),
        const("ERROR_FUNCTIONS", errors,
              "the runtime's error functions: [name, kind] of each parameter after user_context, "
              "and the code each returns"),
        const("GPU_CALLS", gpu, "webhal_gpu_* functions: [name, kind] of each parameter after "
              "user_context, and the code each returns on failure"),
        "// webhal_gpu_run's args: one little-endian slot per kernel scalar, in manifest order.\n"
        f"export const GPU_SCALAR_BYTES = {GPU_SCALAR_BYTES};\n"
        f"export const GPU_ARGS_ALIGNMENT = {GPU_ARGS_ALIGNMENT};\n",
        "// halide_type_t as one uint32.\n"
        "export function packType(code, bits, lanes = 1) {\n"
        "  return (TYPE_CODE[code] | (bits << 8) | (lanes << 16)) >>> 0;\n}\n",
    ]
    return "\n".join(parts)


GENERATED = {HEADER_PATH: runtime_header, JS_PATH: javascript_module}


def main(argv: list[str]) -> int:
    if argv not in (["--write"], ["--check"]):
        print(f"usage: python -m webhal.abi --write | --check\n{__doc__}", file=sys.stderr)
        return 2
    stale = []
    for path, text in GENERATED.items():
        wanted = text()
        if path.exists() and path.read_text() == wanted:
            continue
        if argv == ["--write"]:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(wanted)
            print(f"wrote {path}")
        else:
            stale.append(str(path))
    if stale:
        print(f"stale: {', '.join(stale)}; run `{_REGENERATE}`", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
