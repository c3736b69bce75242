#include "reference.h"

#include <math.h>
#include <stdlib.h>

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* v / 4096 rounded half up, saturated to u8 (v in Q12). */
static uint8_t from_q12(int64_t v) {
    double r = floor(((double)v + 2048.0) / 4096.0);
    return (uint8_t)(r < 0.0 ? 0.0 : r > 255.0 ? 255.0 : r);
}

/* v in Q12, rounded half up. */
static int64_t to_q12(float v) { return (int64_t)floor((double)v * 4096.0 + 0.5); }

void ref_levels(ref_image s, ref_image d, float gain, float bias) {
    int64_t g = to_q12(gain), b = to_q12(bias);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++) REF_PX(d, x, y, c) = from_q12(g * REF_PX(s, x, y, c) + b);
}

void ref_grayscale_order(ref_image s, ref_image d, int bgr) {
    int r = bgr ? 2 : 0, b = bgr ? 0 : 2;
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++) {
            unsigned v = 77u * REF_PX(s, x, y, r) + 150u * REF_PX(s, x, y, 1) +
                         29u * REF_PX(s, x, y, b) + 128u;
            REF_PX(d, x, y, 0) = (uint8_t)(v >> 8);
        }
}

void ref_grayscale(ref_image s, ref_image d) { ref_grayscale_order(s, d, 0); }

int ref_gaussian_taps(float sigma, uint16_t *taps) {
    int r = (int)ceil(3.0 * sigma);
    double sum = 0.0;
    for (int i = -r; i <= r; i++) sum += exp(-(double)(i * i) / (2.0 * sigma * (double)sigma));
    int32_t rest = 65536;
    for (int i = -r; i <= r; i++) {
        if (i == 0) continue;
        double g = exp(-(double)(i * i) / (2.0 * sigma * (double)sigma)) / sum;
        taps[i + r] = (uint16_t)floor(65536.0 * g + 0.5);
        rest -= taps[i + r];
    }
    taps[r] = (uint16_t)rest;
    return r;
}

/* One 1-D pass of the Q7 blur over n samples p[0], p[step], ... (already Q7: value << 7). */
static uint16_t blur_q7(const uint16_t *w, int r, const uint16_t *q7, int i, int n, size_t step) {
    uint32_t acc = (uint32_t)(r + 1) / 2;
    acc += ((uint32_t)q7[(size_t)i * step] * w[r]) >> 16;
    for (int j = 1; j <= r; j++) {
        uint32_t pair = (uint32_t)q7[(size_t)clampi(i - j, 0, n - 1) * step] +
                        q7[(size_t)clampi(i + j, 0, n - 1) * step];
        acc += (pair * w[r + j]) >> 16;
    }
    return (uint16_t)acc;
}

uint16_t *ref_gaussian_blur_q7(ref_image s, float sigma) {
    uint16_t w[97];
    int r = ref_gaussian_taps(sigma, w);
    size_t n = (size_t)s.w * (size_t)s.h * (size_t)s.c;
    uint16_t *in = malloc(sizeof *in * n), *h = malloc(sizeof *h * n), *v = malloc(sizeof *v * n);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++)
                in[((size_t)y * s.w + x) * s.c + c] = (uint16_t)(REF_PX(s, x, y, c) << 7);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++)
                h[((size_t)y * s.w + x) * s.c + c] =
                    blur_q7(w, r, in + (size_t)y * s.w * s.c + c, x, s.w, (size_t)s.c);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++)
                v[((size_t)y * s.w + x) * s.c + c] =
                    blur_q7(w, r, h + (size_t)x * s.c + c, y, s.h, (size_t)s.w * s.c);
    free(in);
    free(h);
    return v;
}

void ref_gaussian_blur(ref_image s, ref_image d, float sigma) {
    uint16_t *v = ref_gaussian_blur_q7(s, sigma);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++) {
                unsigned o = (v[((size_t)y * s.w + x) * s.c + c] + 64u) >> 7;
                REF_PX(d, x, y, c) = (uint8_t)(o > 255 ? 255 : o);
            }
    free(v);
}

/* Source taps and the Q11 weight of the second one for output index i. */
static void resize_taps(int i, int n_in, int n_out, int *t0, int *t1, int *w1) {
    int64_t num = (2 * (int64_t)i + 1) * n_in - n_out, den = 2 * (int64_t)n_out;
    if (num < 0) num = 0;
    int64_t q = num / den;
    *t0 = (int)(q < n_in - 1 ? q : n_in - 1);
    *t1 = *t0 + 1 < n_in ? *t0 + 1 : n_in - 1;
    *w1 = (int)(((num % den) * 2048 + n_out) / den);
}

void ref_resize(ref_image s, ref_image d) {
    for (int y = 0; y < d.h; y++) {
        int y0, y1, wy1;
        resize_taps(y, s.h, d.h, &y0, &y1, &wy1);
        for (int x = 0; x < d.w; x++) {
            int x0, x1, wx1;
            resize_taps(x, s.w, d.w, &x0, &x1, &wx1);
            for (int c = 0; c < s.c; c++) {
                int top = (2048 - wx1) * REF_PX(s, x0, y0, c) + wx1 * REF_PX(s, x1, y0, c);
                int bot = (2048 - wx1) * REF_PX(s, x0, y1, c) + wx1 * REF_PX(s, x1, y1, c);
                REF_PX(d, x, y, c) = (uint8_t)(((2048 - wy1) * top + wy1 * bot + (1 << 21)) >> 22);
            }
        }
    }
}

void ref_sobel(ref_image s, ref_image d) {
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++) {
            int p[3][3];
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    p[j + 1][i + 1] =
                        REF_PX(s, clampi(x + i, 0, s.w - 1), clampi(y + j, 0, s.h - 1), 0);
            int gx = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0]);
            int gy = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2]);
            float m = sqrtf((float)(gx * gx + gy * gy)) + 0.5f;
            REF_PX(d, x, y, 0) = (uint8_t)(m > 255.0f ? 255.0f : m);
        }
}

void ref_unsharp_mask(ref_image s, ref_image d, float sigma, float amount) {
    int64_t a = to_q12(amount);
    uint16_t *v = ref_gaussian_blur_q7(s, sigma);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++) {
                int64_t b = v[((size_t)y * s.w + x) * s.c + c];
                int64_t o = (b * (4096 - a) + 128 * a * REF_PX(s, x, y, c) + (1 << 18)) >> 19;
                REF_PX(d, x, y, c) = (uint8_t)(o < 0 ? 0 : o > 255 ? 255 : o);
            }
    free(v);
}
