"""The runtime's error functions: Halide's names, argument lists and error codes; the same
messages as the reference evaluator's, so a user sees one text whatever the target."""

from __future__ import annotations

from webhal.errors import BufferError, HalideError

# Halide's error codes (HalideRuntime.h), the values the pipeline returns.
CODES = {
    "halide_error_explicit_bounds_too_small": -2,
    "halide_error_bad_type": -3,
    "halide_error_access_out_of_bounds": -4,
    "halide_error_constraint_violated": -8,
    "halide_error_out_of_memory": -11,
    "halide_error_buffer_argument_is_null": -12,
    "halide_error_host_is_null": -34,
    "halide_error_bad_dimensions": -43,
}

BOUNDARY_HINT = ("; pass a larger buffer or read it through a boundary condition "
                 "(hl.BoundaryConditions.repeat_edge)")


def out_of_bounds(what: str, dim: int, min_touched: int, max_touched: int, min_valid: int,
                  max_valid: int) -> str:
    """`what` is e.g. "Input buffer input"."""
    hint = BOUNDARY_HINT if what.startswith("Input") else ""
    if min_touched < min_valid:
        return (f"{what} is accessed at {min_touched}, which is before the min ({min_valid}) "
                f"in dimension {dim}{hint}")
    return (f"{what} is accessed at {max_touched}, which is beyond the max ({max_valid}) in "
            f"dimension {dim}{hint}")


def type_name(code: int) -> str:
    kind = {0: "int", 1: "uint", 2: "float", 3: "handle"}.get(code & 0xFF, "?")
    bits, lanes = (code >> 8) & 0xFF, code >> 16
    name = "bool" if kind == "uint" and bits == 1 else f"{kind}{bits}"
    return name if lanes <= 1 else f"{name}x{lanes}"


def message(function: str, args: list) -> tuple[str, type[HalideError]]:
    """The text and exception class of a runtime error call (args without user_context)."""
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
            why = ("webhal needs the innermost dimension of every buffer to be dense"
                   if var.endswith(".stride.0") else
                   "the ImageParam's dim() constraints say so; pass a buffer that meets them")
            return f"constraint violated: {var} ({val}) == {constrained} ({cval}); {why}", \
                BufferError
        case "halide_error_buffer_argument_is_null":
            return f"buffer argument {args[0]} is NULL", BufferError
        case "halide_error_host_is_null":
            return (f"buffer {args[0]} has no host memory (webhal does not do bounds queries: "
                    "allocate the buffer first)"), BufferError
        case "halide_error_explicit_bounds_too_small":
            func, var, lo, hi, required_lo, required_hi = args
            return (f"Bounds given for Func {func} in {var} (from {lo} to {hi}) do not cover the "
                    f"required region (from {required_lo} to {required_hi}); realize the "
                    "bound()'s region or change the bound()"), BufferError
        case "halide_error_out_of_memory":
            return "out of memory while running the pipeline", HalideError
    return f"{function}{tuple(args)}", HalideError
