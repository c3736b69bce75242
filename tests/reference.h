/* Plain-C reference implementations of Lumen's pipelines, written from the documented
 * formulas (lumen.h), independent of the Halide code. Images: interleaved u8, any stride. */
#ifndef LUMEN_TESTS_REFERENCE_H
#define LUMEN_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *data;
    int w, h, c;
    size_t stride;
} ref_image;

#define REF_PX(img, x, y, ch) \
  ((img).data[(size_t)(y) * (img).stride + (size_t)(x) * (img).c + (ch)])

void ref_levels(ref_image src, ref_image dst, float gain, float bias);

/* 16-bit (elem 2, uint16_t) and float (elem 4) images: data at the first element, stride in
 * bytes. */
typedef struct {
    void *data;
    int w, h, c, elem;
    size_t stride;
} ref_wide;
/* Element (x, y, ch) as a double. */
double ref_wide_get(ref_wide img, int x, int y, int ch);
void ref_levels_wide(ref_wide src, ref_wide dst, float gain, float bias);
void ref_resize_wide(ref_wide src, ref_wide dst);
void ref_gaussian_blur_wide(ref_wide src, ref_wide dst, float sigma);
void ref_unsharp_mask_wide(ref_wide src, ref_wide dst, float sigma, float amount);
/* Any element size (elem 1, 2 or 4) in a ref_wide: lumen_flip / lumen_rotate's mode (generators/
 * orient.cpp: bit 0 mirror x, bit 1 mirror y, bit 2 transpose; dst's size) and lumen_threshold. */
void ref_orient(ref_wide src, ref_wide dst, int mode);
void ref_threshold(ref_wide src, ref_wide dst, float thresh, float maxval, int type);
/* lumen_warp_affine (any element size) from lumen.h's formulas: m inverted unless inverse,
 * border replicate or constant value[ch] (already rounded for 8- and 16-bit). Float: in double. */
void ref_warp_affine(ref_wide src, ref_wide dst, const double m[6], int inverse, int replicate,
                     const double value[4]);
/* lumen_resize_interp: NEAREST (any element size) and AREA (8-bit) from lumen.h's formulas. */
void ref_resize_nearest(ref_wide src, ref_wide dst);
void ref_resize_area(ref_wide src, ref_wide dst);
/* CUBIC (lanczos 0) and LANCZOS3 (8- and 16-bit), over every source pixel with its merged
 * weight. */
void ref_resize_kernel(ref_wide src, ref_wide dst, int lanczos);
/* LANCZOS3's window for output i of in -> out (lumen.h): sources lo .. lo + n - 1 with their
 * weights L((j + 0.5 - center) / f) in w (room for `in`), not normalised; returns their sum. */
double ref_lanczos3_window(int i, int in, int out, double *w, int *lo, int *n);
/* 8-bit images in a ref_wide: lumen_histogram (counts[ch * 256 + v]), lumen_lut (table per
 * channel, or one for all) and lumen_equalize_hist (gray), from lumen.h's definitions. */
void ref_histogram(ref_wide src, uint32_t *counts);
void ref_lut(ref_wide src, ref_wide dst, const uint8_t *table, int per_channel);
void ref_equalize_hist(ref_wide src, ref_wide dst);
/* lumen_morphology (op: lumen_morph_op's values) with a kw x kh rectangle, from its definition:
 * each window's min or max (clamped to the image), then the compositions. */
void ref_morphology(ref_wide src, ref_wide dst, int op, int kw, int kh);
/* lumen_median: each element's median over its k x k window, clamped to the image. */
void ref_median(ref_wide src, ref_wide dst, int k);
/* lumen_box_filter (8- and 16-bit): floor((S + floor(n / 2)) / n), S the window's sum. */
void ref_box_filter(ref_wide src, ref_wide dst, int kw, int kh);
/* lumen_filter2d (8- and 16-bit): floor((S + 2^shift / 2) / 2^shift) saturated, S the sum of
 * kernel[j * kw + i] * element (lumen_sep_filter: kernel[j * kw + i] = kx[i] * ky[j]). */
void ref_filter2d(ref_wide src, ref_wide dst, const long *kernel, int kw, int kh, int shift);
/* Border modes (lumen_border's numbers): the coordinate read for p of a row of n (OpenCV's
 * borderInterpolate; -1: outside, for CONSTANT); src with a border m wide (value[c] for channel c
 * with CONSTANT, 8- and 16-bit rounded and saturated) in a new image (free its data). */
int ref_border_index(int p, int n, int border);
ref_wide ref_pad(ref_wide src, int m, int border, const float *value);
/* lumen_bilateral from lumen.h's description, in float as there, each channel on its own: dst
 * pixel (x, y) reads src's (x + ox, y + oy), clamped to src (a padded source: ox = oy = its
 * border). */
void ref_bilateral(ref_wide src, int ox, int oy, ref_wide dst, float sigma_space,
                   float sigma_color);
void ref_grayscale(ref_image src, ref_image dst);
/* bgr: src's channels are B, G, R (and A). */
void ref_grayscale_order(ref_image src, ref_image dst, int bgr);
/* Q16 taps: returns the radius; taps holds 2 * radius + 1 values. */
int ref_gaussian_taps(float sigma, uint16_t *taps);
void ref_gaussian_blur(ref_image src, ref_image dst, float sigma);
void ref_resize(ref_image src, ref_image dst);
void ref_sobel(ref_image src, ref_image dst);
/* The unrounded blur in Q7 (u16 per sample, interleaved like src); the caller frees it. */
uint16_t *ref_gaussian_blur_q7(ref_image src, float sigma);
void ref_unsharp_mask(ref_image src, ref_image dst, float sigma, float amount);

/* 4:2:0 frames (lumen_yuv_frame's layout and lumen_yuv_space's values, as ints); bgr: the RGB
 * image's channels are B, G, R (A); alpha written as 255. */
typedef struct {
    int layout; /* 1 NV12, 2 NV21, 3 I420 */
    int w, h;
    uint8_t *planes[3];
    size_t strides[3];
} ref_frame;
void ref_yuv_to_rgb(const ref_frame *src, ref_image dst, int bgr, int space);
void ref_rgb_to_yuv(ref_image src, int bgr, const ref_frame *dst, int space);

#endif
