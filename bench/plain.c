/* Plain C loops: straightforward code the compiler vectorizes, rows split over OpenMP threads. */
#include "plain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#define ROW(im, y) ((im).p + (size_t)(y) * (im).stride)

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

void pc_set_threads(int n) { omp_set_num_threads(n); }

void pc_levels(pc_img s, pc_img d, int32_t g, int32_t b) {
    int n = s.w * s.c;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < s.h; y++) {
        const uint8_t *in = ROW(s, y);
        uint8_t *out = ROW(d, y);
        for (int i = 0; i < n; i++) out[i] = (uint8_t)clampi((g * in[i] + b + 2048) >> 12, 0, 255);
    }
}

void pc_grayscale(pc_img s, pc_img d) {
#pragma omp parallel for schedule(static)
    for (int y = 0; y < s.h; y++) {
        const uint8_t *in = ROW(s, y);
        uint8_t *out = ROW(d, y);
        for (int x = 0; x < s.w; x++) {
            const uint8_t *p = in + (size_t)s.c * x; /* RGB or RGBA (alpha ignored) */
            out[x] = (uint8_t)((77u * p[0] + 150u * p[1] + 29u * p[2] + 128u) >> 8);
        }
    }
}

void pc_nv12_to_rgb(pc_img s, pc_img d) {
    /* lumen.h's coefficients for BT.601 limited range (cy Q14, the others Q13) and m() */
    const int32_t cy = 19077, crv = 13075, cgu = 3209, cgv = 6660, cbu = 16525;
#define M(a, k, s) (((a) * (k) + (1 << (14 - (s)))) >> (15 - (s)))
#pragma omp parallel for schedule(static)
    for (int y = 0; y < d.h; y++) {
        const uint8_t *yr = ROW(s, y), *uv = ROW(s, d.h + y / 2);
        uint8_t *out = ROW(d, y);
        for (int x = 0; x < d.w; x++) {
            int32_t yt = M(yr[x] - 16, cy, 7) + 32, u = uv[x & ~1] - 128, v = uv[x | 1] - 128;
            uint8_t *o = out + (size_t)d.c * x;
            o[0] = (uint8_t)clampi((yt + M(v, crv, 8)) >> 6, 0, 255);
            o[1] = (uint8_t)clampi((yt - M(u, cgu, 8) - M(v, cgv, 8)) >> 6, 0, 255);
            o[2] = (uint8_t)clampi((yt + M(u, cbu, 8)) >> 6, 0, 255);
            if (d.c == 4) o[3] = 255;
        }
    }
#undef M
}

static int32_t q16(double v) { return (int32_t)floor(v * 65536.0 + 0.5); }

void pc_rgb_to_i420(pc_img s, pc_img d) {
    const double kr = 0.299, kb = 0.114, kg = 1 - kr - kb, sy = 219.0 / 255, sc = 224.0 / 255;
    const int32_t yr = q16(sy * kr), yb = q16(sy * kb), yg = q16(sy) - yr - yb;
    const int32_t ur = q16(-sc * kr / (2 * (1 - kb))), ug = q16(-sc * kg / (2 * (1 - kb)));
    const int32_t vg = q16(-sc * kg / (2 * (1 - kr))), vb = q16(-sc * kb / (2 * (1 - kr)));
    const int32_t ub = -ur - ug, vr = -vg - vb;
    int cw = s.w / 2, ch = s.h / 2;
    uint8_t *up = d.p + (size_t)s.w * s.h, *vp = up + (size_t)cw * ch;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < ch; y++) {
        const uint8_t *r0 = ROW(s, 2 * y), *r1 = ROW(s, 2 * y + 1);
        uint8_t *y0 = d.p + (size_t)s.w * 2 * y, *y1 = y0 + s.w;
        for (int x = 0; x < s.w; x++) {
            const uint8_t *a = r0 + (size_t)s.c * x, *b = r1 + (size_t)s.c * x;
            y0[x] = (uint8_t)clampi((yr * a[0] + yg * a[1] + yb * a[2] + (16 << 16) + 32768) >> 16,
                                    0, 255);
            y1[x] = (uint8_t)clampi((yr * b[0] + yg * b[1] + yb * b[2] + (16 << 16) + 32768) >> 16,
                                    0, 255);
        }
        for (int x = 0; x < cw; x++) {
            const uint8_t *a = r0 + (size_t)s.c * 2 * x, *b = r1 + (size_t)s.c * 2 * x;
            int32_t sr = a[0] + a[s.c] + b[0] + b[s.c], sg = a[1] + a[s.c + 1] + b[1] + b[s.c + 1];
            int32_t sb = a[2] + a[s.c + 2] + b[2] + b[s.c + 2];
            up[(size_t)y * cw + x] = (uint8_t)clampi(
                (ur * sr + ug * sg + ub * sb + (1 << 25) + (1 << 17)) >> 18, 0, 255);
            vp[(size_t)y * cw + x] = (uint8_t)clampi(
                (vr * sr + vg * sg + vb * sb + (1 << 25) + (1 << 17)) >> 18, 0, 255);
        }
    }
}

/* Horizontal pass of one row: clamp-padded copy, then taps over contiguous samples. */
static void hpass(const uint8_t *in, int w, int c, const uint16_t *taps, int r, uint8_t *pad,
                  uint32_t *acc, uint16_t *h) {
    int n = w * c;
    for (int x = -r; x < w + r; x++)
        memcpy(pad + (size_t)(x + r) * c, in + (size_t)clampi(x, 0, w - 1) * c, (size_t)c);
    memset(acc, 0, sizeof *acc * (size_t)n);
    for (int k = 0; k <= 2 * r; k++) {
        const uint8_t *p = pad + (size_t)k * c;
        for (int i = 0; i < n; i++) acc[i] += (uint32_t)taps[k] * p[i];
    }
    for (int i = 0; i < n; i++) h[i] = (uint16_t)((acc[i] + 32) >> 6);
}

/* Gaussian blur; if amount >= 0, the unsharp combination with the source instead. */
static void blur(pc_img s, pc_img d, const uint16_t *taps, int r, int32_t amount) {
    int n = s.w * s.c;
    uint16_t *h = malloc(sizeof *h * (size_t)n * (size_t)s.h);
#pragma omp parallel
    {
        uint8_t *pad = malloc((size_t)(s.w + 2 * r) * s.c);
        uint32_t *acc = malloc(sizeof *acc * (size_t)n);
#pragma omp for schedule(static)
        for (int y = 0; y < s.h; y++)
            hpass(ROW(s, y), s.w, s.c, taps, r, pad, acc, h + (size_t)y * n);
#pragma omp for schedule(static)
        for (int y = 0; y < s.h; y++) {
            memset(acc, 0, sizeof *acc * (size_t)n);
            for (int k = 0; k <= 2 * r; k++) {
                const uint16_t *p = h + (size_t)clampi(y + k - r, 0, s.h - 1) * n;
                for (int i = 0; i < n; i++) acc[i] += (uint32_t)taps[k] * p[i];
            }
            const uint8_t *in = ROW(s, y);
            uint8_t *out = ROW(d, y);
            for (int i = 0; i < n; i++) {
                int bl = (int)((acc[i] + (1u << 21)) >> 22);
                out[i] = amount < 0 ? (uint8_t)bl
                                    : (uint8_t)clampi(
                                          (bl * 4096 + amount * (in[i] - bl) + 2048) >> 12, 0, 255);
            }
        }
        free(pad);
        free(acc);
    }
    free(h);
}

void pc_blur(pc_img s, pc_img d, const uint16_t *taps, int r) { blur(s, d, taps, r, -1); }
void pc_unsharp(pc_img s, pc_img d, const uint16_t *taps, int r, int32_t a) {
    blur(s, d, taps, r, a);
}

static void taps(int i, int n_in, int n_out, int *t0, int *t1, int *w1) {
    int64_t num = (2 * (int64_t)i + 1) * n_in - n_out, den = 2 * (int64_t)n_out;
    if (num < 0) num = 0;
    int64_t q = num / den;
    *t0 = (int)(q < n_in - 1 ? q : n_in - 1);
    *t1 = *t0 + 1 < n_in ? *t0 + 1 : n_in - 1;
    *w1 = (int)(((num % den) * 2048 + n_out) / den);
}

void pc_resize(pc_img s, pc_img d) {
    int c = s.c, *xt = malloc(sizeof(int) * 3 * (size_t)d.w);
    for (int x = 0; x < d.w; x++) taps(x, s.w, d.w, &xt[3 * x], &xt[3 * x + 1], &xt[3 * x + 2]);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < d.h; y++) {
        int y0, y1, wy1;
        taps(y, s.h, d.h, &y0, &y1, &wy1);
        const uint8_t *r0 = ROW(s, y0), *r1 = ROW(s, y1);
        uint8_t *out = ROW(d, y);
        for (int x = 0; x < d.w; x++) {
            int a = xt[3 * x] * c, b = xt[3 * x + 1] * c, wx1 = xt[3 * x + 2], wx0 = 2048 - wx1;
            for (int k = 0; k < c; k++) {
                int top = wx0 * r0[a + k] + wx1 * r0[b + k];
                int bot = wx0 * r1[a + k] + wx1 * r1[b + k];
                out[x * c + k] = (uint8_t)(((2048 - wy1) * top + wy1 * bot + (1 << 21)) >> 22);
            }
        }
    }
    free(xt);
}

void pc_sobel(pc_img s, pc_img d) {
#pragma omp parallel
    {
        int16_t *pad = malloc(sizeof *pad * 3 * (size_t)(s.w + 2));
#pragma omp for schedule(static)
        for (int y = 0; y < s.h; y++) {
            for (int j = 0; j < 3; j++) { /* three clamp-padded rows */
                const uint8_t *in = ROW(s, clampi(y + j - 1, 0, s.h - 1));
                int16_t *p = pad + (size_t)j * (s.w + 2);
                for (int x = 0; x < s.w + 2; x++) p[x] = in[clampi(x - 1, 0, s.w - 1)];
            }
            const int16_t *a = pad, *b = pad + s.w + 2, *e = pad + 2 * (s.w + 2);
            uint8_t *out = ROW(d, y);
            for (int x = 0; x < s.w; x++) {
                int gx = (a[x + 2] + 2 * b[x + 2] + e[x + 2]) - (a[x] + 2 * b[x] + e[x]);
                int gy = (e[x] + 2 * e[x + 1] + e[x + 2]) - (a[x] + 2 * a[x + 1] + a[x + 2]);
                float m = sqrtf((float)(gx * gx + gy * gy)) + 0.5f;
                out[x] = (uint8_t)(m > 255.0f ? 255.0f : m);
            }
        }
        free(pad);
    }
}

void bw_copy(uint8_t *dst, const uint8_t *src, size_t n) {
#pragma omp parallel
    {
        size_t t = (size_t)omp_get_thread_num(), k = (size_t)omp_get_num_threads();
        size_t a = n / k * t, b = t + 1 == k ? n : n / k * (t + 1);
        memcpy(dst + a, src + a, b - a);
    }
}

void bw_loop_copy(uint8_t *dst, const uint8_t *src, size_t n, uint64_t key) {
    const uint64_t *s = (const uint64_t *)src;
    uint64_t *d = (uint64_t *)dst;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n / 8; i++) d[i] = s[i] ^ key; /* key = 0: a copy, not a memcpy call */
}

uint64_t bw_read(const uint8_t *src, size_t n) {
    const uint64_t *p = (const uint64_t *)src;
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (size_t i = 0; i < n / 8; i++) sum += p[i];
    return sum;
}
