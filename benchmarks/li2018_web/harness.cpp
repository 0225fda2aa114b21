// spec.h (written per demo by benchmarks/halide_webgpu.py) defines: the entry function's
// declaration, SPEC (dims, extents, type code and bits of each of NBUF buffers, the output last) and CALL(b) calling it with the demo's scalars. The module exports two
// functions, called through ccall (async: Halide's runtime yields to JS, ASYNCIFY):
// bench_setup() makes the buffers (inputs: the pattern webhal's side gets, host dirty), calls
// the pipeline once, copies the output back and returns its sum (< 0: Halide's error code,
// negated, minus one); bench_calls(k) calls the pipeline k times on the device-resident
// buffers and returns the OR of the error codes. Timing and waiting for the GPU are the
// runner's, the same for both sides.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <emscripten.h>
#include "HalideRuntime.h"
#include "spec.h"
static halide_buffer_t b[NBUF];
static halide_dimension_t dims[NBUF][3];
extern "C" EMSCRIPTEN_KEEPALIVE double bench_setup(void) {
    memset(b, 0, sizeof b);
    for (int k = 0; k < NBUF; k++) {
        int stride = 1;
        for (int d = 0; d < SPEC[k].dims; d++) {
            dims[k][d].min = 0; dims[k][d].extent = SPEC[k].extent[d];
            dims[k][d].stride = stride; dims[k][d].flags = 0;
            stride *= SPEC[k].extent[d];
        }
        b[k].host = (uint8_t *)malloc((size_t)stride * SPEC[k].bits / 8);
        b[k].type.code = (halide_type_code_t)SPEC[k].code; b[k].type.bits = SPEC[k].bits;
        b[k].type.lanes = 1; b[k].dimensions = SPEC[k].dims; b[k].dim = dims[k];
        if (k < NBUF - 1) {
            for (int i = 0; i < stride; i++)
                b[k].host[i] = (uint8_t)(((long long)i * 7919 + (i >> 9) * 13) % 251);
            b[k].flags = halide_buffer_flag_host_dirty;
        }
    }
    halide_buffer_t *out = &b[NBUF - 1];
    int err = CALL(b);
    if (!err) err = halide_copy_to_host(NULL, out);
    if (err) return -1.0 - (err < 0 ? -err : err);
    double sum = 0;
    size_t count = 1;
    for (int d = 0; d < out->dimensions; d++) count *= out->dim[d].extent;
    for (size_t i = 0; i < count; i++) sum += out->type.bits == 8 ? out->host[i] : 0;
    return sum;
}
extern "C" EMSCRIPTEN_KEEPALIVE uint8_t *bench_output(void) { return b[NBUF - 1].host; }
extern "C" EMSCRIPTEN_KEEPALIVE int bench_calls(int k) {
    int err = 0;
    for (int i = 0; i < k; i++) err |= CALL(b);
    return err;
}
