/* The one benchmark harness, written against Halide's AOT interface (HalideRuntime.h and
 * halide_buffer_t). It is built once per pipeline, implementation and target; what differs is
 * "bench_spec.h", written by benchmarks/run.py: the buffers (type, extents, input file) and
 * bench_call(), which calls the pipeline's entry function. The same source links with
 * webhal's static library and with Halide's.
 *
 * It allocates dense buffers (x innermost), fills the inputs from raw files (or a fixed
 * pseudo-random pattern when a file is missing), calls the pipeline once to check it and take
 * a checksum of the output, warms up, then times batches of calls with emscripten_get_now()
 * and prints one JSON line: the median and minimum milliseconds per call and the checksum.
 *
 * Arguments: [--batches K] [--min-batch-ms T] [--warmup-ms W]. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "HalideRuntime.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
static double now_ms(void) { return emscripten_get_now(); }
#else
#include <time.h>
static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
#endif

#define BENCH_MAX_DIMS 4

typedef struct {
    const char *name;
    halide_type_code_t code;
    int bits;
    int dimensions;
    int extent[BENCH_MAX_DIMS]; /* x first */
    const char *input_file;     /* raw bytes in the same dense layout; NULL for the output */
} bench_buffer_spec_t;

/* Defines BENCH_PIPELINE, BENCH_IMPL, BENCH_TARGET, BENCH_NUM_BUFFERS, BENCH_OUTPUT,
 * bench_buffers[] and bench_call(halide_buffer_t *buffers). */
#include "bench_spec.h"

static halide_buffer_t buffers[BENCH_NUM_BUFFERS];
static halide_dimension_t dims[BENCH_NUM_BUFFERS][BENCH_MAX_DIMS];

static size_t element_count(const bench_buffer_spec_t *s) {
    size_t n = 1;
    for (int d = 0; d < s->dimensions; d++) n *= (size_t)s->extent[d];
    return n;
}

static void *allocate(size_t bytes) {
    void *p = NULL;
    /* 128-byte alignment, as Halide's runtime gives its own allocations. */
    if (posix_memalign(&p, 128, bytes ? bytes : 1) != 0) return NULL;
    memset(p, 0, bytes);
    return p;
}

/* A fixed pattern (xorshift32) for inputs without a file: deterministic on every host. */
static void fill_pattern(uint8_t *data, size_t elements, const bench_buffer_spec_t *s) {
    uint32_t state = 2463534242u;
    for (size_t i = 0; i < elements; i++) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        if (s->code == halide_type_float && s->bits == 32) {
            ((float *)data)[i] = (float)(state >> 8) / 16777216.0f;
        } else if (s->bits == 8) {
            data[i] = (uint8_t)(state >> 24);
        } else if (s->bits == 16) {
            ((uint16_t *)data)[i] = (uint16_t)((state >> 16) & 0x0fff);
        } else {
            ((uint32_t *)data)[i] = state >> 20;
        }
    }
}

static int fill_input(uint8_t *data, size_t bytes, const bench_buffer_spec_t *s) {
    FILE *f = s->input_file ? fopen(s->input_file, "rb") : NULL;
    if (!f) {
        fill_pattern(data, element_count(s), s);
        return 0; /* "pattern" */
    }
    size_t got = fread(data, 1, bytes, f);
    fclose(f);
    if (got != bytes) {
        fprintf(stderr, "%s: read %zu of %zu bytes\n", s->input_file, got, bytes);
        return -1;
    }
    return 1; /* "file" */
}

/* A position-weighted sum of the elements' bit patterns, modulo 2^64: any changed bit or moved
 * element changes it, and numpy computes the same value in a few vector operations
 * (benchmarks/measure.py: checksum()). */
static uint64_t checksum(const uint8_t *data, size_t elements, const bench_buffer_spec_t *s) {
    uint64_t sum = 0;
    for (size_t i = 0; i < elements; i++) {
        uint64_t v;
        if (s->bits == 8) v = data[i];
        else if (s->bits == 16) v = ((const uint16_t *)data)[i];
        else v = ((const uint32_t *)data)[i];
        uint64_t w = (uint32_t)((uint64_t)i * 2654435761ull) | 1u;
        sum += v * w;
    }
    return sum;
}

static double element_sum(const uint8_t *data, size_t elements, const bench_buffer_spec_t *s) {
    double sum = 0;
    for (size_t i = 0; i < elements; i++) {
        if (s->code == halide_type_float && s->bits == 32) sum += ((const float *)data)[i];
        else if (s->bits == 8) sum += data[i];
        else if (s->bits == 16) sum += ((const uint16_t *)data)[i];
        else if (s->code == halide_type_int) sum += ((const int32_t *)data)[i];
        else sum += ((const uint32_t *)data)[i];
    }
    return sum;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_failure(const char *what, int code) {
    printf("{\"pipeline\": \"%s\", \"impl\": \"%s\", \"target\": \"%s\", \"ok\": false, "
           "\"error\": \"%s\", \"code\": %d}\n",
           BENCH_PIPELINE, BENCH_IMPL, BENCH_TARGET, what, code);
    fflush(stdout);
}

int main(int argc, char **argv) {
    int batches = 15;
    double min_batch_ms = 25, warmup_ms = 100;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--batches")) batches = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--min-batch-ms")) min_batch_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup-ms")) warmup_ms = atof(argv[i + 1]);
    }
    if (batches < 1) batches = 1;

    int inputs_from_files = 1;
    for (int b = 0; b < BENCH_NUM_BUFFERS; b++) {
        const bench_buffer_spec_t *s = &bench_buffers[b];
        halide_buffer_t *buf = &buffers[b];
        memset(buf, 0, sizeof *buf);
        int stride = 1;
        for (int d = 0; d < s->dimensions; d++) {
            dims[b][d].min = 0;
            dims[b][d].extent = s->extent[d];
            dims[b][d].stride = stride;
            dims[b][d].flags = 0;
            stride *= s->extent[d];
        }
        size_t bytes = element_count(s) * (size_t)(s->bits / 8);
        buf->host = allocate(bytes);
        if (!buf->host) {
            print_failure("out of memory", -11);
            return 1;
        }
        buf->type.code = s->code;
        buf->type.bits = (uint8_t)s->bits;
        buf->type.lanes = 1;
        buf->dimensions = s->dimensions;
        buf->dim = dims[b];
        if (s->input_file || b != BENCH_OUTPUT) {
            int how = fill_input(buf->host, bytes, s);
            if (how < 0) {
                print_failure("short input file", -1);
                return 1;
            }
            if (how == 0) inputs_from_files = 0;
        }
    }

    /* One checked call into a zeroed output, for the checksum. */
    double start = now_ms();
    int err = bench_call(buffers);
    double first_ms = now_ms() - start;
    if (err) {
        print_failure("the pipeline returned an error", err);
        return 1;
    }
    const bench_buffer_spec_t *os = &bench_buffers[BENCH_OUTPUT];
    size_t out_elements = element_count(os);
    uint64_t hash = checksum(buffers[BENCH_OUTPUT].host, out_elements, os);
    double sum = element_sum(buffers[BENCH_OUTPUT].host, out_elements, os);
    int host_dirty = (int)(buffers[BENCH_OUTPUT].flags & 1);

    /* Warm up (JIT tiers, caches) for warmup_ms, then size batches to min_batch_ms. */
    int warm_calls = 0;
    start = now_ms();
    do {
        bench_call(buffers);
        warm_calls++;
    } while (now_ms() - start < warmup_ms || warm_calls < 2);
    double per_call = (now_ms() - start) / warm_calls;
    int calls = (int)ceil(min_batch_ms / (per_call > 1e-6 ? per_call : 1e-6));
    if (calls < 1) calls = 1;

    double *times = malloc(sizeof(double) * (size_t)batches);
    for (int k = 0; k < batches; k++) {
        start = now_ms();
        for (int i = 0; i < calls; i++) err |= bench_call(buffers);
        times[k] = (now_ms() - start) / calls;
    }
    if (err) {
        print_failure("the pipeline returned an error while timed", err);
        return 1;
    }
    qsort(times, (size_t)batches, sizeof(double), compare_doubles);
    double median = batches % 2 ? times[batches / 2]
                                : 0.5 * (times[batches / 2 - 1] + times[batches / 2]);
    printf("{\"pipeline\": \"%s\", \"impl\": \"%s\", \"target\": \"%s\", \"ok\": true, "
           "\"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"first_call_ms\": %.6f, "
           "\"batches\": %d, \"calls_per_batch\": %d, \"checksum\": \"%016llx\", "
           "\"sum\": %.17g, \"host_dirty\": %d, \"inputs\": \"%s\"}\n",
           BENCH_PIPELINE, BENCH_IMPL, BENCH_TARGET, median, times[0], times[batches - 1],
           first_ms, batches, calls, (unsigned long long)hash, sum, host_dirty,
           inputs_from_files ? "files" : "pattern");
    fflush(stdout);
    free(times);
    for (int b = 0; b < BENCH_NUM_BUFFERS; b++) free(buffers[b].host);
    return 0;
}
