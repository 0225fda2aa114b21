// Generated from webhal/abi.py by `python -m webhal.abi --write`; do not edit.
// The ABI between compiled pipelines and webhal's runtimes (docs/abi.md).

// halide_type_t.code
export const TYPE_CODE = Object.freeze({
  int: 0,
  uint: 1,
  float: 2,
  handle: 3,
  bfloat: 4,
});

// bits of halide_buffer_t.flags
export const BUFFER_FLAG = Object.freeze({
  host_dirty: 1,
  device_dirty: 2,
});

// what pipelines and runtime calls return
export const ERROR_CODE = Object.freeze({
  success: 0,
  generic_error: -1,
  explicit_bounds_too_small: -2,
  bad_type: -3,
  access_out_of_bounds: -4,
  constraint_violated: -8,
  out_of_memory: -11,
  buffer_argument_is_null: -12,
  copy_to_host_failed: -14,
  device_malloc_failed: -16,
  internal_error: -22,
  device_run_failed: -23,
  requirement_failed: -27,
  specialize_fail: -31,
  host_is_null: -34,
  bad_dimensions: -43,
});

// byte offsets and size in wasm32 memory
export const HALIDE_TYPE_T = Object.freeze({
  size: 4,
  code: 0,
  bits: 1,
  lanes: 2,
});

// byte offsets and size in wasm32 memory
export const HALIDE_DIMENSION_T = Object.freeze({
  size: 16,
  min: 0,
  extent: 4,
  stride: 8,
  flags: 12,
});

// byte offsets and size in wasm32 memory (`type` is one uint32)
export const HALIDE_BUFFER_T = Object.freeze({
  size: 40,
  device: 0,
  device_interface: 8,
  host: 12,
  flags: 16,
  type: 24,
  dimensions: 28,
  dim: 32,
  padding: 36,
});

// the runtime's error functions: [name, kind] of each parameter after user_context, and the code
// each returns
export const ERROR_FUNCTIONS = Object.freeze({
  halide_error_access_out_of_bounds: {
    params: [
      ["func_name", "string"],
      ["dimension", "int32"],
      ["min_touched", "int32"],
      ["max_touched", "int32"],
      ["min_valid", "int32"],
      ["max_valid", "int32"],
    ],
    code: -4,
  },
  halide_error_bad_type: {
    params: [
      ["func_name", "string"],
      ["type_given", "uint32"],
      ["correct_type", "uint32"],
    ],
    code: -3,
  },
  halide_error_bad_dimensions: {
    params: [
      ["func_name", "string"],
      ["dimensions_given", "int32"],
      ["correct_dimensions", "int32"],
    ],
    code: -43,
  },
  halide_error_constraint_violated: {
    params: [
      ["var", "string"],
      ["value", "int32"],
      ["constrained_var", "string"],
      ["constrained_value", "int32"],
    ],
    code: -8,
  },
  halide_error_buffer_argument_is_null: {params: [["buffer_name", "string"]], code: -12},
  halide_error_host_is_null: {params: [["func_name", "string"]], code: -34},
  halide_error_out_of_memory: {params: [], code: -11},
  halide_error_explicit_bounds_too_small: {
    params: [
      ["func_name", "string"],
      ["var_name", "string"],
      ["min_bound", "int32"],
      ["max_bound", "int32"],
      ["min_required", "int32"],
      ["max_required", "int32"],
    ],
    code: -2,
  },
  halide_error_specialize_fail: {params: [["message", "string"]], code: -31},
});

// webhal_gpu_* functions: [name, kind] of each parameter after user_context, and the code each
// returns on failure
export const GPU_CALLS = Object.freeze({
  webhal_gpu_buffer: {
    params: [
      ["id", "int32"],
      ["host", "pointer"],
      ["nbytes", "int32"],
      ["host_is_current", "int32"],
    ],
    fails_with: -16,
  },
  webhal_gpu_host_dirty: {params: [["id", "int32"]], fails_with: -22},
  webhal_gpu_copy_to_host: {params: [["id", "int32"]], fails_with: -14},
  webhal_gpu_run: {
    params: [
      ["kernel", "int32"],
      ["groups_x", "int32"],
      ["groups_y", "int32"],
      ["groups_z", "int32"],
      ["args", "pointer"],
      ["nbytes", "int32"],
    ],
    fails_with: -23,
  },
});

// webhal_gpu_run's args: one little-endian slot per kernel scalar, in manifest order.
export const GPU_SCALAR_BYTES = 4;
export const GPU_ARGS_ALIGNMENT = 16;

// halide_type_t as one uint32.
export function packType(code, bits, lanes = 1) {
  return (TYPE_CODE[code] | (bits << 8) | (lanes << 16)) >>> 0;
}
