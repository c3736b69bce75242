/* A tiny test harness: checks, random images in caller memory with guarded padding, a summary
 * line ctest's output can be read by ("N passed, N failed"). */
#ifndef LUMEN_TESTS_HARNESS_H
#define LUMEN_TESTS_HARNESS_H

#include <lumen/lumen.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"

static int t_passed, t_failed;

#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (cond) {                                              \
      t_passed++;                                            \
    } else {                                                 \
      t_failed++;                                            \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      printf(__VA_ARGS__);                                   \
      printf("\n");                                          \
    }                                                        \
  } while (0)

#define CHECK_OK(expr)                                                                            \
  do {                                                                                            \
    lumen_status st_ = (expr);                                                                    \
    CHECK(st_ == LUMEN_OK, "%s -> %s (%s)", #expr, lumen_status_string(st_), lumen_last_error()); \
  } while (0)

static int t_summary(void) {
    printf("%d passed, %d failed\n", t_passed, t_failed);
    return t_failed ? 1 : 0;
}

/* xorshift64*; the seed comes from LUMEN_TEST_SEED or the clock and is printed. */
static uint64_t t_rng_state;
static uint64_t t_seed(void) {
    const char *s = getenv("LUMEN_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
    t_rng_state = seed ? seed : 1;
    printf("seed %llu (rerun with LUMEN_TEST_SEED=%llu)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    return seed;
}
static uint32_t t_rand(void) {
    t_rng_state ^= t_rng_state >> 12;
    t_rng_state ^= t_rng_state << 25;
    t_rng_state ^= t_rng_state >> 27;
    return (uint32_t)((t_rng_state * 2685821657736338717ull) >> 32);
}

/* Caller memory with `pad` bytes after each row filled with a canary, wrapped by Lumen. */
typedef struct {
    uint8_t *mem;
    ref_image ref;
    lumen_image *img;
    int pad;
} t_image;

enum { T_CANARY = 0xA5 };

static t_image t_image_new(int w, int h, int c, int pad, int random) {
    t_image t = {0};
    t.pad = pad;
    t.ref.w = w, t.ref.h = h, t.ref.c = c;
    t.ref.stride = (size_t)w * c + pad;
    t.mem = malloc(t.ref.stride * h);
    t.ref.data = t.mem;
    for (size_t i = 0; i < t.ref.stride * h; i++) t.mem[i] = random ? (uint8_t)t_rand() : T_CANARY;
    if (lumen_image_wrap(t.mem, w, h, c, t.ref.stride, &t.img) != LUMEN_OK) {
        printf("FAIL: lumen_image_wrap %dx%dx%d: %s\n", w, h, c, lumen_last_error());
        exit(1);
    }
    return t;
}

/* A host copy of the caller memory behind an image (mapped back from a device first). */
static void t_sync(t_image *t) {
    uint8_t *p;
    if (lumen_image_map(t->img, LUMEN_ACCESS_READ, &p) != LUMEN_OK || p != t->mem) {
        printf("FAIL: lumen_image_map: %s\n", lumen_last_error());
        exit(1);
    }
}

static void t_image_free(t_image *t) {
    lumen_image_destroy(t->img);
    free(t->mem);
    t->img = NULL;
    t->mem = NULL;
}

/* The six pipelines by number, and one call of each (a: gain or sigma, b: bias or amount). */
typedef enum { T_LEVELS, T_GRAYSCALE, T_BLUR, T_RESIZE, T_SOBEL, T_UNSHARP } t_pipe;
static inline lumen_status t_run_pipe(t_pipe p, lumen_context *ctx, lumen_image *s, lumen_image *d,
                                      float a, float b) {
    switch (p) {
        case T_LEVELS:
            return lumen_levels(ctx, s, d, a, b);
        case T_GRAYSCALE:
            return lumen_grayscale(ctx, s, d);
        case T_BLUR:
            return lumen_gaussian_blur(ctx, s, d, a);
        case T_RESIZE:
            return lumen_resize(ctx, s, d);
        case T_SOBEL:
            return lumen_sobel(ctx, s, d);
        default:
            return lumen_unsharp_mask(ctx, s, d, a, b);
    }
}

/* 1 if two images have the same size, channels and pixels (each mapped to the host first). */
static inline int t_same_pixels(lumen_image *a, lumen_image *b) {
    uint8_t *pa, *pb;
    if (!a || !b || lumen_image_map(a, LUMEN_ACCESS_READ, &pa) ||
        lumen_image_map(b, LUMEN_ACCESS_READ, &pb))
        return 0;
    int w = lumen_image_width(a), h = lumen_image_height(a), c = lumen_image_channels(a);
    if (w != lumen_image_width(b) || h != lumen_image_height(b) || c != lumen_image_channels(b))
        return 0;
    for (int y = 0; y < h; y++)
        if (memcmp(pa + y * lumen_image_stride(a), pb + y * lumen_image_stride(b), (size_t)w * c))
            return 0;
    return 1;
}

/* Largest difference between got and want pixels; counts differing pixels; checks padding. */
static int t_compare(const t_image *got, ref_image want, long *n_diff, int *pad_ok) {
    int max = 0;
    *n_diff = 0;
    *pad_ok = 1;
    for (int y = 0; y < want.h; y++) {
        const uint8_t *g = got->ref.data + (size_t)y * got->ref.stride;
        const uint8_t *r = want.data + (size_t)y * want.stride;
        for (int i = 0; i < want.w * want.c; i++) {
            int d = abs((int)g[i] - (int)r[i]);
            if (d) (*n_diff)++;
            if (d > max) max = d;
        }
        for (int i = want.w * want.c; i < want.w * want.c + got->pad; i++)
            if (g[i] != T_CANARY) *pad_ok = 0;
    }
    return max;
}

#endif
