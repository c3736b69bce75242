/* The CUDA check's measurements (run by check.sh on a machine with an NVIDIA GPU; exit 77 without
 * one). Prints Markdown tables:
 *   1. every pipeline on CUDA vs the CPU backend, over formats, sizes, sigmas, resize ratios, YUV
 *      layouts and views (random inputs): bytes that differ;
 *   2. each pipeline at 3840x2160 on CUDA (source already on the device, result left there) and
 *      on the CPU (all threads): ms per call;
 *   3. a 4-stage device-resident chain (levels -> gaussian_blur -> unsharp_mask -> levels) on
 *      W x H RGBA (default 7680x4320) in caller memory: time, effective bandwidth (each stage reads
 *      and writes the image once) vs a measured device-to-device copy, and host transfers.
 * Usage: lumen_cuda_chain [W H [runs]]. Exit 1 if a pipeline differs or the chain moved pixels to
 * or from the host; the bandwidth goal (>= 70% of the copy) is reported, not asserted.
 * LUMEN_CHAIN_OPENCL=1 runs tables 1 and 2 on the OpenCL backend instead (a dry run without
 * NVIDIA hardware). */
#include <lumen/lumen_cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cuda/cuda_driver.h"

#define TRY(call)                                          \
  do {                                                     \
    if ((call) != LUMEN_OK) {                              \
      printf("FAIL: %s: %s\n", #call, lumen_last_error()); \
      exit(1);                                             \
    }                                                      \
  } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void fill(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(rand() >> 5);
}

static lumen_image *image(int w, int h, lumen_format f, unsigned seed) {
    lumen_image *img = NULL;
    uint8_t *px = NULL;
    TRY(lumen_image_create_format(w, h, f, &img));
    TRY(lumen_image_map(img, LUMEN_ACCESS_WRITE, &px));
    srand(seed);
    fill(px, lumen_image_stride(img) * h);
    if (lumen_format_element_size(f) == 4) /* floats in 0..1, not random bit patterns */
        for (size_t i = 0; i < lumen_image_stride(img) * h / 4; i++)
            ((float *)px)[i] = (float)(rand() % 100001) / 100000.0f;
    return img;
}

/* Bytes that differ (by more than tol levels: bilateral's GPU bound; float images: elements beyond
 * 2^-16 relative, lumen.h's bound for the float blur). */
static size_t differ(lumen_image *a, lumen_image *b, int tol) {
    uint8_t *pa = NULL, *pb = NULL;
    TRY(lumen_image_map(a, LUMEN_ACCESS_READ, &pa));
    TRY(lumen_image_map(b, LUMEN_ACCESS_READ, &pb));
    int es = lumen_format_element_size(lumen_image_format(a));
    size_t n = 0, row = (size_t)lumen_image_width(a) * lumen_image_channels(a) * es;
    for (int y = 0; y < lumen_image_height(a); y++) {
        const uint8_t *ra = pa + y * lumen_image_stride(a), *rb = pb + y * lumen_image_stride(b);
        for (size_t x = 0; x < row; x += es) {
            if (es == 4) {
                float u = *(const float *)(ra + x), v = *(const float *)(rb + x);
                n += fabsf(u - v) > (fabsf(v) > 1 ? fabsf(v) : 1) / (1 << 16) ? 4 : 0;
            } else if (tol) {
                int u = es == 2 ? *(const uint16_t *)(ra + x) : ra[x];
                int v = es == 2 ? *(const uint16_t *)(rb + x) : rb[x];
                n += (size_t)es * (abs(u - v) > tol);
            } else {
                n += (size_t)memcmp(ra + x, rb + x, es) != 0;
            }
        }
    }
    return n;
}

/* A case: pipeline k (0 levels, 1 grayscale, 2 gaussian_blur, 3 resize, 4 sobel, 5 unsharp_mask,
 * 6 yuv_to_rgb, 7 rgb_to_yuv, 8 morphology, 9 median, 10 warp_affine, 11, 12) on a w x h image of
 * format f (6: dst's format), to dw x dh (resize, warp_affine), with parameters a, b (6, 7: b is
 * the layout, a the space; 8: a the op, b the kernel's width and height; 9: a the size; 10: a the
 * angle of a rotation about the centre with scale 0.9, b the border; 11 equalize_hist, 12 lut with
 * a table per channel; 13 resize_interp nearest, 14 area, to dw x dh; 15 box_filter a x b; 16
 * filter2d, 17 sep_filter with a x a taps; 18 resize_interp cubic, 19 Lanczos-3, to dw x dh; 20
 * gaussian_blur sigma a with lumen_border b, 21 morphology open a x a with lumen_border b, 22
 * bilateral sigma_space a, sigma_color b: within 1 level, lumen.h's bound for GPUs);
 * view: src and dst are views inside larger images (2: isolated). */
typedef struct {
    int k;
    lumen_format f;
    int w, h, dw, dh;
    float a, b;
    int view;
} tcase;
static const char *const names[] = {
    "levels",       "grayscale",     "gaussian_blur", "resize",         "sobel",
    "unsharp_mask", "yuv_to_rgb",    "rgb_to_yuv",    "morphology",     "median",
    "warp_affine",  "equalize_hist", "lut",           "resize_nearest", "resize_area",
    "box_filter",   "filter2d",      "sep_filter",    "resize_cubic",   "resize_lanczos3",
    "blur+border",  "open+border",   "bilateral"};
enum { G = LUMEN_FORMAT_GRAY8, RGB = LUMEN_FORMAT_RGB8, RGBA = LUMEN_FORMAT_RGBA8 };
enum { BGR = LUMEN_FORMAT_BGR8, BGRA = LUMEN_FORMAT_BGRA8, RGB16 = LUMEN_FORMAT_RGB16 };
enum { GF32 = LUMEN_FORMAT_GRAYF32, RGBAF32 = LUMEN_FORMAT_RGBAF32 };
static const tcase cases[] = {
    {0, RGB, 1920, 1080, 0, 0, 1.3f, -10.0f, 0},
    {0, G, 1001, 777, 0, 0, 0.7f, 20.0f, 0},
    {0, BGRA, 1920, 1080, 0, 0, 2.0f, 0.0f, 0},
    {1, RGB, 1920, 1080, 0, 0, 0, 0, 0},
    {1, BGRA, 1001, 777, 0, 0, 0, 0, 0},
    {1, RGBA, 1920, 1080, 0, 0, 0, 0, 0},
    {2, G, 1920, 1080, 0, 0, 0.8f, 0, 0},
    {2, RGB, 1920, 1080, 0, 0, 2.5f, 0, 0},
    {2, RGBA, 1920, 1080, 0, 0, 6.0f, 0, 0},
    {2, BGR, 1001, 777, 0, 0, 1.5f, 0, 0},
    {3, RGBA, 1920, 1080, 1280, 720, 0, 0, 0},
    {3, RGB, 1920, 1080, 960, 540, 0, 0, 0},
    {3, G, 1920, 1080, 3840, 2160, 0, 0, 0},
    {3, RGB, 1280, 720, 1920, 1080, 0, 0, 0},
    {3, BGRA, 1920, 1080, 640, 360, 0, 0, 0},
    {3, RGB, 1001, 777, 640, 480, 0, 0, 0},
    {4, G, 1920, 1080, 0, 0, 0, 0, 0},
    {4, G, 1001, 777, 0, 0, 0, 0, 0},
    {5, RGB, 1920, 1080, 0, 0, 1.5f, 1.2f, 0},
    {5, RGBA, 1920, 1080, 0, 0, 4.0f, 0.5f, 0},
    {5, G, 1001, 777, 0, 0, 1.0f, 2.0f, 0},
    {6, RGB, 1920, 1080, 0, 0, 1, 1, 0},
    {6, BGRA, 1920, 1080, 0, 0, 4, 3, 0},
    {6, RGBA, 1002, 778, 0, 0, 3, 2, 0},
    {7, RGB, 1920, 1080, 0, 0, 1, 1, 0},
    {7, BGRA, 1002, 778, 0, 0, 4, 3, 0},
    {2, RGBA, 1001, 777, 0, 0, 16.0f, 0, 0},
    {5, BGRA, 1001, 777, 0, 0, 16.0f, 3.0f, 0},
    {0, RGB16, 1920, 1080, 0, 0, 1.3f, -10.0f, 0},
    {0, RGBAF32, 1001, 777, 0, 0, 1.3f, -10.0f, 0},
    {3, RGB16, 1920, 1080, 1280, 720, 0, 0, 0},
    {3, GF32, 1001, 777, 2000, 1500, 0, 0, 0},
    {2, RGB16, 1920, 1080, 0, 0, 2.5f, 0, 0},
    {5, RGBAF32, 1001, 777, 0, 0, 3.0f, 1.5f, 0},
    {2, RGB, 1600, 900, 0, 0, 2.0f, 0, 1},
    {4, G, 1600, 900, 0, 0, 0, 0, 2},
    {5, RGBA, 1600, 900, 0, 0, 1.5f, 1.0f, 1},
    {3, RGB, 1600, 900, 800, 450, 0, 0, 1},
    {8, RGB, 1920, 1080, 0, 0, 0, 3, 0},
    {8, BGRA, 1001, 777, 0, 0, 2, 7, 0},
    {8, RGB16, 1920, 1080, 0, 0, 4, 5, 0},
    {8, GF32, 1001, 777, 0, 0, 5, 9, 0},
    {8, RGB, 1600, 900, 0, 0, 6, 5, 1},
    {9, RGB, 1920, 1080, 0, 0, 3, 0, 0},
    {9, G, 1001, 777, 0, 0, 5, 0, 0},
    {9, RGBAF32, 1001, 777, 0, 0, 5, 0, 0},
    {9, RGBA, 1600, 900, 0, 0, 5, 0, 1},
    {10, RGB, 1920, 1080, 1920, 1080, 30, 0, 0},
    {10, BGRA, 1001, 777, 640, 480, -75, 1, 0},
    {10, RGB16, 1920, 1080, 1280, 720, 10, 0, 0},
    {10, G, 1001, 777, 1001, 777, 200, 1, 0},
    {10, RGB, 1600, 900, 1600, 900, 45, 1, 1},
    {11, G, 1920, 1080, 0, 0, 0, 0, 0},
    {11, G, 1001, 777, 0, 0, 0, 0, 1},
    {12, RGB, 1920, 1080, 0, 0, 0, 0, 0},
    {12, BGRA, 1001, 777, 0, 0, 0, 0, 1},
    {13, RGB, 1920, 1080, 1280, 720, 0, 0, 0},
    {13, RGBAF32, 1001, 777, 2000, 1500, 0, 0, 0},
    {13, RGB16, 1600, 900, 800, 450, 0, 0, 1},
    {14, RGB, 1920, 1080, 640, 360, 0, 0, 0},
    {14, G, 1920, 1080, 1280, 720, 0, 0, 0},
    {14, BGRA, 1001, 777, 123, 97, 0, 0, 0},
    {14, RGBA, 640, 480, 1000, 700, 0, 0, 0},
    {14, RGB, 1600, 900, 800, 450, 0, 0, 1},
    {15, RGB, 1920, 1080, 0, 0, 5, 5, 0},
    {15, G, 1001, 777, 0, 0, 31, 9, 0},
    {15, RGB16, 1600, 900, 0, 0, 45, 46, 1},
    {16, RGB, 1920, 1080, 0, 0, 5, 0, 0},
    {16, BGRA, 1001, 777, 0, 0, 15, 0, 1},
    {17, RGB, 1920, 1080, 0, 0, 7, 0, 0},
    {16, RGB16, 1001, 777, 0, 0, 3, 0, 0},
    {18, RGB, 1920, 1080, 2880, 1620, 0, 0, 0},
    {18, RGBA, 1001, 777, 500, 388, 0, 0, 1},
    {19, RGB, 1920, 1080, 640, 360, 0, 0, 0},
    {19, RGB16, 1001, 777, 1500, 1100, 0, 0, 0},
    {19, G, 3840, 2160, 480, 270, 0, 0, 0},
    {20, RGB, 1920, 1080, 0, 0, 2.0f, 4, 0},
    {20, RGB16, 1001, 777, 0, 0, 5.0f, 0, 0},
    {20, GF32, 1600, 900, 0, 0, 1.5f, 2, 1},
    {21, RGB, 1001, 777, 0, 0, 5, 3, 0},
    {21, BGRA, 1920, 1080, 0, 0, 7, 4, 1},
    {22, G, 1920, 1080, 0, 0, 8, 25, 0},
    {22, BGR, 1001, 777, 0, 0, 2.5f, 12, 0},
    {22, RGBA, 1600, 900, 0, 0, 5, 40, 1},
    {22, RGB16, 1001, 777, 0, 0, 16, 100, 0},
    {22, GF32, 1001, 777, 0, 0, 3, 20, 0},
};

/* A random frame (seed 0: zeros) in one allocation, returned for free(). */
static uint8_t *frame(lumen_yuv_frame *fr, int w, int h, int layout, unsigned seed) {
    size_t y = (size_t)w * h, c = y / 4;
    uint8_t *m = calloc(y + 2 * c, 1);
    if (!m) exit(1);
    int i420 = layout == LUMEN_YUV_I420;
    *fr = (lumen_yuv_frame){layout,
                            w,
                            h,
                            {m, m + y, i420 ? m + y + c : NULL},
                            {(size_t)w, (size_t)(i420 ? w / 2 : w), (size_t)w / 2}};
    srand(seed);
    if (seed) fill(m, y + 2 * c);
    return m;
}

static lumen_status call(const tcase *t, lumen_context *ctx, lumen_image *src, lumen_image *dst,
                         const lumen_yuv_frame *fr) {
    switch (t->k) {
        case 0:
            return lumen_levels(ctx, src, dst, t->a, t->b);
        case 1:
            return lumen_grayscale(ctx, src, dst);
        case 2:
            return lumen_gaussian_blur(ctx, src, dst, t->a);
        case 3:
            return lumen_resize(ctx, src, dst);
        case 4:
            return lumen_sobel(ctx, src, dst);
        case 5:
            return lumen_unsharp_mask(ctx, src, dst, t->a, t->b);
        case 6:
            return lumen_yuv_to_rgb(ctx, fr, dst, (lumen_yuv_space)t->a);
        case 8:
            return lumen_morphology(ctx, src, dst, (lumen_morph_op)t->a, (int)t->b, (int)t->b);
        case 9:
            return lumen_median(ctx, src, dst, (int)t->a);
        case 10: {
            double a = t->a * 3.14159265358979323846 / 180, al = 0.9 * cos(a), be = 0.9 * sin(a);
            double cx = t->w / 2.0, cy = t->h / 2.0;
            double m[6] = {al, be, (1 - al) * cx - be * cy, -be, al, be * cx + (1 - al) * cy};
            return lumen_warp_affine(ctx, src, dst, m, 0, (lumen_border)(int)t->b, NULL);
        }
        case 11:
            return lumen_equalize_hist(ctx, src, dst);
        case 12: {
            uint8_t table[4 * 256];
            for (int i = 0; i < 4 * 256; i++) table[i] = (uint8_t)(i * 151 + 7);
            return lumen_lut(ctx, src, dst, table, lumen_image_channels(src));
        }
        case 13:
        case 14:
        case 18:
        case 19:
            return lumen_resize_interp(ctx, src, dst,
                                       t->k == 13   ? LUMEN_INTER_NEAREST
                                       : t->k == 14 ? LUMEN_INTER_AREA
                                       : t->k == 18 ? LUMEN_INTER_CUBIC
                                                    : LUMEN_INTER_LANCZOS3);
        case 15:
            return lumen_box_filter(ctx, src, dst, (int)t->a, (int)t->b);
        case 16:
        case 17: { /* a sharpening kernel in Q8 (sep: Q8 each, so Q16) */
            int n = (int)t->a;
            int16_t k2[225], k1[15];
            for (int i = 0; i < n * n; i++)
                k2[i] = (int16_t)(i == n * n / 2 ? 512 : -256 / (n * n));
            for (int i = 0; i < n; i++) k1[i] = (int16_t)(i == n / 2 ? 384 : -128 / (n - 1));
            return t->k == 16 ? lumen_filter2d(ctx, src, dst, k2, n, n, 8)
                              : lumen_sep_filter(ctx, src, dst, k1, n, k1, n, 16);
        }
        case 20:
        case 21: { /* the context's border for this call (constant: a value per channel) */
            static const float v[4] = {40, 200, 7, 255};
            lumen_status st = lumen_context_set_border(ctx, (lumen_border)(int)t->b, v);
            if (!st)
                st = t->k == 20
                         ? lumen_gaussian_blur(ctx, src, dst, t->a)
                         : lumen_morphology(ctx, src, dst, LUMEN_MORPH_OPEN, (int)t->a, (int)t->a);
            lumen_context_set_border(ctx, LUMEN_BORDER_REPLICATE, NULL);
            return st;
        }
        case 22:
            return lumen_bilateral(ctx, src, dst, t->a, t->b);
        default:
            return lumen_rgb_to_yuv(ctx, src, fr, (lumen_yuv_space)t->a);
    }
}

/* t's destination (a view inside *root for view cases; none for rgb_to_yuv, which fills a frame).
 */
static lumen_image *dest(const tcase *t, lumen_image **root) {
    int w = t->dw ? t->dw : t->w, h = t->dh ? t->dh : t->h;
    lumen_format f = t->k == 1 || t->k == 4 ? G : t->f;
    lumen_image *dst = NULL;
    *root = NULL;
    if (t->k == 7) return NULL;
    if (!t->view) {
        TRY(lumen_image_create_format(w, h, f, &dst));
        return dst;
    }
    TRY(lumen_image_create_format(w + 10, h + 6, f, root));
    TRY(lumen_image_view(*root, 5, 3, w, h, 0, &dst));
    return dst;
}

/* Case t on the GPU and on the CPU: the number of result bytes that differ. */
static size_t compare(const tcase *t, lumen_context *gpu, lumen_context *cpu, unsigned seed) {
    lumen_image *root = NULL, *src = NULL, *r[4], *d[2];
    lumen_yuv_frame fr[2];
    uint8_t *mem[2] = {NULL, NULL};
    int layout = (int)t->b;
    if (t->k == 6) {
        mem[0] = frame(&fr[0], t->w, t->h, layout, seed);
    } else if (t->view) {
        root = image(t->w + 64, t->h + 40, t->f, seed);
        TRY(lumen_image_view(root, 32, 20, t->w, t->h, t->view == 2 ? LUMEN_VIEW_ISOLATED : 0,
                             &src));
    } else {
        src = image(t->w, t->h, t->f, seed);
    }
    if (t->k == 7)
        for (int i = 0; i < 2; i++) mem[i] = frame(&fr[i], t->w, t->h, layout, 0);
    size_t n = 0, bytes = (size_t)t->w * t->h * 3 / 2;
    for (int i = 0; i < 2; i++) {
        d[i] = dest(t, &r[i]);
        TRY(call(t, i ? cpu : gpu, src, d[i], &fr[t->k == 7 ? i : 0]));
    }
    if (t->k == 7)
        for (size_t i = 0; i < bytes; i++) n += mem[0][i] != mem[1][i];
    else
        n = differ(d[0], d[1], t->k == 22);
    for (int i = 0; i < 2; i++) lumen_image_destroy(d[i]), lumen_image_destroy(r[i]), free(mem[i]);
    lumen_image_destroy(src), lumen_image_destroy(root);
    return n;
}

static void describe(const tcase *t, char *s, size_t n) {
    static const char *const layouts[] = {"", "NV12", "NV21", "I420"};
    int o = snprintf(s, n, "%s %s %dx%d", names[t->k], lumen_format_name(t->f), t->w, t->h);
    if (t->k == 3 || t->k == 13 || t->k == 14 || t->k == 18 || t->k == 19)
        o += snprintf(s + o, n - o, " -> %dx%d", t->dw, t->dh);
    if (t->k == 2 || t->k == 5) o += snprintf(s + o, n - o, ", sigma %g", t->a);
    if (t->k == 6 || t->k == 7)
        o += snprintf(s + o, n - o, ", %s, space %d", layouts[(int)t->b], (int)t->a);
    if (t->k == 8) o += snprintf(s + o, n - o, ", op %d, %gx%g", (int)t->a, t->b, t->b);
    if (t->k == 9 || t->k == 16 || t->k == 17) o += snprintf(s + o, n - o, ", %gx%g", t->a, t->a);
    if (t->k == 15) o += snprintf(s + o, n - o, ", %gx%g", t->a, t->b);
    if (t->k == 20 || t->k == 21) o += snprintf(s + o, n - o, ", %g, border %d", t->a, (int)t->b);
    if (t->k == 22) o += snprintf(s + o, n - o, ", sigmas %g, %g", t->a, t->b);
    if (t->k == 10)
        o += snprintf(s + o, n - o, " -> %dx%d, angle %g, border %s", t->dw, t->dh, t->a,
                      t->b ? "replicate" : "constant");
    if (t->view) snprintf(s + o, n - o, ", %s", t->view == 2 ? "isolated views" : "views");
}

/* ms per call of t on ctx: src already where ctx runs, the result left there. */
static double timed(const tcase *t, lumen_context *ctx, int runs) {
    lumen_image *src = t->k == 6 ? NULL : image(t->w, t->h, t->f, 5), *root = NULL;
    lumen_yuv_frame fr;
    uint8_t *mem = t->k == 6 || t->k == 7 ? frame(&fr, t->w, t->h, (int)t->b, 9) : NULL;
    lumen_image *dst = dest(t, &root);
    for (int i = 0; i < 2; i++) TRY(call(t, ctx, src, dst, &fr));
    if (dst) TRY(lumen_image_sync(dst));
    double t0 = now();
    for (int i = 0; i < runs; i++) TRY(call(t, ctx, src, dst, &fr));
    if (dst) TRY(lumen_image_sync(dst));
    double ms = (now() - t0) * 1e3 / runs;
    lumen_image_destroy(src), lumen_image_destroy(dst), free(mem);
    return ms;
}

static const tcase timings[] = {
    {0, RGB, 3840, 2160, 0, 0, 1.3f, -10.0f, 0},
    {1, RGB, 3840, 2160, 0, 0, 0, 0, 0},
    {2, RGB, 3840, 2160, 0, 0, 2.0f, 0, 0},
    {2, G, 3840, 2160, 0, 0, 6.0f, 0, 0},
    {3, RGB, 3840, 2160, 2560, 1440, 0, 0, 0},
    {3, RGB, 3840, 2160, 1920, 1080, 0, 0, 0},
    {4, G, 3840, 2160, 0, 0, 0, 0, 0},
    {5, RGB, 3840, 2160, 0, 0, 1.5f, 1.2f, 0},
    {0, RGB16, 3840, 2160, 0, 0, 1.3f, -10.0f, 0},
    {3, RGBAF32, 3840, 2160, 2560, 1440, 0, 0, 0},
    {6, RGB, 3840, 2160, 0, 0, 1, 1, 0},
    {7, RGB, 3840, 2160, 0, 0, 1, 1, 0},
    {8, RGB, 3840, 2160, 0, 0, 2, 5, 0},
    {9, RGB, 3840, 2160, 0, 0, 5, 0, 0},
    {10, RGB, 3840, 2160, 3840, 2160, 30, 0, 0},
    {11, G, 3840, 2160, 0, 0, 0, 0, 0},
    {15, RGB, 3840, 2160, 0, 0, 15, 15, 0},
    {16, RGB, 3840, 2160, 0, 0, 5, 0, 0},
    {17, RGB, 3840, 2160, 0, 0, 7, 0, 0},
    {18, RGB, 3840, 2160, 1920, 1080, 0, 0, 0},
    {19, RGB, 3840, 2160, 1280, 720, 0, 0, 0},
    {22, RGB, 3840, 2160, 0, 0, 8, 25, 0},
};

static void chain(lumen_context *ctx, lumen_image *src, lumen_image *t[3], lumen_image *dst) {
    TRY(lumen_levels(ctx, src, t[0], 1.1f, -4.0f));
    TRY(lumen_gaussian_blur(ctx, t[0], t[1], 1.0f));
    TRY(lumen_unsharp_mask(ctx, t[1], t[2], 1.0f, 0.8f));
    TRY(lumen_levels(ctx, t[2], dst, 0.9f, 6.0f));
}

int main(int argc, char **argv) {
    int W = argc > 2 ? atoi(argv[1]) : 7680, H = argc > 2 ? atoi(argv[2]) : 4320;
    int runs = argc > 3 ? atoi(argv[3]) : 20, fails = 0;
    lumen_backend be = getenv("LUMEN_CHAIN_OPENCL") ? LUMEN_BACKEND_OPENCL : LUMEN_BACKEND_CUDA;
    if (lumen_backend_available(be) != LUMEN_OK) {
        printf("SKIP: %s\n", lumen_last_error());
        return 77;
    }
    void *primary = NULL;
    if (be == LUMEN_BACKEND_CUDA && !cuda_driver_load(&primary)) {
        printf("FAIL: Lumen sees CUDA but the driver could not be loaded here\n");
        return 1;
    }
    lumen_context *gpu = NULL, *cpu = NULL;
    if (be == LUMEN_BACKEND_CUDA)
        TRY(lumen_cuda_context_create(NULL, &gpu));
    else
        TRY(lumen_context_create(be, &gpu));
    TRY(lumen_context_create(LUMEN_BACKEND_CPU, &cpu));
    const char *gn = lumen_backend_name(be);
    printf("Device: %s; CPU variant %s\n\n| case | %s vs CPU |\n|---|---|\n",
           lumen_backend_devices(be), lumen_cpu_variant(), gn);
    char what[160];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = compare(&cases[i], gpu, cpu, 100u + (unsigned)i);
        fails += n != 0;
        describe(&cases[i], what, sizeof what);
        printf("| %s | %s (%zu bytes differ%s) |\n", what, n ? "FAIL" : "exact", n,
               cases[i].k == 22 ? " by more than 1" : "");
        fflush(stdout);
    }

    printf(
        "\n| 3840x2160, ms per call (%d runs) | %s | CPU, %d threads | CPU / %s |\n"
        "|---|---|---|---|\n",
        runs, gn, (int)sysconf(_SC_NPROCESSORS_ONLN), gn);
    for (size_t i = 0; i < sizeof timings / sizeof *timings; i++) {
        double g = timed(&timings[i], gpu, runs), c = timed(&timings[i], cpu, runs);
        describe(&timings[i], what, sizeof what);
        printf("| %s | %.3f | %.3f | %.1f |\n", what, g, c, c / g);
        fflush(stdout);
    }
    printf(
        "\n(yuv_to_rgb on the GPU includes uploading the frame each call, rgb_to_yuv the copy "
        "back: the frame is host memory.)\n");
    if (be != LUMEN_BACKEND_CUDA) {
        lumen_context_destroy(gpu), lumen_context_destroy(cpu);
        return fails ? 1 : 0;
    }

    /* The bandwidth reference: device-to-device copies of one image. */
    size_t bytes = (size_t)W * H * 4;
    uint64_t d_src = 0, d_dst = 0;
    if (cu.MemAlloc(&d_src, bytes) || cu.MemAlloc(&d_dst, bytes)) {
        printf("FAIL: cuMemAlloc of 2 x %zu bytes\n", bytes);
        return 1;
    }
    cu.MemcpyDtoD(d_dst, d_src, bytes);
    cu.CtxSynchronize();
    double t0 = now();
    for (int i = 0; i < runs; i++) cu.MemcpyDtoD(d_dst, d_src, bytes);
    cu.CtxSynchronize();
    double copy_s = (now() - t0) / runs, copy_bw = 2.0 * bytes / copy_s / 1e9;

    /* The chain, caller memory in and out, intermediates left on the device by Lumen. */
    lumen_image *host = image(W, H, 4, 7), *src = NULL, *dst = NULL, *t[3];
    uint8_t *px = NULL;
    TRY(lumen_image_map(host, LUMEN_ACCESS_READ, &px));
    cu.MemcpyHtoD(d_src, px, bytes);
    TRY(lumen_cuda_image_wrap(gpu, d_src, W, H, 4, (size_t)W * 4, &src));
    TRY(lumen_cuda_image_wrap(gpu, d_dst, W, H, 4, (size_t)W * 4, &dst));
    for (int i = 0; i < 3; i++) TRY(lumen_image_create(W, H, 4, &t[i]));
    for (int i = 0; i < 3; i++) chain(gpu, src, t, dst); /* warm-up: allocations, kernels */
    TRY(lumen_image_sync(dst));
    lumen_context_reset_stats(gpu);
    t0 = now();
    for (int i = 0; i < runs; i++) chain(gpu, src, t, dst);
    TRY(lumen_image_sync(dst));
    cu.CtxSynchronize();
    double chain_s = (now() - t0) / runs, chain_bw = 4 * 2.0 * bytes / chain_s / 1e9;
    lumen_transfer_stats st;
    TRY(lumen_context_stats(gpu, &st));
    unsigned long long moved = st.uploads + st.downloads;
    fails += moved != 0;

    /* The chain's result equals the CPU's. */
    lumen_image *c[3], *want = NULL;
    for (int i = 0; i < 3; i++) TRY(lumen_image_create(W, H, 4, &c[i]));
    TRY(lumen_image_create(W, H, 4, &want));
    chain(cpu, host, c, want);
    uint8_t *back = malloc(bytes), *wpx = NULL;
    cu.MemcpyDtoH(back, d_dst, bytes);
    TRY(lumen_image_map(want, LUMEN_ACCESS_READ, &wpx));
    int same = 1;
    for (int y = 0; y < H; y++)
        same &=
            !memcmp(back + (size_t)y * W * 4, wpx + y * lumen_image_stride(want), (size_t)W * 4);
    fails += !same;

    printf("\n| %dx%d RGBA, %d runs | time | bandwidth | of D2D copy |\n|---|---|---|---|\n", W, H,
           runs);
    printf("| device-to-device copy | %.3f ms | %.1f GB/s | 100%% |\n", copy_s * 1e3, copy_bw);
    printf("| 4-stage chain | %.3f ms | %.1f GB/s | %.0f%% (goal >= 70%%) |\n", chain_s * 1e3,
           chain_bw, 100 * chain_bw / copy_bw);
    printf(
        "\nChain result vs CPU: %s; host transfers during the timed chains: %llu "
        "(%llu up, %llu down)\n",
        same ? "exact" : "FAIL", moved, (unsigned long long)st.uploads,
        (unsigned long long)st.downloads);
    free(back);
    for (int i = 0; i < 3; i++) lumen_image_destroy(t[i]), lumen_image_destroy(c[i]);
    lumen_image_destroy(src), lumen_image_destroy(dst), lumen_image_destroy(host);
    lumen_image_destroy(want);
    lumen_context_destroy(gpu), lumen_context_destroy(cpu);
    cu.MemFree(d_src), cu.MemFree(d_dst);
    return fails ? 1 : 0;
}
