/* A C harness written against Halide's AOT interface (HalideRuntime.h + the generated header),
 * used unchanged with webhal's static library. */
#include "HalideRuntime.h"
#include "blur.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const int W = 67, H = 45;
    uint16_t *in = malloc((W + 2) * (H + 2) * sizeof(uint16_t));
    uint16_t *out = malloc(W * H * sizeof(uint16_t));
    for (int y = 0; y < H + 2; y++)
        for (int x = 0; x < W + 2; x++) in[y * (W + 2) + x] = (uint16_t)((x * 131 + y * 71) % 4001);
    halide_dimension_t in_dim[2] = {{0, W + 2, 1, 0}, {0, H + 2, W + 2, 0}};
    halide_dimension_t out_dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t in_buf, out_buf;
    memset(&in_buf, 0, sizeof in_buf);
    memset(&out_buf, 0, sizeof out_buf);
    in_buf.host = (uint8_t *)in; in_buf.dimensions = 2; in_buf.dim = in_dim;
    in_buf.type.code = halide_type_uint; in_buf.type.bits = 16; in_buf.type.lanes = 1;
    out_buf = in_buf; out_buf.host = (uint8_t *)out; out_buf.dim = out_dim;
    int err = blur(&in_buf, &out_buf);
    if (err) { printf("error %d\n", err); return 1; }
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t s = 0;
            for (int dy = 0; dy < 3; dy++) {
                uint32_t r = 0;
                for (int dx = 0; dx < 3; dx++) r += in[(y + dy) * (W + 2) + x + dx];
                s += (uint16_t)(r / 3);
            }
            if (out[y * W + x] != (uint16_t)(s / 3)) bad++;
        }
    printf("mismatches %d host_dirty %d\n", bad, (int)(out_buf.flags & 1));
    out_dim[0].extent = W + 5;  /* too wide: reads past the input */
    err = blur(&in_buf, &out_buf);
    printf("error code %d\n", err);
    return bad != 0;
}
