/* libFuzzer harness over Lumen's API: image geometry (valid and not), strides, channel counts,
 * parameters (NaN, infinities, out of range), pipeline choice, in-place and overlapping images,
 * chains. Caller memory ends right before a PROT_NONE page, so any read or write past an image
 * (also from the uninstrumented Halide code) crashes. Every success is compared with the plain-C
 * reference; every failure must name the function and leave the destination untouched.
 * Long runs: see README (fuzzing). */
#include <lumen/lumen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../reference.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static unsigned take(input *in) { /* one byte, 0 when the input is used up */
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

static float take_float(input *in, float lo, float hi) {
    unsigned b = take(in);
    if (b == 255) return NAN;
    if (b == 254) return INFINITY;
    if (b == 253) return -INFINITY;
    return lo + (hi - lo) * (float)(b * 256 + take(in)) / 65535.0f;
}

/* Caller memory of `bytes` bytes ending at a guard page. */
typedef struct {
    uint8_t *data, *base;
    size_t len;
} guarded;

static guarded guarded_alloc(size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (bytes + page - 1) / page * page;
    guarded g = {NULL, NULL, body + page};
    g.base = mmap(NULL, g.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g.base == MAP_FAILED) abort();
    mprotect(g.base + body, page, PROT_NONE);
    g.data = g.base + body - bytes;
    return g;
}

static void guarded_free(guarded *g) { munmap(g->base, g->len); }

typedef struct {
    int w, h, c;
    size_t stride;
    guarded mem;
    lumen_image *img;
} image;

/* An image from the input: sizes may be invalid; wrapped (guarded memory) or created. */
static lumen_status make_image(input *in, image *im, int force_c) {
    memset(im, 0, sizeof *im);
    im->w = (int)(take(in) % 70) - 2;
    im->h = (int)(take(in) % 70) - 2;
    im->c = force_c ? force_c : (int)(take(in) % 6);
    int wrap = take(in) % 4 != 0;
    long extra = (long)(take(in) % 10) - 2; /* negative: stride too small */
    long row = (long)im->w * im->c;
    im->stride = row + extra > 0 ? (size_t)(row + extra) : 1;
    if (!wrap) return lumen_image_create(im->w, im->h, im->c, &im->img);
    size_t bytes = im->h > 0 && im->w > 0 && im->c > 0
                       ? (size_t)(im->h - 1) * im->stride + (size_t)row
                       : 1;
    if (bytes > (1u << 22)) bytes = 1u << 22;
    im->mem = guarded_alloc(bytes);
    for (size_t i = 0; i < bytes; i++) im->mem.data[i] = (uint8_t)(take(in) * 37 + i);
    return lumen_image_wrap(im->mem.data, im->w, im->h, im->c, im->stride, &im->img);
}

static void free_image(image *im) {
    lumen_image_destroy(im->img);
    if (im->mem.base) guarded_free(&im->mem);
}

/* A tight host copy of an image's pixels. */
static ref_image snapshot(lumen_image *img) {
    ref_image r = {NULL, lumen_image_width(img), lumen_image_height(img),
                   lumen_image_channels(img), 0};
    uint8_t *px;
    r.stride = (size_t)r.w * r.c;
    r.data = malloc(r.stride * r.h + 1);
    if (lumen_image_map(img, LUMEN_ACCESS_READ, &px)) abort();
    for (int y = 0; y < r.h; y++) memcpy(r.data + y * r.stride, px + y * lumen_image_stride(img), r.stride);
    return r;
}

static int equal(ref_image a, ref_image b) {
    return a.w == b.w && a.h == b.h && a.c == b.c && !memcmp(a.data, b.data, a.stride * a.h);
}

static const char *const names[] = {"lumen_levels", "lumen_grayscale", "lumen_gaussian_blur",
                                    "lumen_resize", "lumen_sobel", "lumen_unsharp_mask"};

/* Runs pipeline p; on success checks against the reference, on failure checks the contract. */
static void run(int p, lumen_image *src, lumen_image *dst, float a, float b) {
    int valid = src && dst;
    ref_image before = {0}, dst_before = {0};
    if (valid) before = snapshot(src), dst_before = snapshot(dst);
    lumen_status st = LUMEN_OK;
    switch (p) {
    case 0: st = lumen_levels(NULL, src, dst, a, b); break;
    case 1: st = lumen_grayscale(NULL, src, dst); break;
    case 2: st = lumen_gaussian_blur(NULL, src, dst, a); break;
    case 3: st = lumen_resize(NULL, src, dst); break;
    case 4: st = lumen_sobel(NULL, src, dst); break;
    case 5: st = lumen_unsharp_mask(NULL, src, dst, a, b); break;
    }
    if (st != LUMEN_OK) {
        if (strncmp(lumen_last_error(), names[p], strlen(names[p])) != 0) abort();
        if (valid) {
            ref_image after = snapshot(dst);
            if (!equal(after, dst_before)) abort(); /* a failed call wrote its destination */
            free(after.data);
        }
    } else {
        if (!valid) abort();
        ref_image want = {malloc(dst_before.stride * dst_before.h + 1), dst_before.w,
                          dst_before.h, dst_before.c, dst_before.stride};
        switch (p) {
        case 0: ref_levels(before, want, a, b); break;
        case 1: ref_grayscale(before, want); break;
        case 2: ref_gaussian_blur(before, want, a); break;
        case 3: ref_resize(before, want); break;
        case 4: ref_sobel(before, want); break;
        case 5: ref_unsharp_mask(before, want, a, b); break;
        }
        ref_image got = snapshot(dst);
        if (!equal(got, want)) abort(); /* differs from the plain-C reference */
        free(got.data);
        free(want.data);
    }
    free(before.data);
    free(dst_before.data);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    setenv("LUMEN_BACKEND", "cpu", 1); /* no GPU driver inside the sanitized fuzzer */
    lumen_set_num_threads(1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size};
    unsigned op = take(&in) % 8;
    image s, d;
    int src_ok = make_image(&in, &s, 0) == LUMEN_OK;
    if (op < 6) {
        unsigned mode = take(&in) % 8;
        float a = op == 0 ? take_float(&in, -300, 300) : take_float(&in, 0, 20);
        float b = op == 0 ? take_float(&in, -1100, 1100) : take_float(&in, -1, 18);
        if (mode == 0 && src_ok) { /* in place */
            run((int)op, s.img, s.img, a, b);
        } else {
            int dst_ok = make_image(&in, &d, 0) == LUMEN_OK;
            run((int)op, src_ok && mode != 1 ? s.img : NULL, dst_ok && mode != 2 ? d.img : NULL,
                a, b);
            free_image(&d);
        }
    } else if (op == 6 && src_ok) { /* a chain of Lumen-made images */
        lumen_image *cur = s.img;
        for (int i = 0; i < 3; i++) {
            int p = (int)(take(&in) % 6);
            lumen_image *next = NULL;
            int w = lumen_image_width(cur), h = lumen_image_height(cur);
            int c = p == 1 || p == 4 ? 1 : lumen_image_channels(cur);
            if (p == 3) w = 1 + (int)(take(&in) % 50), h = 1 + (int)(take(&in) % 50);
            if (lumen_image_create(w, h, c, &next)) abort();
            run(p, cur, next, take_float(&in, 0.5f, 3), take_float(&in, 0, 3));
            if (cur != s.img) lumen_image_destroy(cur);
            cur = next;
        }
        if (cur != s.img) lumen_image_destroy(cur);
    } else if (op == 7) { /* host access and queries on whatever was made */
        uint8_t *px = NULL;
        lumen_status st = lumen_image_map(src_ok ? s.img : NULL, (lumen_access)(take(&in) % 5), &px);
        if (st == LUMEN_OK && (!px || !src_ok)) abort();
        lumen_image_width(s.img), lumen_image_stride(s.img), lumen_image_location(s.img);
    }
    free_image(&s);
    return 0;
}
