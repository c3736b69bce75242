/* Bad input: every function answers with its documented status and a message, writes nothing
 * to the destination, and never aborts. */
#include <lumen/lumen_cuda.h>

#include "harness.h"

#include <math.h>
#include <stdint.h>

/* Every image a case may use; a failing call must leave all of their pixels unchanged. */
enum { NONE, RGB, GRAY, RGBA, SMALL, DST, GRAY_DST, BGR, LO, HI, N_IMAGES };
static t_image images[N_IMAGES];
static lumen_image *image(int i) { return i == NONE ? NULL : images[i].img; }
static uint8_t *saved[N_IMAGES];

static void save_images(void) {
    for (int i = NONE + 1; i < N_IMAGES; i++) {
        size_t n = images[i].ref.stride * (size_t)images[i].ref.h;
        if (images[i].mem) saved[i] = memcpy(realloc(saved[i], n), images[i].mem, n);
    }
}

/* Status-returning functions of lumen.h and lumen_cuda.h; each needs at least one error case.
 * lumen_release_device_memory is left out: its one error (DEVICE) needs a failing driver. */
static const char *const functions[] = {
    "lumen_backend_available",   "lumen_context_create",  "lumen_context_stats",
    "lumen_image_create",        "lumen_image_wrap",      "lumen_image_create_format",
    "lumen_image_wrap_format",   "lumen_image_view",      "lumen_image_map",
    "lumen_image_sync",          "lumen_levels",          "lumen_grayscale",
    "lumen_gaussian_blur",       "lumen_resize",          "lumen_sobel",
    "lumen_unsharp_mask",        "lumen_yuv_to_rgb",      "lumen_rgb_to_yuv",
    "lumen_cuda_context_create", "lumen_cuda_image_wrap", "lumen_cuda_image_device_ptr"};
enum { N_FUNCTIONS = sizeof functions / sizeof *functions };
static int cases[N_FUNCTIONS];

/* Checks a failing call of fn: the status; the message "fn: ..." naming the bad argument `arg`;
 * no image's pixels written. */
static void expect(lumen_status got, lumen_status want, const char *fn, const char *arg,
                   const char *what) {
    CHECK(got == want, "%s (%s): got %s, want %s", fn, what, lumen_status_string(got),
          lumen_status_string(want));
    const char *msg = lumen_last_error();
    size_t n = strlen(fn);
    CHECK(strncmp(msg, fn, n) == 0 && msg[n] == ':' && strstr(msg + n, arg),
          "%s (%s): message '%s' should name '%s'", fn, what, msg, arg);
    for (int i = NONE + 1; i < N_IMAGES; i++) {
        size_t bytes = images[i].ref.stride * (size_t)images[i].ref.h;
        CHECK(!images[i].mem || memcmp(images[i].mem, saved[i], bytes) == 0,
              "%s (%s): image %d written", fn, what, i);
    }
    for (int f = 0; f < N_FUNCTIONS; f++) cases[f] += strcmp(fn, functions[f]) == 0;
}

static void coverage(void) {
    for (int f = 0; f < N_FUNCTIONS; f++)
        CHECK(cases[f] > 0, "%s: no error case tested", functions[f]);
}

static void statuses(void) {
    for (int s = LUMEN_OK; s <= LUMEN_ERROR_INTERNAL; s++) {
        CHECK(strlen(lumen_status_string((lumen_status)s)) > 0, "status %d has no string", s);
        for (int t = LUMEN_OK; t < s; t++)
            CHECK(
                strcmp(lumen_status_string((lumen_status)s), lumen_status_string((lumen_status)t)),
                "statuses %d and %d share a string", s, t);
    }
    CHECK(strcmp(lumen_status_string((lumen_status)99), "unknown status") == 0, "status 99");
    CHECK(lumen_backend_name((lumen_backend)99) == NULL, "backend 99 has a name");
    CHECK(lumen_version() == LUMEN_VERSION_NUMBER, "library %u vs header %u", lumen_version(),
          (unsigned)LUMEN_VERSION_NUMBER);
    CHECK(strcmp(lumen_version_string(), LUMEN_VERSION_STRING) == 0, "version string");
}

/* Queries and settings: unknown enums and NULL outputs. */

#define INV LUMEN_ERROR_INVALID_ARGUMENT
#define FMT LUMEN_ERROR_UNSUPPORTED_FORMAT
#define SIZE LUMEN_ERROR_SIZE_MISMATCH
#define UNAVAILABLE LUMEN_ERROR_BACKEND_UNAVAILABLE

/* Queries and settings: unknown enums and NULL outputs. */
static void queries(void) {
    expect(lumen_backend_available((lumen_backend)9), INV, "lumen_backend_available", "backend",
           "unknown backend");
    expect(lumen_context_stats(NULL, NULL), INV, "lumen_context_stats", "out", "NULL out");
    expect(lumen_image_sync(NULL), INV, "lumen_image_sync", "img", "NULL img");
    CHECK(strcmp(lumen_compiled_targets((lumen_backend)9), "") == 0, "targets of backend 9");
    CHECK(strcmp(lumen_backend_devices(LUMEN_BACKEND_CPU), "") == 0, "devices of the CPU");
    CHECK(lumen_backend_compiled((lumen_backend)9) == 0, "backend 9 compiled");
    CHECK(strlen(lumen_compiled_targets(LUMEN_BACKEND_CPU)) > 0, "no CPU targets");
    int old = lumen_set_num_threads(3);
    CHECK(lumen_set_num_threads(-5) == 3, "thread count not kept"); /* negative: as 0 */
    lumen_set_num_threads(old);
    lumen_context_reset_stats(NULL);
    lumen_transfer_stats s;
    CHECK_OK(lumen_context_stats(NULL, &s));
}

static void contexts(void) {
    lumen_context *ctx = (lumen_context *)&ctx;
    const char *fn = "lumen_context_create";
    expect(lumen_context_create(LUMEN_BACKEND_CPU, NULL), INV, fn, "out", "NULL out");
    expect(lumen_context_create((lumen_backend)7, &ctx), INV, fn, "policy", "unknown policy");
    CHECK(ctx == NULL, "out not cleared on failure");
    expect(lumen_context_create((lumen_backend)-1, &ctx), INV, fn, "policy", "policy -1");
    lumen_context_destroy(NULL);
}

/* Size, channels and stride, as taken by lumen_image_create (no stride), lumen_image_wrap and
 * lumen_cuda_image_wrap (stride named pitch there); checked in this order. */
static const struct {
    int w, h, c;
    size_t stride;
    lumen_status want;
    const char *arg; /* "stride" stands for pitch in lumen_cuda_image_wrap */
    const char *what;
} geometry[] = {
    {0, 4, 3, 64, INV, "width", "width 0"},
    {-3, 4, 3, 64, INV, "width", "width -3"},
    {LUMEN_MAX_DIMENSION + 1, 4, 1, 1 << 17, INV, "width", "width too large"},
    {4, 0, 3, 64, INV, "height", "height 0"},
    {4, LUMEN_MAX_DIMENSION + 1, 1, 64, INV, "height", "height too large"},
    {0, 4, 0, 64, INV, "width", "bad width before bad channels"},
    {4, 4, 0, 64, FMT, "channels", "0 channels"},
    {4, 4, -1, 64, FMT, "channels", "-1 channels"},
    {4, 4, 2, 64, FMT, "channels", "2 channels"},
    {4, 4, 5, 64, FMT, "channels", "5 channels"},
    {4, 4, 2, 1, FMT, "channels", "bad channels before bad stride"},
    {4, 4, 3, 11, INV, "stride", "stride < width * channels"},
    {4, 4, 1, (size_t)1 << 31, INV, "stride", "stride >= 2^31"},
    {LUMEN_MAX_DIMENSION, LUMEN_MAX_DIMENSION, 4, 4 * LUMEN_MAX_DIMENSION + 4, INV, "height",
     "over 2^31 - 1 bytes"},
};

/* Pixel formats: unknown values, and lumen_image_create's and wrap's checks in the same order. */
static void formats(void) {
    static const int bad[] = {
        0,     2,      5,      -1,      0x101,   0x203,
        0x105, 0x3003, 0x1101, 0x20003, 0x10001, 0x10000}; /* 0x10003: RGB8_PLANAR since 1.5 */
    lumen_image *img = (lumen_image *)&img;
    uint8_t px[64];
    const char *cf = "lumen_image_create_format", *wf = "lumen_image_wrap_format";
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lumen_format f = (lumen_format)bad[i];
        CHECK(lumen_format_channels(f) == 0 && strcmp(lumen_format_name(f), "unknown") == 0,
              "format %d is known", bad[i]);
        expect(lumen_image_create_format(4, 4, f, &img), FMT, cf, "format", "unknown format");
        CHECK(img == NULL, "%s: out not cleared", cf);
        img = (lumen_image *)&img;
        expect(lumen_image_wrap_format(px, 4, 4, f, 16, &img), FMT, wf, "format", "unknown format");
        CHECK(img == NULL, "%s: out not cleared", wf);
        expect(lumen_image_create_format(0, 4, f, &img), INV, cf, "width", "width before format");
        expect(lumen_image_wrap_format(px, 4, 0, f, 16, &img), INV, wf, "height",
               "height before format");
    }
    lumen_format bgr = LUMEN_FORMAT_BGR8;
    expect(lumen_image_create_format(4, 4, bgr, NULL), INV, cf, "out", "NULL out");
    expect(lumen_image_wrap_format(px, 4, 4, bgr, 12, NULL), INV, wf, "out", "NULL out");
    expect(lumen_image_wrap_format(NULL, 4, 4, bgr, 12, &img), INV, wf, "data", "NULL data");
    expect(lumen_image_wrap_format(px, 4, 4, bgr, 11, &img), INV, wf, "stride",
           "stride < width * channels");
    expect(lumen_image_create_format(LUMEN_MAX_DIMENSION, LUMEN_MAX_DIMENSION, LUMEN_FORMAT_BGRA8,
                                     &img),
           INV, cf, "height", "over 2^31 - 1 bytes");
    CHECK(lumen_image_format(NULL) == 0, "format of NULL");
    CHECK(lumen_image_format(image(RGBA)) == LUMEN_FORMAT_RGBA8 &&
              lumen_image_format(image(GRAY)) == LUMEN_FORMAT_GRAY8 &&
              lumen_image_format(image(BGR)) == LUMEN_FORMAT_BGR8,
          "formats of images made with a channel count, or BGR8");
}

/* Views: bad rectangles and flags; src and dst views of one image by what src reads. */
static void views(void) {
    lumen_image *v = (lumen_image *)&v, *a = NULL, *b = NULL;
    const char *fn = "lumen_image_view";
    lumen_image *d = image(DST); /* 16x8 */
    expect(lumen_image_view(d, 0, 0, 4, 4, 0, NULL), INV, fn, "out", "NULL out");
    expect(lumen_image_view(NULL, 0, 0, 4, 4, 0, &v), INV, fn, "img", "NULL img");
    CHECK(v == NULL, "out not cleared");
    static const int rects[][4] = {{0, 0, 0, 4},  {0, 0, 4, 0},  {-1, 0, 4, 4},
                                   {0, -1, 4, 4}, {13, 0, 4, 4}, {0, 5, 4, 4},
                                   {0, 0, 17, 8}, {0, 0, 16, 9}, {1, 0, 0x7fffffff, 1}};
    for (size_t i = 0; i < sizeof rects / sizeof *rects; i++)
        expect(lumen_image_view(d, rects[i][0], rects[i][1], rects[i][2], rects[i][3], 0, &v), INV,
               fn, "rectangle", "outside");
    expect(lumen_image_view(d, 0, 0, 4, 4, 2, &v), INV, fn, "flags", "flags 2");
    CHECK_OK(lumen_image_view(d, 0, 0, 8, 8, 0, &a));
    CHECK_OK(lumen_image_view(d, 8, 0, 8, 8, 0, &b));
    lumen_image *c = NULL;
    CHECK_OK(lumen_image_view(a, 2, 2, 4, 4, 0, &c));
    CHECK(lumen_image_width(c) == 4 && lumen_image_stride(c) == lumen_image_stride(d) &&
              lumen_image_format(c) == LUMEN_FORMAT_RGB8,
          "a view's size, stride and format");
    expect(lumen_gaussian_blur(NULL, a, b, 1.0f), INV, "lumen_gaussian_blur", "overlap",
           "blur reads into dst (reach 3)");
    expect(lumen_sobel(NULL, a, b), FMT, "lumen_sobel", "src", "RGB view");
    lumen_image *e = NULL;
    CHECK_OK(lumen_image_view(d, 4, 0, 8, 8, LUMEN_VIEW_ISOLATED, &e));
    expect(lumen_levels(NULL, a, e, 1, 0), INV, "lumen_levels", "overlap", "views overlap");
    lumen_image_destroy(e);
    expect(lumen_resize(NULL, c, a), INV, "lumen_resize", "overlap", "resize into its parent");
    expect(lumen_cuda_image_device_ptr(NULL, a, &(uint64_t){0}, NULL), INV,
           "lumen_cuda_image_device_ptr", "view", "a view");
    lumen_image_destroy(a);
    lumen_image_destroy(b);
    lumen_image_destroy(c);
}

static void images_(void) {
    lumen_image *img = (lumen_image *)&img;
    uint8_t px[64];
    for (size_t i = 0; i < sizeof geometry / sizeof *geometry; i++) {
        int w = geometry[i].w, h = geometry[i].h, c = geometry[i].c;
        size_t stride = geometry[i].stride;
        const char *arg = geometry[i].arg, *what = geometry[i].what;
        if (strcmp(arg, "stride") != 0) { /* lumen_image_create picks the stride itself */
            expect(lumen_image_create(w, h, c, &img), geometry[i].want, "lumen_image_create", arg,
                   what);
            CHECK(img == NULL, "lumen_image_create (%s): out not cleared", what);
        }
        img = (lumen_image *)&img;
        expect(lumen_image_wrap(px, w, h, c, stride, &img), geometry[i].want, "lumen_image_wrap",
               arg, what);
        CHECK(img == NULL, "lumen_image_wrap (%s): out not cleared", what);
        img = (lumen_image *)&img;
        /* Arguments first, so the same status with or without a GPU. */
        expect(lumen_cuda_image_wrap(NULL, 4096, w, h, c, stride, &img), geometry[i].want,
               "lumen_cuda_image_wrap", strcmp(arg, "stride") ? arg : "pitch", what);
        CHECK(img == NULL, "lumen_cuda_image_wrap (%s): out not cleared", what);
    }
    expect(lumen_image_create(4, 4, 3, NULL), INV, "lumen_image_create", "out", "NULL out");
    expect(lumen_image_wrap(px, 4, 4, 1, 4, NULL), INV, "lumen_image_wrap", "out", "NULL out");
    expect(lumen_image_wrap(NULL, 4, 4, 1, 4, &img), INV, "lumen_image_wrap", "data", "NULL data");
    expect(lumen_image_wrap(NULL, 0, 4, 1, 4, &img), INV, "lumen_image_wrap", "data",
           "NULL data before bad size");

    formats();
    views();

    const char *fn = "lumen_image_map";
    lumen_image *d = image(DST);
    uint8_t *data = px;
    expect(lumen_image_map(NULL, LUMEN_ACCESS_READ, &data), INV, fn, "img", "NULL img");
    CHECK(data == NULL, "data not cleared on failure");
    expect(lumen_image_map(d, LUMEN_ACCESS_READ, NULL), INV, fn, "data", "NULL data");
    expect(lumen_image_map(d, (lumen_access)0, &data), INV, fn, "access", "access 0");
    expect(lumen_image_map(d, (lumen_access)4, &data), INV, fn, "access", "access 4");
    CHECK(lumen_image_width(NULL) == 0 && lumen_image_height(NULL) == 0 &&
              lumen_image_channels(NULL) == 0 && lumen_image_stride(NULL) == 0,
          "NULL queries");
    lumen_image_destroy(NULL);
}

/* Pipelines, checks in the documented order (lumen.h): NULL images, src format, dst channels and
 * size, overlap, parameters, backend. DST is 16x8 RGB; SMALL 15x8 RGB; LO and HI two views of
 * DST's memory one row apart. */
static const char *const pipeline_names[] = {"lumen_levels",        "lumen_grayscale",
                                             "lumen_gaussian_blur", "lumen_resize",
                                             "lumen_sobel",         "lumen_unsharp_mask"};

static lumen_status run(int p, lumen_context *ctx, int src, int dst, float a, float b) {
    return t_run_pipe((t_pipe)p, ctx, image(src), image(dst), a, b);
}

/* Parameters: levels (gain, bias), blur (sigma), unsharp (sigma, amount); others ignore them. */
static const struct {
    int pipeline, src, dst;
    float a, b;
    lumen_status want;
    const char *arg, *what;
} pipeline_cases[] = {
    {T_LEVELS, NONE, DST, 1, 0, INV, "src", "NULL src"},
    {T_LEVELS, RGB, NONE, 1, 0, INV, "dst", "NULL dst"},
    {T_LEVELS, NONE, NONE, NAN, 0, INV, "src", "NULL src before NULL dst and NaN gain"},
    {T_LEVELS, GRAY, DST, 1, 0, SIZE, "dst", "channels differ"},
    {T_LEVELS, SMALL, DST, 1, 0, SIZE, "dst", "sizes differ"},
    {T_LEVELS, BGR, DST, 1, 0, SIZE, "BGR8", "BGR src, RGB dst"},
    {T_LEVELS, DST, BGR, 1, 0, SIZE, "RGB8", "RGB src, BGR dst"},
    {T_LEVELS, BGR, SMALL, 1, 0, SIZE, "format", "format before size"},
    {T_LEVELS, SMALL, DST, NAN, 0, SIZE, "dst", "size before gain"},
    {T_LEVELS, RGB, DST, INFINITY, 0, INV, "gain", "infinite gain"},
    {T_LEVELS, RGB, DST, -256.5f, 0, INV, "gain", "gain too large"},
    {T_LEVELS, RGB, DST, 1, NAN, INV, "bias", "NaN bias"},
    {T_LEVELS, RGB, DST, 1, 1025, INV, "bias", "bias too large"},
    {T_LEVELS, LO, HI, 1, 0, INV, "overlap", "overlap by one row"},
    {T_LEVELS, LO, HI, NAN, 0, INV, "overlap", "overlap before gain"},
    {T_GRAYSCALE, NONE, DST, 0, 0, INV, "src", "NULL src"},
    {T_GRAYSCALE, RGB, NONE, 0, 0, INV, "dst", "NULL dst"},
    {T_GRAYSCALE, GRAY, DST, 0, 0, FMT, "src", "gray src"},
    {T_GRAYSCALE, GRAY, GRAY, 0, 0, FMT, "src", "src format before overlap"},
    {T_GRAYSCALE, RGB, DST, 0, 0, SIZE, "dst", "RGB dst"},
    {T_GRAYSCALE, RGBA, SMALL, 0, 0, SIZE, "dst", "RGB dst (from RGBA)"},
    {T_BLUR, RGB, NONE, 2, 0, INV, "dst", "NULL dst"},
    {T_BLUR, SMALL, DST, 2, 0, SIZE, "dst", "sizes differ"},
    {T_BLUR, RGBA, DST, 2, 0, SIZE, "dst", "channels differ"},
    {T_BLUR, RGB, BGR, 2, 0, SIZE, "BGR8", "RGB src, BGR dst"},
    {T_RESIZE, BGR, DST, 0, 0, SIZE, "BGR8", "BGR src, RGB dst"},
    {T_UNSHARP, BGR, DST, 2, 1, SIZE, "BGR8", "BGR src, RGB dst"},
    {T_GRAYSCALE, BGR, DST, 0, 0, SIZE, "dst", "RGB dst (from BGR)"},
    {T_SOBEL, BGR, GRAY_DST, 0, 0, FMT, "src", "BGR src"},
    {T_BLUR, RGB, DST, 0.49f, 0, INV, "sigma", "sigma too small"},
    {T_BLUR, RGB, DST, 16.01f, 0, INV, "sigma", "sigma too large"},
    {T_BLUR, RGB, DST, NAN, 0, INV, "sigma", "NaN sigma"},
    {T_BLUR, DST, DST, 2, 0, INV, "overlap", "in place"},
    {T_RESIZE, NONE, DST, 0, 0, INV, "src", "NULL src"},
    {T_RESIZE, RGB, NONE, 0, 0, INV, "dst", "NULL dst"},
    {T_RESIZE, GRAY, DST, 0, 0, SIZE, "dst", "channels differ"},
    {T_RESIZE, DST, DST, 0, 0, INV, "overlap", "in place"},
    {T_SOBEL, NONE, GRAY, 0, 0, INV, "src", "NULL src"},
    {T_SOBEL, GRAY, NONE, 0, 0, INV, "dst", "NULL dst"},
    {T_SOBEL, RGB, DST, 0, 0, FMT, "src", "RGB src"},
    {T_SOBEL, GRAY, DST, 0, 0, SIZE, "dst", "RGB dst"},
    {T_SOBEL, GRAY, GRAY, 0, 0, INV, "overlap", "in place"},
    {T_UNSHARP, NONE, DST, 2, 1, INV, "src", "NULL src"},
    {T_UNSHARP, RGB, NONE, 2, 1, INV, "dst", "NULL dst"},
    {T_UNSHARP, SMALL, DST, 2, 1, SIZE, "dst", "sizes differ"},
    {T_UNSHARP, RGB, DST, 0.2f, 1, INV, "sigma", "sigma too small"},
    {T_UNSHARP, RGB, DST, 0.2f, NAN, INV, "sigma", "sigma before amount"},
    {T_UNSHARP, RGB, DST, 2, -0.5f, INV, "amount", "negative amount"},
    {T_UNSHARP, RGB, DST, 2, 16.5f, INV, "amount", "amount too large"},
    {T_UNSHARP, RGB, DST, 2, NAN, INV, "amount", "NaN amount"},
    {T_UNSHARP, DST, DST, 2, 1, INV, "overlap", "in place"},
};

/* Every case on the default context; on a CUDA context where CUDA is not usable, the argument
 * errors stay the same (checked before the backend) and valid arguments get BACKEND_UNAVAILABLE. */
static void pipelines(void) {
    lumen_context *cuda = NULL;
    CHECK_OK(lumen_context_create(LUMEN_BACKEND_CUDA, &cuda));
    int no_cuda = !getenv("LUMEN_TEST_QUICK") && lumen_backend_available(LUMEN_BACKEND_CUDA);
    save_images();
    for (size_t i = 0; i < sizeof pipeline_cases / sizeof *pipeline_cases; i++) {
        int p = pipeline_cases[i].pipeline, s = pipeline_cases[i].src, d = pipeline_cases[i].dst;
        float a = pipeline_cases[i].a, b = pipeline_cases[i].b;
        const char *fn = pipeline_names[p], *arg = pipeline_cases[i].arg;
        lumen_status want = pipeline_cases[i].want;
        expect(run(p, NULL, s, d, a, b), want, fn, arg, pipeline_cases[i].what);
        if (no_cuda) expect(run(p, cuda, s, d, a, b), want, fn, arg, pipeline_cases[i].what);
    }
    for (int p = T_LEVELS; no_cuda && p <= T_UNSHARP; p++) {
        int src = p == T_SOBEL ? GRAY : RGB,
            dst = p == T_SOBEL || p == T_GRAYSCALE ? GRAY_DST : DST;
        expect(run(p, cuda, src, dst, 1, 1), UNAVAILABLE, pipeline_names[p], "cuda",
               "CUDA context, no CUDA");
    }
    lumen_context_destroy(cuda);

    /* Destroying one image leaves the others usable. */
    lumen_image *tmp = NULL, *out = NULL;
    CHECK_OK(lumen_image_create(16, 8, 3, &tmp));
    CHECK_OK(lumen_image_create(16, 8, 3, &out));
    CHECK_OK(lumen_gaussian_blur(NULL, image(RGB), tmp, 1.0f));
    lumen_image_destroy(tmp);
    CHECK_OK(lumen_gaussian_blur(NULL, image(RGB), out, 1.0f));
    lumen_image_destroy(out);

    /* A success clears the thread's last error; in-place levels is allowed. */
    CHECK_OK(lumen_levels(NULL, image(RGB), image(RGB), 1, 0));
    CHECK(lumen_last_error()[0] == '\0', "last error kept after success: %s", lumen_last_error());
    save_images();
}

/* YUV frames: each check in lumen.h's order; a failing lumen_rgb_to_yuv writes no plane. */
static void yuv(void) {
    enum { W = 16, H = 8 };
    static uint8_t y_plane[W * H], uv[W * H / 2], u[W * H / 4], v[W * H / 4];
    lumen_yuv_frame nv12 = {LUMEN_YUV_NV12, W, H, {y_plane, uv, NULL}, {W, W, 0}};
    lumen_yuv_frame i420 = {LUMEN_YUV_I420, W, H, {y_plane, u, v}, {W, W / 2, W / 2}};
    lumen_yuv_frame f;
    const char *fn = "lumen_yuv_to_rgb", *back = "lumen_rgb_to_yuv";
    lumen_yuv_space bt601 = LUMEN_YUV_BT601_LIMITED;
    memset(y_plane, 7, sizeof y_plane), memset(uv, 7, sizeof uv), memset(u, 7, sizeof u);
    memset(v, 7, sizeof v);
    expect(lumen_yuv_to_rgb(NULL, NULL, image(DST), bt601), INV, fn, "src", "NULL src");
    expect(lumen_yuv_to_rgb(NULL, &nv12, NULL, bt601), INV, fn, "dst", "NULL dst");
    f = i420, f.planes[2] = NULL;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), INV, fn, "planes[2]", "NULL V plane");
    f = nv12, f.layout = (lumen_yuv_layout)0;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), FMT, fn, "layout", "layout 0");
    f.layout = (lumen_yuv_layout)4;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), FMT, fn, "layout", "layout 4");
    expect(lumen_yuv_to_rgb(NULL, &nv12, image(DST), (lumen_yuv_space)5), FMT, fn, "space",
           "space 5");
    f = nv12, f.width = W - 1;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), FMT, fn, "even", "odd width");
    f = i420, f.height = 1;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), FMT, fn, "even", "height 1");
    expect(lumen_yuv_to_rgb(NULL, &nv12, image(GRAY_DST), bt601), FMT, fn, "dst", "gray dst");
    f = nv12, f.strides[1] = W - 1;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), INV, fn, "strides[1]",
           "UV stride < width");
    f = i420, f.strides[2] = W / 2 - 1;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), INV, fn, "strides[2]",
           "V stride < width / 2");
    f = i420, f.strides[0] = (size_t)1 << 31;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), INV, fn, "2^31", "huge Y stride");
    f = nv12, f.planes[1] = images[DST].mem + 8;
    expect(lumen_yuv_to_rgb(NULL, &f, image(DST), bt601), INV, fn, "overlaps", "dst on UV");

    save_images();
    uint8_t before[sizeof y_plane];
    memset(y_plane, T_CANARY, sizeof y_plane), memcpy(before, y_plane, sizeof before);
    expect(lumen_rgb_to_yuv(NULL, NULL, &nv12, bt601), INV, back, "src", "NULL src");
    expect(lumen_rgb_to_yuv(NULL, image(RGB), NULL, bt601), INV, back, "dst", "NULL dst");
    expect(lumen_rgb_to_yuv(NULL, image(GRAY), &nv12, bt601), FMT, back, "src", "gray src");
    expect(lumen_rgb_to_yuv(NULL, image(SMALL), &nv12, bt601), SIZE, back, "src", "sizes differ");
    f = i420, f.planes[2] = u + 4;
    expect(lumen_rgb_to_yuv(NULL, image(RGB), &f, bt601), INV, back, "overlap", "U and V overlap");
    f = nv12, f.planes[1] = y_plane + W * (H - 1);
    expect(lumen_rgb_to_yuv(NULL, image(RGB), &f, bt601), INV, back, "overlap", "Y and UV overlap");
    f = nv12, f.planes[0] = images[RGB].mem;
    expect(lumen_rgb_to_yuv(NULL, image(RGB), &f, bt601), INV, back, "overlaps", "src on Y");
    expect(lumen_rgb_to_yuv(NULL, image(RGB), &nv12, (lumen_yuv_space)0), FMT, back, "space",
           "space 0");
    CHECK(memcmp(before, y_plane, sizeof before) == 0, "a failing lumen_rgb_to_yuv wrote Y");
    CHECK_OK(lumen_rgb_to_yuv(NULL, image(RGB), &i420, LUMEN_YUV_BT709_FULL));
    CHECK(memcmp(before, y_plane, sizeof before) != 0, "lumen_rgb_to_yuv wrote no Y");
}

/* CUDA interop: arguments are checked before the driver is touched, so these hold with or
 * without a GPU; then, without a usable GPU (and not under valgrind), BACKEND_UNAVAILABLE. */
static void cuda_interop(void) {
    lumen_context *ctx = (lumen_context *)&ctx;
    lumen_image *img = (lumen_image *)&img;
    uint64_t ptr = 1;
    size_t pitch = 1;
    const char *fn = "lumen_cuda_context_create";
    lumen_cuda_options bad = {-1, NULL, NULL};
    expect(lumen_cuda_context_create(NULL, NULL), INV, fn, "out", "NULL out");
    expect(lumen_cuda_context_create(&bad, &ctx), INV, fn, "device", "device -1");
    CHECK(ctx == NULL, "%s: out not cleared", fn);
    fn = "lumen_cuda_image_wrap";
    expect(lumen_cuda_image_wrap(NULL, 4096, 4, 4, 1, 4, NULL), INV, fn, "out", "NULL out");
    expect(lumen_cuda_image_wrap(NULL, 0, 4, 4, 1, 4, &img), INV, fn, "device_ptr", "0");
    CHECK(img == NULL, "%s: out not cleared", fn);
    expect(lumen_cuda_image_wrap(NULL, 0, 0, 4, 1, 4, &img), INV, fn, "device_ptr",
           "device_ptr 0 before bad size");
    fn = "lumen_cuda_image_device_ptr";
    expect(lumen_cuda_image_device_ptr(NULL, NULL, &ptr, &pitch), INV, fn, "img", "NULL img");
    CHECK(ptr == 0 && pitch == 0, "%s: outputs not cleared", fn);
    expect(lumen_cuda_image_device_ptr(NULL, image(DST), NULL, &pitch), INV, fn, "device_ptr",
           "NULL device_ptr");
    if (getenv("LUMEN_TEST_QUICK") || lumen_backend_available(LUMEN_BACKEND_CUDA) == LUMEN_OK)
        return;
    const char *why = "cuda"; /* "cuda backend unavailable: <reason>" */
    ctx = (lumen_context *)&ctx;
    expect(lumen_cuda_context_create(NULL, &ctx), UNAVAILABLE, "lumen_cuda_context_create", why,
           "no GPU");
    CHECK(ctx == NULL, "context made without a GPU");
    lumen_cuda_options far = {1000, NULL, NULL}; /* range known only to the driver */
    expect(lumen_cuda_context_create(&far, &ctx), UNAVAILABLE, "lumen_cuda_context_create", why,
           "device 1000, no GPU");
    expect(lumen_cuda_image_wrap(NULL, 4096, 4, 4, 1, 4, &img), UNAVAILABLE,
           "lumen_cuda_image_wrap", why, "no GPU");
    ptr = 1;
    expect(lumen_cuda_image_device_ptr(NULL, image(DST), &ptr, NULL), UNAVAILABLE,
           "lumen_cuda_image_device_ptr", why, "no GPU");
    CHECK(ptr == 0, "device_ptr not cleared");
}

/* Backends that are not there: a status, never an abort. */
static void backends(void) {
    t_image *dst = &images[DST];
    for (lumen_backend b = LUMEN_BACKEND_CUDA; b <= LUMEN_BACKEND_OPENCL; b++) {
        lumen_context *ctx = NULL;
        CHECK_OK(lumen_context_create(b, &ctx));
        lumen_status st = lumen_levels(ctx, image(RGB), dst->img, 1, 0);
        printf("%s backend here: %s (%s)\n", lumen_backend_name(b), lumen_status_string(st),
               lumen_last_error());
        if (st != LUMEN_OK) {
            CHECK(st == LUMEN_ERROR_BACKEND_UNAVAILABLE || st == LUMEN_ERROR_DEVICE, "%s: %s",
                  lumen_backend_name(b), lumen_status_string(st));
            CHECK(lumen_last_error()[0] != '\0', "no message");
        }
        memset(dst->mem, T_CANARY, dst->ref.stride * dst->ref.h);
        lumen_context_destroy(ctx);
    }
}

int main(void) {
    t_seed();
    images[RGB] = t_image_new(16, 8, 3, 0, 1);
    images[GRAY] = t_image_new(16, 8, 1, 0, 1);
    images[RGBA] = t_image_new(16, 8, 4, 0, 1);
    images[SMALL] = t_image_new(15, 8, 3, 0, 1);
    images[DST] = t_image_new(16, 8, 3, 0, 0);
    images[GRAY_DST] = t_image_new(16, 8, 1, 0, 0);
    images[BGR] = t_image_new(16, 8, 3, 0, 1);
    lumen_image_destroy(images[BGR].img);
    CHECK_OK(
        lumen_image_wrap_format(images[BGR].mem, 16, 8, LUMEN_FORMAT_BGR8, 48, &images[BGR].img));
    t_image *lo = &images[LO], *hi = &images[HI];
    *lo = *hi = images[DST];
    lo->mem = hi->mem = NULL; /* views of DST's memory, compared through DST */
    lo->img = hi->img = NULL;
    CHECK_OK(lumen_image_wrap(images[DST].mem, 16, 4, 3, 48, &lo->img));
    CHECK_OK(lumen_image_wrap(images[DST].mem + 48, 16, 4, 3, 48, &hi->img));
    save_images();
    statuses();
    queries();
    contexts();
    images_();
    pipelines();
    yuv();
    cuda_interop();
    if (!getenv("LUMEN_TEST_QUICK")) backends(); /* GPU drivers (PoCL) are too much for valgrind */
    coverage();
    for (int i = NONE + 1; i < N_IMAGES; i++) {
        if (i == LO || i == HI)
            lumen_image_destroy(images[i].img);
        else
            t_image_free(&images[i]);
        free(saved[i]);
    }
    return t_summary();
}
