/* Plain C (-O3, OpenMP over rows) versions of Lumen's pipelines, same integer formulas as
 * lumen.h, so they must match Lumen bit for bit; plus the memory-bandwidth probes. */
#ifndef LUMEN_BENCH_PLAIN_H
#define LUMEN_BENCH_PLAIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint8_t *p;
    int w, h, c;
    size_t stride;
} pc_img;

void pc_set_threads(int n);
void pc_levels(pc_img s, pc_img d, int32_t gain_q12, int32_t bias_q12);
void pc_grayscale(pc_img s, pc_img d);
void pc_blur(pc_img s, pc_img d, const uint16_t *taps, int r);
void pc_resize(pc_img s, pc_img d);
void pc_sobel(pc_img s, pc_img d);
void pc_unsharp(pc_img s, pc_img d, const uint16_t *taps, int r, int32_t amount_q12);
/* NV12 (s: 1 channel, Y rows then UV rows, height 3/2 of d's) to RGB(A), BT.601 limited range,
 * with lumen_yuv_to_rgb's Q16 coefficients. */
void pc_nv12_to_rgb(pc_img s, pc_img d);
/* RGB(A) to I420 (d: 1 channel, Y rows, then U rows, then V rows, packed: height 3/2 of s's),
 * BT.601 limited range, with lumen_rgb_to_yuv's Q16 coefficients and 2x2 chroma sums. */
void pc_rgb_to_i420(pc_img s, pc_img d);

/* Bandwidth probes over n bytes, split over the threads: memcpy, a copy loop with ordinary
 * stores (as pipelines do), and a read-only sum. */
void bw_copy(uint8_t *dst, const uint8_t *src, size_t n);
void bw_loop_copy(uint8_t *dst, const uint8_t *src, size_t n, uint64_t key);
uint64_t bw_read(const uint8_t *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif
