/* webhal's runtime header: the C view of pipelines compiled by webhal.
 *
 * The types below follow the layout of Halide's public runtime ABI (halide_buffer_t and
 * friends), so C and C++ code written against Halide's ahead-of-time pipelines compiles and
 * links against webhal's. Written for webhal; see docs/abi.md for the contract.
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

/* An element type: 4 bytes, packed as code | bits << 8 | lanes << 16. */
struct halide_type_t {
    uint8_t code;   /* a halide_type_code_t */
    uint8_t bits;   /* bits per lane: 1 (bool), 8, 16, 32 or 64 */
    uint16_t lanes; /* 1 for scalars */
};

/* One dimension of a buffer: coordinates min .. min + extent - 1, stride in elements. */
typedef struct halide_dimension_t {
    int32_t min, extent, stride;
    uint32_t flags; /* reserved, keep 0 */
} halide_dimension_t;

typedef enum halide_buffer_flags {
    halide_buffer_flag_host_dirty = 1,  /* the host copy is newer than the device copy */
    halide_buffer_flag_device_dirty = 2 /* the device copy is newer than the host copy */
} halide_buffer_flags;

struct halide_device_interface_t;

/* A view of n-dimensional data. webhal needs `host` allocated, dim[0].stride == 1, and
 * `dimensions` equal to what the pipeline declares. */
typedef struct halide_buffer_t {
    uint64_t device;
    const struct halide_device_interface_t *device_interface;
    uint8_t *host;
    uint64_t flags;            /* halide_buffer_flags */
    struct halide_type_t type;
    int32_t dimensions;
    halide_dimension_t *dim;
    void *padding;             /* reserved */
} halide_buffer_t;

/* What pipelines return: 0 on success, else one of these (Halide's values). */
enum halide_error_code_t {
    halide_error_code_success = 0,
    halide_error_code_generic_error = -1,
    halide_error_code_bad_type = -3,
    halide_error_code_access_out_of_bounds = -4,
    halide_error_code_constraint_violated = -8,
    halide_error_code_out_of_memory = -11,
    halide_error_code_buffer_argument_is_null = -12,
    halide_error_code_host_is_null = -34,
    halide_error_code_bad_dimensions = -43
};

/* A task of a parallel loop: runs iteration `task_number` with the loop's captured values. */
typedef int (*halide_task_t)(void *user_context, int task_number, uint8_t *closure);

/* The runtime's entry points. The library defines each weakly; define your own to replace it
 * (halide_error to route messages, halide_do_par_for to run tasks on your threads). */
void halide_error(void *user_context, const char *message);
void *halide_malloc(void *user_context, size_t size);
void halide_free(void *user_context, void *ptr);
int halide_do_par_for(void *user_context, halide_task_t task, int min, int size,
                      uint8_t *closure);

#ifdef __cplusplus
}
#endif

#endif /* HALIDE_HALIDERUNTIME_H */
