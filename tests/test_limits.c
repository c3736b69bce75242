/* The documented size limit (lumen.h: height * stride <= LUMEN_MAX_BYTES) is exactly what the
 * pipelines can run: images one byte past it are refused at creation, and every pipeline runs on
 * images at it (2 GiB each), on the CPU and on OpenCL (argv[1]). Results are checked where a
 * 32-bit offset would overflow first, at the end of the buffers: levels and grayscale by their
 * formulas on the last rows, blur/sobel/unsharp against the same call on a view of the last rows,
 * resize against the plain-C reference. Needs ~7 GiB of memory (label "bigmem"). */
#include "harness.h"

#include <stdint.h>

enum { K = 8 }; /* rows checked at the end */

static void fill(uint8_t *p, size_t n) {
    uint64_t x = t_rand() | 1;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(p + i, &x, 8);
    }
}

static lumen_image *wrap(uint8_t *p, int w, int h, int c, size_t stride) {
    lumen_image *img = NULL;
    lumen_status st = lumen_image_wrap(p, w, h, c, stride, &img);
    CHECK(st == LUMEN_OK, "wrap %dx%dx%d stride %zu: %s", w, h, c, stride, lumen_last_error());
    return img;
}

static const uint8_t *host(lumen_image *img) {
    uint8_t *p = NULL;
    CHECK_OK(lumen_image_map(img, LUMEN_ACCESS_READ, &p));
    return p;
}

/* The last K rows of big (w x h, stride) equal rows [skip, skip + K) of small (stride s2). */
static void same_rows(const char *what, const uint8_t *big, size_t stride, int h, size_t row,
                      const uint8_t *small, size_t s2, int skip) {
    int bad = 0;
    for (int y = 0; y < K; y++)
        bad += memcmp(big + (size_t)(h - K + y) * stride, small + (size_t)(skip + y) * s2, row) != 0;
    CHECK(bad == 0, "%s: %d of the last %d rows differ", what, bad, K);
}

/* One neighbourhood pipeline on the big image vs on a view of its last K + r rows. */
typedef lumen_status (*op_fn)(lumen_context *, lumen_image *, lumen_image *);
static lumen_status blur(lumen_context *x, lumen_image *s, lumen_image *d) {
    return lumen_gaussian_blur(x, s, d, 2.0f);
}
static lumen_status unsharp(lumen_context *x, lumen_image *s, lumen_image *d) {
    return lumen_unsharp_mask(x, s, d, 2.0f, 1.5f);
}

static void by_view(lumen_context *ctx, const char *what, op_fn op, int r, uint8_t *src,
                    uint8_t *dst, int w, int h, int c, size_t stride) {
    lumen_image *s = wrap(src, w, h, c, stride), *d = wrap(dst, w, h, c, stride);
    lumen_status st = op(ctx, s, d);
    CHECK(st == LUMEN_OK, "%s at the limit: %s", what, lumen_last_error());
    lumen_image *vs = wrap(src + (size_t)(h - K - r) * stride, w, K + r, c, stride), *vd = NULL;
    CHECK_OK(lumen_image_create(w, K + r, c, &vd));
    CHECK_OK(op(ctx, vs, vd));
    if (!st) same_rows(what, host(d), stride, h, (size_t)w * c, host(vd), lumen_image_stride(vd), r);
    lumen_image_destroy(s), lumen_image_destroy(d), lumen_image_destroy(vs), lumen_image_destroy(vd);
}

int main(int argc, char **argv) {
    lumen_backend backend = argc > 1 && !strcmp(argv[1], "opencl") ? LUMEN_BACKEND_OPENCL
                                                                   : LUMEN_BACKEND_CPU;
    t_seed();
    /* Creation: at the limit and one byte past it. */
    static uint8_t byte;
    lumen_image *img = NULL;
    const size_t max = LUMEN_MAX_BYTES;
    CHECK_OK(lumen_image_wrap(&byte, 65535, 1, 1, max, &img));
    lumen_image_destroy(img);
    CHECK(lumen_image_wrap(&byte, 65535, 1, 1, max + 1, &img) == LUMEN_ERROR_INVALID_ARGUMENT,
          "stride 2^31 accepted");
    CHECK_OK(lumen_image_wrap(&byte, 65535, 32768, 1, 65535, &img));
    lumen_image_destroy(img);
    CHECK(lumen_image_wrap(&byte, 65535, 32768, 1, 65536, &img) == LUMEN_ERROR_INVALID_ARGUMENT,
          "height * stride = 2^31 accepted");
    CHECK(strstr(lumen_last_error(), "2^31 - 1") != NULL, "message: %s", lumen_last_error());
    /* create: stride = 64-aligned row: 65472 * 32768 = 2^31 - 2^21 fits, 32800 rows do not */
    CHECK(lumen_image_create(65535, 32800, 1, &img) == LUMEN_ERROR_INVALID_ARGUMENT,
          "create past the limit accepted");

    /* Pipelines at the limit: 32768 rows of 65535 bytes (2^31 - 32768 bytes). */
    const int h = 32768;
    const size_t stride = 65535, bytes = (size_t)h * stride;
    uint8_t *src = malloc(bytes), *dst = malloc(bytes);
    if (!src || !dst) {
        printf("SKIP: no memory for two 2 GiB images\n");
        return 77;
    }
    fill(src, bytes);
    lumen_context *ctx = NULL;
    CHECK_OK(lumen_context_create(backend, &ctx));
    printf("backend %s, images of %zu bytes\n", lumen_backend_name(backend), bytes);

    lumen_image *s = wrap(src, 21845, h, 3, stride), *d = wrap(dst, 21845, h, 3, stride);
    CHECK_OK(lumen_levels(ctx, s, d, 1.5f, -10.0f));
    const uint8_t *out = host(d);
    int bad = 0; /* saturate((6144 * v - 40960 + 2048) >> 12), gain and bias in Q12 */
    for (size_t i = bytes - K * stride; out && i < bytes; i++) {
        int v = (6144 * src[i] - 40960 + 2048) >> 12;
        bad += out[i] != (v < 0 ? 0 : v > 255 ? 255 : v);
    }
    CHECK(bad == 0, "levels: %d wrong bytes in the last rows", bad);
    lumen_image *g = wrap(dst, 21845, h, 1, 21845);
    CHECK_OK(lumen_grayscale(ctx, s, g));
    out = host(g), bad = 0;
    for (int y = h - K; out && y < h; y++)
        for (int x = 0; x < 21845; x++) {
            const uint8_t *p = src + (size_t)y * stride + 3 * x;
            bad += out[(size_t)y * 21845 + x] != ((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
        }
    CHECK(bad == 0, "grayscale: %d wrong pixels in the last rows", bad);
    lumen_image_destroy(s), lumen_image_destroy(d), lumen_image_destroy(g);

    by_view(ctx, "gaussian_blur", blur, 6, src, dst, 21845, h, 3, stride); /* r = 3 sigma */
    by_view(ctx, "unsharp_mask", unsharp, 6, src, dst, 21845, h, 3, stride);
    by_view(ctx, "sobel", lumen_sobel, 1, src, dst, 65535, h, 1, stride);

    /* resize: down from an image at the limit, and up to one. */
    for (int up = 0; up < 2; up++) {
        int sw = up ? 10923 : 21845, sh = up ? 16384 : h, dw = up ? 21845 : 7000, dh = up ? h : 9000;
        size_t ss = up ? 32769 : stride, ds = up ? stride : 21000;
        ref_image rs = {src, sw, sh, 3, ss}, rd = {malloc((size_t)dh * ds), dw, dh, 3, ds};
        s = wrap(src, sw, sh, 3, ss), d = wrap(dst, dw, dh, 3, ds);
        lumen_status st = lumen_resize(ctx, s, d);
        CHECK(st == LUMEN_OK, "resize %s: %s", up ? "up" : "down", lumen_last_error());
        ref_resize(rs, rd);
        if (!st && rd.data)
            same_rows(up ? "resize up" : "resize down", host(d), ds, dh, (size_t)dw * 3,
                      rd.data, ds, dh - K);
        free(rd.data);
        lumen_image_destroy(s), lumen_image_destroy(d);
    }
    lumen_context_destroy(ctx);
    free(src), free(dst);
    return t_summary();
}
