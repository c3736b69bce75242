/* How far Lumen's fixed-point results are from the ideal real-valued computation (double), and
 * that every radius the CPU code specialises matches the plain-C reference bit for bit.
 * Claims checked (lumen.h): gaussian_blur and resize within 1 of the ideal value, unsharp_mask
 * within 1 for amount in [0, 2]. Inputs: random noise (the worst case for rounding) and
 * structured images (edges, stripes, flat). argv[1]: cpu | opencl | cuda. */
#include "harness.h"

#include <math.h>

static lumen_context *ctx;
static double worst_blur, worst_unsharp, worst_resize;

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Pattern k of a w x h x c image: 0 noise, 1 vertical edge, 2 one-pixel stripes, 3 checker,
 * 4 flat 255, 5 sparse impulses. */
static uint8_t pattern(int k, int x, int y, int ch) {
    switch (k) {
        case 0: return (uint8_t)t_rand();
        case 1: return x < 23 ? 0 : 255;
        case 2: return (x + ch) % 2 ? 255 : 0;
        case 3: return ((x / 3 + y / 3) % 2) ? 250 : 3;
        case 4: return 255;
        default: return t_rand() % 17 == 0 ? 255 : 0;
    }
}

/* The ideal blur: real Gaussian taps over [-r, r] (r = ceil(3 sigma)), normalised, clamped edges. */
static double *ideal_blur(ref_image s, float sigma) {
    int r = (int)ceil(3.0 * sigma);
    double g[97], sum = 0;
    for (int k = -r; k <= r; k++) sum += g[k + r] = exp(-(double)(k * k) / (2.0 * sigma * sigma));
    for (int k = 0; k <= 2 * r; k++) g[k] /= sum;
    size_t n = (size_t)s.w * s.h * s.c;
    double *h = calloc(n, sizeof *h), *v = calloc(n, sizeof *v);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++)
                for (int k = -r; k <= r; k++)
                    h[((size_t)y * s.w + x) * s.c + c] +=
                        g[k + r] * REF_PX(s, clampi(x + k, 0, s.w - 1), y, c);
    for (int y = 0; y < s.h; y++)
        for (int x = 0; x < s.w; x++)
            for (int c = 0; c < s.c; c++)
                for (int k = -r; k <= r; k++)
                    v[((size_t)y * s.w + x) * s.c + c] +=
                        g[k + r] * h[((size_t)clampi(y + k, 0, s.h - 1) * s.w + x) * s.c + c];
    free(h);
    return v;
}

static double clamp255(double v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

/* One blur or unsharp case (amount < 0: blur): exact vs reference, close to ideal. */
static void check_blur(int w, int h, int c, int k, float sigma, float amount) {
    t_image src = t_image_new(w, h, c, 0, 0), dst = t_image_new(w, h, c, 0, 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) REF_PX(src.ref, x, y, ch) = pattern(k, x, y, ch);
    ref_image want = {malloc((size_t)w * h * c), w, h, c, (size_t)w * c};
    lumen_status st = amount < 0 ? lumen_gaussian_blur(ctx, src.img, dst.img, sigma)
                                 : lumen_unsharp_mask(ctx, src.img, dst.img, sigma, amount);
    CHECK(st == LUMEN_OK, "%s", lumen_last_error());
    t_sync(&dst);
    if (amount < 0) ref_gaussian_blur(src.ref, want, sigma);
    else ref_unsharp_mask(src.ref, want, sigma, amount);
    long n_diff;
    int pad_ok, exact = t_compare(&dst, want, &n_diff, &pad_ok);
    double *b = ideal_blur(src.ref, sigma), worst = 0;
    double a = floor((double)amount * 4096.0 + 0.5) / 4096.0; /* the Q12 amount Lumen uses */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) {
                double bi = b[((size_t)y * w + x) * c + ch], in = REF_PX(src.ref, x, y, ch);
                double ideal = amount < 0 ? bi : clamp255(bi + a * (in - bi));
                double d = fabs(REF_PX(dst.ref, x, y, ch) - ideal);
                if (d > worst) worst = d;
            }
    const char *what = amount < 0 ? "gaussian_blur" : "unsharp_mask";
    CHECK(exact == 0, "%s %dx%dx%d pattern %d sigma %g amount %g: %ld differ from the reference",
          what, w, h, c, k, (double)sigma, (double)amount, n_diff);
    CHECK(worst <= 1.0, "%s %dx%dx%d pattern %d sigma %g amount %g: %.3f from ideal", what, w, h,
          c, k, (double)sigma, (double)amount, worst);
    double *acc = amount < 0 ? &worst_blur : &worst_unsharp;
    if (worst > *acc) *acc = worst;
    free(b);
    free(want.data);
    t_image_free(&src);
    t_image_free(&dst);
}

/* Ideal bilinear sample at output index i of n_out (centres aligned, clamped), as lumen.h. */
static void ideal_taps(int i, int n_in, int n_out, int *t0, int *t1, double *f) {
    double pos = ((double)i + 0.5) * n_in / n_out - 0.5;
    if (pos < 0) pos = 0;
    *t0 = clampi((int)floor(pos), 0, n_in - 1);
    *t1 = clampi(*t0 + 1, 0, n_in - 1);
    *f = *t0 == *t1 ? 0.0 : pos - *t0;
}

static void check_resize(int w, int h, int ow, int oh, int c, int k) {
    t_image src = t_image_new(w, h, c, 0, 0), dst = t_image_new(ow, oh, c, 0, 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) REF_PX(src.ref, x, y, ch) = pattern(k, x, y, ch);
    CHECK_OK(lumen_resize(ctx, src.img, dst.img));
    t_sync(&dst);
    ref_image want = {malloc((size_t)ow * oh * c), ow, oh, c, (size_t)ow * c};
    ref_resize(src.ref, want);
    long n_diff;
    int pad_ok, exact = t_compare(&dst, want, &n_diff, &pad_ok);
    double worst = 0;
    for (int y = 0; y < oh; y++) {
        int y0, y1;
        double fy;
        ideal_taps(y, h, oh, &y0, &y1, &fy);
        for (int x = 0; x < ow; x++) {
            int x0, x1;
            double fx;
            ideal_taps(x, w, ow, &x0, &x1, &fx);
            for (int ch = 0; ch < c; ch++) {
                double top = (1 - fx) * REF_PX(src.ref, x0, y0, ch) + fx * REF_PX(src.ref, x1, y0, ch);
                double bot = (1 - fx) * REF_PX(src.ref, x0, y1, ch) + fx * REF_PX(src.ref, x1, y1, ch);
                double d = fabs(REF_PX(dst.ref, x, y, ch) - ((1 - fy) * top + fy * bot));
                if (d > worst) worst = d;
            }
        }
    }
    CHECK(exact == 0, "resize %dx%d -> %dx%d x%d: %ld differ from the reference", w, h, ow, oh, c,
          n_diff);
    CHECK(worst <= 1.0, "resize %dx%d -> %dx%d x%d pattern %d: %.3f from ideal", w, h, ow, oh, c,
          k, worst);
    if (worst > worst_resize) worst_resize = worst;
    free(want.data);
    t_image_free(&src);
    t_image_free(&dst);
}

int main(int argc, char **argv) {
    const char *b = argc > 1 ? argv[1] : "cpu";
    lumen_backend backend = !strcmp(b, "opencl") ? LUMEN_BACKEND_OPENCL
                            : !strcmp(b, "cuda") ? LUMEN_BACKEND_CUDA
                                                 : LUMEN_BACKEND_CPU;
    if (backend != LUMEN_BACKEND_CPU && lumen_backend_available(backend) != LUMEN_OK) {
        printf("%s not available here: skipped\n", b);
        return 77;
    }
    t_seed();
    CHECK_OK(lumen_context_create(backend, &ctx));
    /* Every radius from 2 to 9 (2..8 have unrolled CPU code), then larger ones up to 48. */
    static const float sigmas[] = {0.5f, 0.8f, 1.0f, 1.2f, 1.5f, 1.9f, 2.0f,
                                   2.5f, 2.9f, 3.3f, 5.0f, 9.7f, 16.0f};
    for (size_t i = 0; i < sizeof sigmas / sizeof *sigmas; i++)
        for (int c = 1; c <= 4; c++)
            for (int k = 0; k < 6; k++)
                if (c != 2) check_blur(61 + (int)i, 37 + k, c, k, sigmas[i], -1.0f);
    static const float amounts[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
    static const int channels[] = {1, 3, 4, 1, 3, 4};
    for (size_t i = 0; i < sizeof amounts / sizeof *amounts; i++)
        for (int k = 0; k < 6; k++)
            check_blur(70, 41, channels[k], k, sigmas[(i * 3 + (size_t)k) % 13], amounts[i]);
    static const int sizes[][4] = {{96, 60, 48, 30},  {96, 60, 32, 20},  {96, 60, 24, 15},
                                   {96, 60, 64, 40},  {96, 60, 38, 24},  {64, 40, 96, 60},
                                   {64, 40, 128, 80}, {61, 37, 200, 13}, {37, 61, 5, 111}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int c = 1; c <= 4; c++)
            for (int k = 0; k < 6; k++)
                if (c != 2) check_resize(sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3], c, k);
    printf("largest distance from ideal: gaussian_blur %.3f, unsharp_mask (amount <= 2) %.3f, "
           "resize %.3f\n", worst_blur, worst_unsharp, worst_resize);
    lumen_context_destroy(ctx);
    return t_summary();
}
