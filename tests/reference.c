#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- YUV 4:2:0 (lumen.h: lumen_yuv_to_rgb, lumen_rgb_to_yuv) ---- */

static int32_t qn(double v, int n) { return (int32_t)floor(v * (1 << n) + 0.5); }
static int32_t q16(double v) { return qn(v, 16); }
static int clamp255(int32_t v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

/* Address of U (k = 0) or V (k = 1) of pixel (x, y). */
static uint8_t *chroma(const ref_frame *f, int k, int x, int y) {
    if (f->layout == 3) return f->planes[1 + k] + (size_t)(y / 2) * f->strides[1 + k] + x / 2;
    int off = f->layout == 2 ? 1 - k : k;
    return f->planes[1] + (size_t)(y / 2) * f->strides[1] + (size_t)(x / 2) * 2 + off;
}

static void space_of(int space, double *kr, double *kb, int *limited) {
    *kr = space <= 2 ? 0.299 : 0.2126;
    *kb = space <= 2 ? 0.114 : 0.0722;
    *limited = space == 1 || space == 3;
}

/* lumen.h's m(a, k, s) of lumen_yuv_to_rgb: ((a << s) k + 2^14) >> 15. */
static int32_t yuv_m(int32_t a, int32_t k, int s) { return (a * k + (1 << (14 - s))) >> (15 - s); }

void ref_yuv_to_rgb(const ref_frame *f, ref_image d, int bgr, int space) {
    double kr, kb;
    int lim;
    space_of(space, &kr, &kb, &lim);
    double kg = 1 - kr - kb, sy = lim ? 255.0 / 219 : 1, sc = lim ? 255.0 / 224 : 1;
    int32_t cy = qn(sy, 14), crv = qn(2 * sc * (1 - kr), 13),
            cgu = qn(2 * sc * kb * (1 - kb) / kg, 13);
    int32_t cgv = qn(2 * sc * kr * (1 - kr) / kg, 13), cbu = qn(2 * sc * (1 - kb), 13),
            y0 = lim ? 16 : 0;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            int32_t yt = yuv_m(f->planes[0][(size_t)y * f->strides[0] + x] - y0, cy, 7) + 32;
            int32_t u = *chroma(f, 0, x, y) - 128, v = *chroma(f, 1, x, y) - 128;
            int rgb[3] = {clamp255((yt + yuv_m(v, crv, 8)) >> 6),
                          clamp255((yt - yuv_m(u, cgu, 8) - yuv_m(v, cgv, 8)) >> 6),
                          clamp255((yt + yuv_m(u, cbu, 8)) >> 6)};
            for (int c = 0; c < d.c; c++)
                REF_PX(d, x, y, c) = (uint8_t)(c == 3 ? 255 : rgb[bgr ? 2 - c : c]);
        }
}

void ref_rgb_to_yuv(ref_image s, int bgr, const ref_frame *f, int space) {
    double kr, kb;
    int lim;
    space_of(space, &kr, &kb, &lim);
    double kg = 1 - kr - kb, sy = lim ? 219.0 / 255 : 1, sc = lim ? 224.0 / 255 : 1;
    int32_t yr = q16(sy * kr), yb = q16(sy * kb), yg = q16(sy) - yr - yb, y0 = lim ? 16 : 0;
    int32_t ur = q16(-sc * kr / (2 * (1 - kb))), ug = q16(-sc * kg / (2 * (1 - kb))), ub = -ur - ug;
    int32_t vg = q16(-sc * kg / (2 * (1 - kr))), vb = q16(-sc * kb / (2 * (1 - kr))), vr = -vg - vb;
    int ri = bgr ? 2 : 0, bi = bgr ? 0 : 2;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            int32_t r = REF_PX(s, x, y, ri), g = REF_PX(s, x, y, 1), b = REF_PX(s, x, y, bi);
            f->planes[0][(size_t)y * f->strides[0] + x] =
                (uint8_t)clamp255((yr * r + yg * g + yb * b + (y0 << 16) + 32768) >> 16);
        }
    for (int y = 0; y < f->h; y += 2)
        for (int x = 0; x < f->w; x += 2) {
            int32_t sr = 0, sg = 0, sb = 0;
            for (int j = 0; j < 4; j++) {
                sr += REF_PX(s, x + j % 2, y + j / 2, ri);
                sg += REF_PX(s, x + j % 2, y + j / 2, 1);
                sb += REF_PX(s, x + j % 2, y + j / 2, bi);
            }
            *chroma(f, 0, x, y) =
                (uint8_t)clamp255((ur * sr + ug * sg + ub * sb + (1 << 25) + (1 << 17)) >> 18);
            *chroma(f, 1, x, y) =
                (uint8_t)clamp255((vr * sr + vg * sg + vb * sb + (1 << 25) + (1 << 17)) >> 18);
        }
}

/* ---- 16-bit and float images ---- */

static void *wide_at(ref_wide img, int x, int y, int ch) {
    return (uint8_t *)img.data + (size_t)y * img.stride +
           ((size_t)x * (size_t)img.c + (size_t)ch) * (size_t)img.elem;
}

double ref_wide_get(ref_wide img, int x, int y, int ch) {
    void *p = wide_at(img, x, y, ch);
    return img.elem == 2 ? (double)*(uint16_t *)p : (double)*(float *)p;
}

static void wide_set_u16(ref_wide img, int x, int y, int ch, int64_t v) {
    *(uint16_t *)wide_at(img, x, y, ch) = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

void ref_levels_wide(ref_wide s, ref_wide d, float gain, float bias) {
    int64_t g = to_q12(gain), b = 257 * to_q12(bias);
    float bf = bias / 255.0f;
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++) {
                if (s.elem == 4) {
                    *(float *)wide_at(d, x, y, c) = gain * *(float *)wide_at(s, x, y, c) + bf;
                } else {
                    int64_t v = g * *(uint16_t *)wide_at(s, x, y, c) + b + 2048;
                    wide_set_u16(d, x, y, c, v >= 0 ? v / 4096 : -((-v + 4095) / 4096));
                }
            }
}

void ref_resize_wide(ref_wide s, ref_wide d) {
    for (int y = 0; y < d.h; y++) {
        int y0, y1, wy1;
        resize_taps(y, s.h, d.h, &y0, &y1, &wy1);
        for (int x = 0; x < d.w; x++) {
            int x0, x1, wx1;
            resize_taps(x, s.w, d.w, &x0, &x1, &wx1);
            for (int c = 0; c < s.c; c++) {
                if (s.elem == 4) { /* rows first, as lumen.h states */
                    float fy0 = (float)(2048 - wy1), fy1 = (float)wy1;
                    float v0 = (fy0 * *(float *)wide_at(s, x0, y0, c) +
                                fy1 * *(float *)wide_at(s, x0, y1, c)) *
                               (1.0f / 2048);
                    float v1 = (fy0 * *(float *)wide_at(s, x1, y0, c) +
                                fy1 * *(float *)wide_at(s, x1, y1, c)) *
                               (1.0f / 2048);
                    *(float *)wide_at(d, x, y, c) =
                        ((float)(2048 - wx1) * v0 + (float)wx1 * v1) * (1.0f / 2048);
                } else {
                    int64_t top = (int64_t)(2048 - wx1) * *(uint16_t *)wide_at(s, x0, y0, c) +
                                  (int64_t)wx1 * *(uint16_t *)wide_at(s, x1, y0, c);
                    int64_t bot = (int64_t)(2048 - wx1) * *(uint16_t *)wide_at(s, x0, y1, c) +
                                  (int64_t)wx1 * *(uint16_t *)wide_at(s, x1, y1, c);
                    wide_set_u16(d, x, y, c, ((2048 - wy1) * top + wy1 * bot + (1 << 21)) >> 22);
                }
            }
        }
    }
}

/* One pass of the wide blur over n samples p[i * step] (clamped at the ends) into out. */
static void wide_pass(const double *p, int n, const uint16_t *w, int r, int is_float, double *out) {
    for (int i = 0; i < n; i++) {
        if (is_float) {
            float acc = (float)w[r] * (1.0f / 65536) * (float)p[i];
            for (int j = 1; j <= r; j++)
                acc += (float)w[r + j] * (1.0f / 65536) *
                       ((float)p[clampi(i - j, 0, n - 1)] + (float)p[clampi(i + j, 0, n - 1)]);
            out[i] = acc;
        } else {
            uint64_t acc = (uint64_t)w[r] * (uint64_t)p[i] + 32768;
            for (int j = 1; j <= r; j++)
                acc += (uint64_t)w[r + j] *
                       (uint64_t)(p[clampi(i - j, 0, n - 1)] + p[clampi(i + j, 0, n - 1)]);
            out[i] = (double)(acc >> 16);
        }
    }
}

/* The wide blur of s as doubles (w * h * c, interleaved); the caller frees it. */
static double *wide_blur(ref_wide s, float sigma) {
    uint16_t w[2 * 48 + 1];
    int r = ref_gaussian_taps(sigma, w), n = s.w > s.h ? s.w : s.h, f = s.elem == 4;
    size_t px = (size_t)s.w * s.h * s.c;
    double *rows = malloc(px * sizeof *rows), *out = malloc(px * sizeof *out);
    double *line = malloc((size_t)n * sizeof *line), *res = malloc((size_t)n * sizeof *res);
    for (int c = 0; c < s.c; c++) {
        for (int y = 0; y < s.h; y++) {
            for (int x = 0; x < s.w; x++) line[x] = ref_wide_get(s, x, y, c);
            wide_pass(line, s.w, w, r, f, res);
            for (int x = 0; x < s.w; x++) rows[((size_t)y * s.w + x) * s.c + c] = res[x];
        }
        for (int x = 0; x < s.w; x++) {
            for (int y = 0; y < s.h; y++) line[y] = rows[((size_t)y * s.w + x) * s.c + c];
            wide_pass(line, s.h, w, r, f, res);
            for (int y = 0; y < s.h; y++) out[((size_t)y * s.w + x) * s.c + c] = res[y];
        }
    }
    free(rows), free(line), free(res);
    return out;
}

void ref_gaussian_blur_wide(ref_wide s, ref_wide d, float sigma) {
    double *b = wide_blur(s, sigma);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++) {
                double v = b[((size_t)y * s.w + x) * s.c + c];
                if (s.elem == 4)
                    *(float *)wide_at(d, x, y, c) = (float)v;
                else
                    wide_set_u16(d, x, y, c, (int64_t)v);
            }
    free(b);
}

void ref_unsharp_mask_wide(ref_wide s, ref_wide d, float sigma, float amount) {
    double *b = wide_blur(s, sigma);
    int64_t a = to_q12(amount);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++) {
                double v = b[((size_t)y * s.w + x) * s.c + c], in = ref_wide_get(s, x, y, c);
                if (s.elem == 4) {
                    *(float *)wide_at(d, x, y, c) = (float)v + amount * ((float)in - (float)v);
                } else {
                    int64_t t = (int64_t)v * (4096 - a) + (int64_t)in * a + 2048;
                    wide_set_u16(d, x, y, c, t >= 0 ? t / 4096 : -((-t + 4095) / 4096));
                }
            }
    free(b);
}

/* Element (x, y, ch) of any element size (1: u8, 2: u16, 4: float) as a double, and back
 * (saturated to the integer types' range). */
static double any_get(ref_wide img, int x, int y, int ch) {
    const uint8_t *p = (const uint8_t *)img.data + (size_t)y * img.stride +
                       ((size_t)x * img.c + ch) * (size_t)img.elem;
    return img.elem == 1 ? *p : img.elem == 2 ? *(const uint16_t *)p : *(const float *)p;
}
static void any_set(ref_wide img, int x, int y, int ch, double v) {
    uint8_t *p =
        (uint8_t *)img.data + (size_t)y * img.stride + ((size_t)x * img.c + ch) * (size_t)img.elem;
    double top = img.elem == 1 ? 255 : 65535;
    if (img.elem != 4) v = v < 0 ? 0 : v > top ? top : v;
    if (img.elem == 1) *p = (uint8_t)v;
    if (img.elem == 2) *(uint16_t *)p = (uint16_t)v;
    if (img.elem == 4) *(float *)p = (float)v;
}

void ref_orient(ref_wide s, ref_wide d, int mode) {
    for (int y = 0; y < d.h; y++)
        for (int x = 0; x < d.w; x++) {
            int xx = mode & 1 ? d.w - 1 - x : x, yy = mode & 2 ? d.h - 1 - y : y;
            int sx = mode & 4 ? yy : xx, sy = mode & 4 ? xx : yy;
            memcpy((uint8_t *)d.data + (size_t)y * d.stride + (size_t)x * d.c * d.elem,
                   (const uint8_t *)s.data + (size_t)sy * s.stride + (size_t)sx * s.c * s.elem,
                   (size_t)s.c * s.elem);
        }
}

/* round(v) ties to even, within +-2^29 (lumen.h's lumen_warp_affine) */
static long warp_round(double v) {
    return lrint(v < -536870912.0 ? -536870912.0 : v > 536870912.0 ? 536870912.0 : v);
}

static long floor_shift(long v, int bits) {
    return v >= 0 ? v >> bits : -((-v + (1L << bits) - 1) >> bits);
}

void ref_warp_affine(ref_wide s, ref_wide d, const double m[6], int inverse, int replicate,
                     const double value[4]) {
    double i[6];
    memcpy(i, m, sizeof i);
    if (!inverse) { /* lumen.h: inverted as OpenCV does */
        double D = 1.0 / (m[0] * m[4] - m[1] * m[3]);
        i[0] = m[4] * D, i[1] = -m[1] * D, i[3] = -m[3] * D, i[4] = m[0] * D;
        i[2] = -i[0] * m[2] - i[1] * m[5];
        i[5] = -i[3] * m[2] - i[4] * m[5];
    }
    for (int y = 0; y < d.h; y++)
        for (int x = 0; x < d.w; x++) {
            long X = warp_round(i[0] * x * 1024) + warp_round((i[1] * y + i[2]) * 1024) + 16;
            long Y = warp_round(i[3] * x * 1024) + warp_round((i[4] * y + i[5]) * 1024) + 16;
            X = floor_shift(X, 5), Y = floor_shift(Y, 5);
            long x0 = floor_shift(X, 5), y0 = floor_shift(Y, 5), fx = X - 32 * x0, fy = Y - 32 * y0;
            for (int ch = 0; ch < s.c; ch++) {
                double sum = 0;
                int outside = 0;
                for (int k = 0; k < 4; k++) {
                    long xx = x0 + (k & 1), yy = y0 + (k >> 1);
                    double wt = (double)((k & 1 ? fx : 32 - fx) * (k >> 1 ? fy : 32 - fy));
                    int in = xx >= 0 && xx < s.w && yy >= 0 && yy < s.h;
                    long cx = xx < 0 ? 0 : xx >= s.w ? s.w - 1 : xx;
                    long cy = yy < 0 ? 0 : yy >= s.h ? s.h - 1 : yy;
                    sum += wt * (in || replicate ? any_get(s, (int)cx, (int)cy, ch) : value[ch]);
                    outside += !in;
                }
                double r = s.elem == 4 ? sum / 1024 : floor((sum + 512) / 1024);
                any_set(d, x, y, ch, outside == 4 && !replicate ? value[ch] : r);
            }
        }
}

/* lumen_resize_interp NEAREST's source index (lumen.h), in 64 bits. */
static int nearest_of(int64_t i, int64_t n, int64_t m) {
    int64_t step = ((n << 16) + m / 2) / m, v = (step * i + step / 2 - n % 2) >> 16;
    return (int)(v < 0 ? 0 : v > n - 1 ? n - 1 : v);
}

void ref_resize_nearest(ref_wide s, ref_wide d) {
    for (int y = 0; y < d.h; y++)
        for (int x = 0; x < d.w; x++)
            for (int ch = 0; ch < s.c; ch++)
                any_set(d, x, y, ch,
                        any_get(s, nearest_of(x, s.w, d.w), nearest_of(y, s.h, d.h), ch));
}

/* Overlap of output i's span [i n, (i + 1) n) with source columns below j (units: 1 / m). */
static int64_t area_cum(int64_t i, int64_t j, int64_t n, int64_t m) {
    int64_t v = (j * m < (i + 1) * n ? j * m : (i + 1) * n) - i * n;
    return v < 0 ? 0 : v > n ? n : v;
}

/* Q weight of source j for output i: cumulative rounding (lumen.h's W_k - W_{k-1}). */
static int64_t area_w(int64_t i, int64_t j, int64_t n, int64_t m, int q) {
    return (area_cum(i, j + 1, n, m) * (1 << q) + n / 2) / n -
           (area_cum(i, j, n, m) * (1 << q) + n / 2) / n;
}

void ref_resize_area(ref_wide s, ref_wide d) {
    int kx = s.w / d.w, ky = s.h / d.h;
    int exact = s.w % d.w == 0 && s.h % d.h == 0 && (int64_t)kx * ky <= 65536;
    for (int y = 0; y < d.h; y++)
        for (int x = 0; x < d.w; x++)
            for (int ch = 0; ch < s.c; ch++) {
                int64_t r;
                if (exact) {
                    int64_t sum = 0;
                    for (int j = 0; j < ky; j++)
                        for (int i = 0; i < kx; i++)
                            sum += (int64_t)any_get(s, x * kx + i, y * ky + j, ch);
                    r = kx == 2 && ky == 2 ? (sum + 2) >> 2
                                           : lrintf((float)sum * (1.0f / (float)(kx * ky)));
                } else { /* every source pixel; those outside the span weigh 0 */
                    int64_t tot = 0;
                    for (int i = 0; i < s.w; i++) {
                        int64_t wx = area_w(x, i, s.w, d.w, 15), v = 0;
                        if (!wx) continue;
                        for (int j = 0; j < s.h; j++) {
                            int64_t wy = area_w(y, j, s.h, d.h, 14);
                            if (wy) v += wy * (int64_t)any_get(s, i, j, ch);
                        }
                        tot += wx * ((v + 32) >> 6);
                    }
                    r = (tot + (1 << 22)) >> 23;
                }
                any_set(d, x, y, ch, (double)r);
            }
}

double ref_lanczos3_window(int i, int in, int out, double *w, int *lo, int *n) {
    double s = (double)in / out, f = s > 1.0 ? s : 1.0, center = (i + 0.5) * s, sum = 0;
    int a = (int)floor(center - 3 * f + 0.5), b = (int)floor(center + 3 * f + 0.5);
    a = a < 0 ? 0 : a, b = b > in ? in : b;
    for (int t = a; t < b; t++) {
        double x = (t + 0.5 - center) / f, px = 3.14159265358979323846 * x;
        w[t - a] = x == 0 ? 1.0 : fabs(x) < 3 ? 3 * sin(px) * sin(px / 3) / (px * px) : 0;
        sum += w[t - a];
    }
    *lo = a, *n = b - a;
    return sum;
}

/* row[j] = the weight of source j in output i of in -> out (lumen.h's CUBIC and LANCZOS3), every
 * tap that reads j added (a clamped cubic tap adds to the edge's weight); row: in entries, zero.
 * tmp: room for in doubles. */
static void kernel_row(int i, int in, int out, int lanczos, int q, int64_t *row, double *tmp) {
    if (!lanczos) {
        double scale = 1.0 / ((double)out / in);
        float fx = (float)((i + 0.5) * scale - 0.5);
        int sx = (int)floorf(fx);
        float x = fx - (float)sx, A = -0.75f, c[4];
        c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
        c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
        c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
        c[3] = 1.f - c[0] - c[1] - c[2];
        for (int k = 0; k < 4; k++) {
            int t = sx - 1 + k;
            row[t < 0 ? 0 : t > in - 1 ? in - 1 : t] += (int64_t)lrintf(c[k] * (float)(1 << q));
        }
        return;
    }
    int lo, n;
    double sum = ref_lanczos3_window(i, in, out, tmp, &lo, &n), cum = 0;
    int64_t prev = 0; /* cumulative rounding: W_k = round(2^q (w_0 + ... + w_k) / sum) */
    for (int k = 0; k < n; k++) {
        cum += tmp[k];
        int64_t at = k == n - 1 ? 1 << q : (int64_t)floor(cum / sum * (1 << q) + 0.5);
        row[lo + k] = at - prev;
        prev = at;
    }
}

void ref_resize_kernel(ref_wide s, ref_wide d, int lanczos) {
    int wide = s.elem == 2, q = wide ? 20 : lanczos ? 14 : 11, rs = wide ? 12 : lanczos ? 7 : 0;
    int fs = 2 * q - rs;
    int64_t *wx = calloc((size_t)d.w * s.w, sizeof *wx);
    int64_t *wy = calloc((size_t)d.h * s.h, sizeof *wy);
    double *tmp = malloc(sizeof *tmp * (s.w > s.h ? s.w : s.h));
    for (int x = 0; x < d.w; x++) kernel_row(x, s.w, d.w, lanczos, q, wx + (size_t)x * s.w, tmp);
    for (int y = 0; y < d.h; y++) kernel_row(y, s.h, d.h, lanczos, q, wy + (size_t)y * s.h, tmp);
    for (int y = 0; y < d.h; y++)
        for (int x = 0; x < d.w; x++)
            for (int ch = 0; ch < s.c; ch++) {
                int64_t tot = 0;
                for (int i = 0; i < s.w; i++) {
                    int64_t a = wx[x * s.w + i], v = 0;
                    if (!a) continue;
                    for (int j = 0; j < s.h; j++) {
                        int64_t b = wy[y * s.h + j];
                        if (b) v += b * (int64_t)any_get(s, i, j, ch);
                    }
                    tot += a * ((v + (((int64_t)1 << rs) >> 1)) >> rs);
                }
                int64_t r = (tot + ((int64_t)1 << (fs - 1))) >> fs, top = s.elem == 2 ? 65535 : 255;
                any_set(d, x, y, ch, (double)(r < 0 ? 0 : r > top ? top : r));
            }
    free(wx), free(wy), free(tmp);
}

void ref_histogram(ref_wide s, uint32_t *counts) {
    memset(counts, 0, (size_t)s.c * 256 * sizeof *counts);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++) counts[ch * 256 + (int)any_get(s, x, y, ch)]++;
}

void ref_lut(ref_wide s, ref_wide d, const uint8_t *table, int per_channel) {
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++)
                any_set(d, x, y, ch,
                        table[(per_channel ? ch * 256 : 0) + (int)any_get(s, x, y, ch)]);
}

void ref_equalize_hist(ref_wide s, ref_wide d) {
    uint32_t h[256];
    ref_histogram(s, h);
    uint8_t lut[256] = {0};
    int i = 0;
    while (!h[i]) i++;
    uint32_t n = (uint32_t)s.w * (uint32_t)s.h;
    float scale = 255.0f / (float)(n - h[i]);
    uint32_t sum = 0;
    for (int v = 0; v < 256; v++) {
        if (h[i] == n) {
            lut[v] = (uint8_t)i;
        } else if (v > i) {
            sum += h[v];
            long r = lrintf((float)sum * scale);
            lut[v] = (uint8_t)(r > 255 ? 255 : r);
        }
    }
    ref_lut(s, d, lut, 0);
}

void ref_threshold(ref_wide s, ref_wide d, float thresh, float maxval, int type) {
    double t = thresh, m = maxval;
    if (s.elem != 4) t = floor(t), m = floor(m + 0.5); /* any_set saturates m and the result */
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++) {
                double v = any_get(s, x, y, ch), r;
                int gt = v > t;
                r = type == 0   ? (gt ? m : 0)
                    : type == 1 ? (gt ? 0 : m)
                    : type == 2 ? (gt ? t : v)
                    : type == 3 ? (gt ? v : 0)
                                : (gt ? 0 : v);
                any_set(d, x, y, ch, r);
            }
}

/* One erosion (is_max 0) or dilation of w x h x c doubles. */
static void morph_pass(const double *in, double *out, int w, int h, int c, int kw, int kh,
                       int is_max) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) {
                double best = in[((size_t)y * w + x) * c + ch];
                for (int k = 0; k < kh; k++)
                    for (int j = 0; j < kw; j++) {
                        int sx = x - kw / 2 + j, sy = y - kh / 2 + k;
                        sx = sx < 0 ? 0 : sx >= w ? w - 1 : sx;
                        sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
                        double v = in[((size_t)sy * w + sx) * c + ch];
                        best = is_max ? (v > best ? v : best) : (v < best ? v : best);
                    }
                out[((size_t)y * w + x) * c + ch] = best;
            }
}

void ref_morphology(ref_wide s, ref_wide d, int op, int kw, int kh) {
    size_t n = (size_t)s.w * s.h * s.c;
    double *in = malloc(n * sizeof *in), *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++)
                in[((size_t)y * s.w + x) * s.c + ch] = any_get(s, x, y, ch);
    int first_max = op == 1 || op == 3 || op == 4 || op == 6;
    morph_pass(in, a, s.w, s.h, s.c, kw, kh, first_max);
    if (op == 4) morph_pass(in, b, s.w, s.h, s.c, kw, kh, 0);
    if (op == 2 || op == 3 || op == 5 || op == 6)
        morph_pass(a, b, s.w, s.h, s.c, kw, kh, !first_max);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++) {
                size_t k = ((size_t)y * s.w + x) * s.c + ch;
                double r = op <= 1   ? a[k]
                           : op == 4 ? a[k] - b[k]
                           : op == 5 ? in[k] - b[k]
                           : op == 6 ? b[k] - in[k]
                                     : b[k];
                any_set(d, x, y, ch, r); /* integers: saturated at 0 */
            }
    free(in), free(a), free(b);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ref_median(ref_wide s, ref_wide d, int k) {
    double v[25];
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++) {
                int n = 0;
                for (int dy = -k / 2; dy <= k / 2; dy++)
                    for (int dx = -k / 2; dx <= k / 2; dx++) {
                        int sx = x + dx < 0 ? 0 : x + dx >= s.w ? s.w - 1 : x + dx;
                        int sy = y + dy < 0 ? 0 : y + dy >= s.h ? s.h - 1 : y + dy;
                        v[n++] = any_get(s, sx, sy, ch);
                    }
                qsort(v, (size_t)n, sizeof *v, cmp_double);
                any_set(d, x, y, ch, v[n / 2]);
            }
}

void ref_box_filter(ref_wide s, ref_wide d, int kw, int kh) {
    unsigned long long n = (unsigned long long)kw * (unsigned)kh;
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++) {
                unsigned long long sum = 0;
                for (int dy = -(kh / 2); dy < kh - kh / 2; dy++)
                    for (int dx = -(kw / 2); dx < kw - kw / 2; dx++) {
                        int sx = x + dx < 0 ? 0 : x + dx >= s.w ? s.w - 1 : x + dx;
                        int sy = y + dy < 0 ? 0 : y + dy >= s.h ? s.h - 1 : y + dy;
                        sum += (unsigned long long)any_get(s, sx, sy, ch);
                    }
                any_set(d, x, y, ch, (double)((sum + n / 2) / n));
            }
}

void ref_filter2d(ref_wide s, ref_wide d, const long *kernel, int kw, int kh, int shift) {
    double top = s.elem == 2 ? 65535 : 255;
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int ch = 0; ch < s.c; ch++) {
                long long sum = shift ? 1LL << (shift - 1) : 0;
                for (int j = 0; j < kh; j++)
                    for (int i = 0; i < kw; i++) {
                        int sx = x + i - kw / 2, sy = y + j - kh / 2;
                        sx = sx < 0 ? 0 : sx >= s.w ? s.w - 1 : sx;
                        sy = sy < 0 ? 0 : sy >= s.h ? s.h - 1 : sy;
                        sum += kernel[j * kw + i] * (long long)any_get(s, sx, sy, ch);
                    }
                long long m = 1LL << shift; /* floor division, whatever the sign */
                double q = (double)(sum >= 0 ? sum / m : -((-sum + m - 1) / m));
                any_set(d, x, y, ch, q < 0 ? 0 : q > top ? top : q);
            }
}

/* OpenCV's borderInterpolate, as its loop: the coordinate read for p of a row of n; -1 for
 * LUMEN_BORDER_CONSTANT's outside. */
int ref_border_index(int p, int n, int border) {
    if (p >= 0 && p < n) return p;
    switch (border) {
        case 1: /* replicate */
            return p < 0 ? 0 : n - 1;
        case 2: /* reflect */
        case 4: /* reflect-101 */
            if (n == 1) return 0;
            do p = p < 0 ? -p - 1 + (border == 4) : n - 1 - (p - n) - (border == 4);
            while (p < 0 || p >= n);
            return p;
        case 3: /* wrap */
            if (p < 0) p -= ((p - n + 1) / n) * n;
            return p % n;
        default:
            return -1;
    }
}

ref_wide ref_pad(ref_wide s, int m, int border, const float *value) {
    ref_wide d = {NULL, s.w + 2 * m, s.h + 2 * m, s.c, s.elem, 0};
    d.stride = (size_t)d.w * d.c * d.elem;
    d.data = malloc(d.stride * d.h);
    for (int y = 0; y < d.h; y++)
        for (int x = 0; x < d.w; x++) {
            int sx = ref_border_index(x - m, s.w, border),
                sy = ref_border_index(y - m, s.h, border);
            for (int c = 0; c < s.c; c++) {
                double v = value[c];
                if (s.elem != 4) v = nearbyint(v);
                any_set(d, x, y, c, sx < 0 || sy < 0 ? v : any_get(s, sx, sy, c));
            }
        }
    return d;
}

/* ---- Bilateral grid (lumen.h's lumen_bilateral, in float as written there) ---- */

static float bil_taps(const float *g, ptrdiff_t step) {
    return g[-2 * step] + g[-step] * 4.0f + g[0] * 6.0f + g[step] * 4.0f + g[2 * step];
}
static float bil_lerp(float a, float b, float w) { return a * (1.0f - w) + b * w; }
/* An element's key: v * kscale (NaN: 0) clamped to 0..kmax. */
static float bil_key(float v, float kscale, float kmax) {
    float key = v * kscale;
    return key != key ? 0.0f : fminf(fmaxf(key, 0.0f), kmax);
}
/* Index of cell X, Y (from -4), bin z (from -4), value k of the grid (bx cells a row, bz bins). */
#define BIL_AT(X, Y, z, k) \
  ((((size_t)((Y) + 4) * bx + (size_t)((X) + 4)) * bz + (size_t)((z) + 4)) * 2 + (size_t)(k))
/* One blur pass of the grid g (cells of bz bins of 2 values, rows of bx cells, both from -4) into
 * out, along `step`, over rows Y0..Y1 - 1, cells X0..X1 - 1 and bins -2..bz - 7. */
static void bil_pass(float *out, const float *g, ptrdiff_t step, int Y0, int Y1, int X0, int X1,
                     int bx, int bz) {
    for (int Y = Y0; Y < Y1; Y++)
        for (int X = X0; X < X1; X++)
            for (int z = -2; z < bz - 6; z++)
                for (int k = 0; k < 2; k++) {
                    size_t i = BIL_AT(X, Y, z, k);
                    out[i] = bil_taps(g + i, step);
                }
}

void ref_bilateral(ref_wide s, int ox, int oy, ref_wide d, float sigma_space, float sigma_color) {
    const float cell = sigma_space, kmax = (float)(255.0 / sigma_color);
    const int fl = s.elem == 4;
    const float kscale = fl ? kmax : (float)(1.0 / ((s.elem == 2 ? 257.0 : 1.0) * sigma_color));
#define BIL_IN(px, py, ch) \
  any_get(s, clampi((px) + ox, 0, s.w - 1), clampi((py) + oy, 0, s.h - 1), ch)
#define BIL_LO(v) ((int)ceilf(((float)(v)-0.5f) * cell))
    /* the grid: cells -2 .. last + 3 (x and y), bins -2 .. round(kmax) + 3, 2 more of zeros
     * around; per channel a sum (k 0) and a count (k 1) */
    int gx = (int)floorf((float)(d.w - 1) / cell) + 6,
        gy = (int)floorf((float)(d.h - 1) / cell) + 6;
    int gz = (int)(kmax + 0.5f) + 6, bx = gx + 4, by = gy + 4, bz = gz + 4;
    size_t n = (size_t)bx * by * bz * 2;
    float *h = malloc(n * sizeof *h), *t = malloc(n * sizeof *t), *u = malloc(n * sizeof *u);
    for (int ch = 0; ch < s.c; ch++) {
        memset(h, 0, n * sizeof *h), memset(t, 0, n * sizeof *t), memset(u, 0, n * sizeof *u);
        for (int Y = -2; Y < gy - 2; Y++)
            for (int X = -2; X < gx - 2; X++)
                for (int py = BIL_LO(Y); py < BIL_LO(Y + 1); py++)
                    for (int px = BIL_LO(X); px < BIL_LO(X + 1); px++) {
                        float v = (float)BIL_IN(px, py, ch);
                        int z = (int)(bil_key(v, kscale, kmax) + 0.5f);
                        h[BIL_AT(X, Y, z, 0)] += v;
                        h[BIL_AT(X, Y, z, 1)] += 1.0f;
                    }
        /* blur along z, x, y ([1 4 6 4 1]) */
        ptrdiff_t sz = 2, sx = (ptrdiff_t)bz * 2, sy = (ptrdiff_t)bx * bz * 2;
        bil_pass(t, h, sz, -4, by - 4, -4, bx - 4, bx, bz);
        bil_pass(u, t, sx, -4, by - 4, -2, bx - 6, bx, bz);
        memset(h, 0, n * sizeof *h);
        bil_pass(h, u, sy, -2, by - 6, -2, bx - 6, bx, bz);
        /* sample at each pixel: along y, then x, then z */
        for (int y = 0; y < d.h; y++)
            for (int x = 0; x < d.w; x++) {
                float key = bil_key((float)BIL_IN(x, y, ch), kscale, kmax);
                float fx = (float)x / cell, fy = (float)y / cell;
                int xi = (int)floorf(fx), yi = (int)floorf(fy), zi = (int)key;
                float xf = fx - (float)xi, yf = fy - (float)yi, zf = key - (float)zi, v[2];
                for (int k = 0; k < 2; k++) {
                    float p[2];
                    for (int j = 0; j < 2; j++) {
                        const float *g = h + BIL_AT(xi, yi, zi + j, k);
                        p[j] = bil_lerp(bil_lerp(g[0], g[sy], yf), bil_lerp(g[sx], g[sx + sy], yf),
                                        xf);
                    }
                    v[k] = bil_lerp(p[0], p[1], zf);
                }
                float r = v[0] / v[1];
                any_set(d, x, y, ch, fl ? r : nearbyintf(r));
            }
    }
#undef BIL_IN
#undef BIL_LO
#undef BIL_AT
    free(h), free(t), free(u);
}
