/* webhal's runtime header: the C view of pipelines compiled by webhal.
 *
 * Generated from webhal/abi.py by `python -m webhal.abi --write`; do not edit.
 * The types follow the layout of Halide's public runtime ABI, so C and C++ code written
 * against Halide's ahead-of-time pipelines compiles and links against webhal's (docs/abi.md).
 */
#ifndef HALIDE_HALIDERUNTIME_H
#define HALIDE_HALIDERUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What kind of number an element is. */
typedef enum halide_type_code_t {
    halide_type_int = 0,
    halide_type_uint = 1,
    halide_type_float = 2,
    halide_type_handle = 3,
    halide_type_bfloat = 4
} halide_type_code_t;

/* An element type: 4 bytes, read as one uint32 code | bits << 8 | lanes << 16. */
struct halide_type_t {
    uint8_t code;               /* a halide_type_code_t */
    uint8_t bits;               /* bits per lane: 1 (bool), 8, 16, 32 or 64 */
    uint16_t lanes;             /* 1 for scalars */
};

/* One dimension of a buffer: coordinates min .. min + extent - 1. */
typedef struct halide_dimension_t {
    int32_t min;
    int32_t extent;
    int32_t stride;             /* in elements */
    uint32_t flags;             /* reserved, keep 0 */
} halide_dimension_t;

typedef enum halide_buffer_flags {
    halide_buffer_flag_host_dirty = 1,
    halide_buffer_flag_device_dirty = 2
} halide_buffer_flags;

struct halide_device_interface_t;

/* A view of n-dimensional data. webhal needs `host` allocated, dim[0].stride == 1, and
 * `dimensions` equal to what the pipeline declares. */
typedef struct halide_buffer_t {
    uint64_t device;            /* device handle (0: none) */
    const struct halide_device_interface_t *device_interface;
    uint8_t *host;              /* the element at (min, min, ...) */
    uint64_t flags;             /* halide_buffer_flags */
    struct halide_type_t type;
    int32_t dimensions;
    halide_dimension_t *dim;
    void *padding;              /* reserved */
} halide_buffer_t;

/* What pipelines return: 0 on success, else one of these (Halide's values). */
enum halide_error_code_t {
    halide_error_code_success = 0,
    halide_error_code_generic_error = -1,
    halide_error_code_explicit_bounds_too_small = -2,
    halide_error_code_bad_type = -3,
    halide_error_code_access_out_of_bounds = -4,
    halide_error_code_constraint_violated = -8,
    halide_error_code_out_of_memory = -11,
    halide_error_code_buffer_argument_is_null = -12,
    halide_error_code_copy_to_host_failed = -14,
    halide_error_code_device_malloc_failed = -16,
    halide_error_code_internal_error = -22,
    halide_error_code_device_run_failed = -23,
    halide_error_code_requirement_failed = -27,
    halide_error_code_specialize_fail = -31,
    halide_error_code_host_is_null = -34,
    halide_error_code_bad_dimensions = -43
};

/* A task of a parallel loop: runs iteration `task_number` with the loop's values. */
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
int halide_error_access_out_of_bounds(void *user_context, const char *func_name, int32_t dimension,
                                      int32_t min_touched, int32_t max_touched, int32_t min_valid,
                                      int32_t max_valid);
int halide_error_bad_type(void *user_context, const char *func_name, uint32_t type_given,
                          uint32_t correct_type);
int halide_error_bad_dimensions(void *user_context, const char *func_name,
                                int32_t dimensions_given, int32_t correct_dimensions);
int halide_error_constraint_violated(void *user_context, const char *var, int32_t value,
                                     const char *constrained_var, int32_t constrained_value);
int halide_error_buffer_argument_is_null(void *user_context, const char *buffer_name);
int halide_error_host_is_null(void *user_context, const char *func_name);
int halide_error_out_of_memory(void *user_context);
int halide_error_explicit_bounds_too_small(void *user_context, const char *func_name,
                                           const char *var_name, int32_t min_bound,
                                           int32_t max_bound, int32_t min_required,
                                           int32_t max_required);
int halide_error_specialize_fail(void *user_context, const char *message);

#ifdef __cplusplus
}
#endif

#endif /* HALIDE_HALIDERUNTIME_H */
