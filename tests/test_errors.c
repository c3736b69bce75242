/* Bad input: every function answers with its documented status and a message, writes nothing
 * to the destination, and never aborts. */
#include <lumen/lumen_cuda.h>

#include "harness.h"

#include <math.h>

static t_image dst;

/* Checks a failing call: status, message naming the function, destination untouched. */
static void expect(lumen_status got, lumen_status want, const char *fn, const char *what) {
    CHECK(got == want, "%s (%s): got %s, want %s", fn, what, lumen_status_string(got),
          lumen_status_string(want));
    size_t n = strcspn(fn, "("); /* the message starts with "function_name: " */
    CHECK(strncmp(lumen_last_error(), fn, n) == 0 && lumen_last_error()[n] == ':',
          "%s (%s): message '%s'", fn, what, lumen_last_error());
    for (size_t i = 0; dst.mem && i < dst.ref.stride * (size_t)dst.ref.h; i++) {
        if (dst.mem[i] != T_CANARY) {
            CHECK(0, "%s (%s): destination written", fn, what);
            break;
        }
    }
}
#define EXPECT(call, status, what) expect((call), (status), #call, what)

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
static void queries(void) {
    expect(lumen_backend_available((lumen_backend)9), LUMEN_ERROR_INVALID_ARGUMENT,
           "lumen_backend_available", "unknown backend");
    expect(lumen_context_stats(NULL, NULL), LUMEN_ERROR_INVALID_ARGUMENT, "lumen_context_stats",
           "NULL out");
    expect(lumen_image_sync(NULL), LUMEN_ERROR_INVALID_ARGUMENT, "lumen_image_sync", "NULL");
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
    expect(lumen_context_create(LUMEN_BACKEND_CPU, NULL), LUMEN_ERROR_INVALID_ARGUMENT,
           "lumen_context_create", "NULL out");
    expect(lumen_context_create((lumen_backend)7, &ctx), LUMEN_ERROR_INVALID_ARGUMENT,
           "lumen_context_create", "unknown backend");
    CHECK(ctx == NULL, "out not cleared on failure");
    lumen_context_destroy(NULL);
}

static void images(void) {
    lumen_image *img = (lumen_image *)&img;
    const char *fn = "lumen_image_create";
    expect(lumen_image_create(4, 4, 3, NULL), LUMEN_ERROR_INVALID_ARGUMENT, fn, "NULL out");
    expect(lumen_image_create(0, 4, 3, &img), LUMEN_ERROR_INVALID_ARGUMENT, fn, "width 0");
    CHECK(img == NULL, "out not cleared on failure");
    expect(lumen_image_create(4, -1, 3, &img), LUMEN_ERROR_INVALID_ARGUMENT, fn, "height -1");
    expect(lumen_image_create(LUMEN_MAX_DIMENSION + 1, 4, 1, &img), LUMEN_ERROR_INVALID_ARGUMENT,
           fn, "too wide");
    expect(lumen_image_create(4, 4, 0, &img), LUMEN_ERROR_INVALID_ARGUMENT, fn, "0 channels");
    expect(lumen_image_create(4, 4, 2, &img), LUMEN_ERROR_UNSUPPORTED_FORMAT, fn, "2 channels");
    expect(lumen_image_create(4, 4, 5, &img), LUMEN_ERROR_UNSUPPORTED_FORMAT, fn, "5 channels");
    expect(lumen_image_create(LUMEN_MAX_DIMENSION, LUMEN_MAX_DIMENSION, 4, &img),
           LUMEN_ERROR_INVALID_ARGUMENT, fn, "over 2^31 bytes");

    uint8_t px[64];
    fn = "lumen_image_wrap";
    expect(lumen_image_wrap(NULL, 4, 4, 1, 4, &img), LUMEN_ERROR_INVALID_ARGUMENT, fn, "NULL data");
    expect(lumen_image_wrap(px, 4, 4, 3, 11, &img), LUMEN_ERROR_INVALID_ARGUMENT, fn,
           "stride < row");
    expect(lumen_image_wrap(px, 4, 4, 1, (size_t)1 << 31, &img), LUMEN_ERROR_INVALID_ARGUMENT, fn,
           "stride >= 2^31");
    expect(lumen_image_wrap(px, 4, 4, 1, 4, NULL), LUMEN_ERROR_INVALID_ARGUMENT, fn, "NULL out");

    fn = "lumen_image_map";
    uint8_t *data = px;
    expect(lumen_image_map(NULL, LUMEN_ACCESS_READ, &data), LUMEN_ERROR_INVALID_ARGUMENT, fn,
           "NULL");
    CHECK(data == NULL, "data not cleared on failure");
    expect(lumen_image_map(dst.img, LUMEN_ACCESS_READ, NULL), LUMEN_ERROR_INVALID_ARGUMENT, fn,
           "NULL data");
    expect(lumen_image_map(dst.img, (lumen_access)0, &data), LUMEN_ERROR_INVALID_ARGUMENT, fn,
           "access 0");
    expect(lumen_image_map(dst.img, (lumen_access)4, &data), LUMEN_ERROR_INVALID_ARGUMENT, fn,
           "access 4");
    CHECK(lumen_image_width(NULL) == 0 && lumen_image_height(NULL) == 0 &&
              lumen_image_channels(NULL) == 0 && lumen_image_stride(NULL) == 0,
          "NULL queries");
    lumen_image_destroy(NULL);
}

/* Every pipeline: NULL images, formats, sizes, overlap, parameters. dst is 16x8 RGB. */
static void pipelines(void) {
    t_image rgb = t_image_new(16, 8, 3, 0, 1), gray = t_image_new(16, 8, 1, 0, 1);
    t_image small = t_image_new(15, 8, 3, 0, 1), rgba = t_image_new(16, 8, 4, 0, 1);
    lumen_image *d = dst.img, *s = rgb.img;
    lumen_status INV = LUMEN_ERROR_INVALID_ARGUMENT, FMT = LUMEN_ERROR_UNSUPPORTED_FORMAT,
                 SIZE = LUMEN_ERROR_SIZE_MISMATCH;

    EXPECT(lumen_levels(NULL, NULL, d, 1, 0), INV, "NULL src");
    EXPECT(lumen_levels(NULL, s, NULL, 1, 0), INV, "NULL dst");
    EXPECT(lumen_levels(NULL, gray.img, d, 1, 0), SIZE, "channels differ");
    EXPECT(lumen_levels(NULL, small.img, d, 1, 0), SIZE, "sizes differ");
    EXPECT(lumen_levels(NULL, s, d, INFINITY, 0), INV, "infinite gain");
    EXPECT(lumen_levels(NULL, s, d, 1, NAN), INV, "NaN bias");
    EXPECT(lumen_levels(NULL, s, d, -256.5f, 0), INV, "gain too large");
    EXPECT(lumen_levels(NULL, s, d, 1, 1025), INV, "bias too large");

    EXPECT(lumen_grayscale(NULL, NULL, d), INV, "NULL src");
    EXPECT(lumen_grayscale(NULL, gray.img, d), FMT, "gray src");
    EXPECT(lumen_grayscale(NULL, s, d), SIZE, "RGB dst");
    EXPECT(lumen_grayscale(NULL, rgba.img, small.img), SIZE, "RGB dst (from RGBA)");

    EXPECT(lumen_gaussian_blur(NULL, s, NULL, 2), INV, "NULL dst");
    EXPECT(lumen_gaussian_blur(NULL, small.img, d, 2), SIZE, "sizes differ");
    EXPECT(lumen_gaussian_blur(NULL, rgba.img, d, 2), SIZE, "channels differ");
    EXPECT(lumen_gaussian_blur(NULL, s, d, 0.49f), INV, "sigma too small");
    EXPECT(lumen_gaussian_blur(NULL, s, d, 16.01f), INV, "sigma too large");
    EXPECT(lumen_gaussian_blur(NULL, s, d, NAN), INV, "NaN sigma");
    EXPECT(lumen_gaussian_blur(NULL, d, d, 2), INV, "in place");

    EXPECT(lumen_resize(NULL, NULL, d), INV, "NULL src");
    EXPECT(lumen_resize(NULL, gray.img, d), SIZE, "channels differ");
    EXPECT(lumen_resize(NULL, d, d), INV, "in place");

    EXPECT(lumen_sobel(NULL, s, d), FMT, "RGB src");
    EXPECT(lumen_sobel(NULL, gray.img, d), SIZE, "RGB dst");
    EXPECT(lumen_sobel(NULL, gray.img, NULL), INV, "NULL dst");

    EXPECT(lumen_unsharp_mask(NULL, s, d, 0.2f, 1), INV, "sigma too small");
    EXPECT(lumen_unsharp_mask(NULL, s, d, 2, -0.5f), INV, "negative amount");
    EXPECT(lumen_unsharp_mask(NULL, s, d, 2, 16.5f), INV, "amount too large");
    EXPECT(lumen_unsharp_mask(NULL, s, d, 2, NAN), INV, "NaN amount");
    EXPECT(lumen_unsharp_mask(NULL, small.img, d, 2, 1), SIZE, "sizes differ");
    EXPECT(lumen_unsharp_mask(NULL, d, d, 2, 1), INV, "in place");

    /* Partly overlapping views of one buffer. */
    lumen_image *lo = NULL, *hi = NULL;
    CHECK_OK(lumen_image_wrap(dst.mem, 16, 4, 3, 48, &lo));
    CHECK_OK(lumen_image_wrap(dst.mem + 48, 16, 4, 3, 48, &hi));
    EXPECT(lumen_levels(NULL, lo, hi, 1, 0), INV, "overlap one row");
    lumen_image_destroy(lo);
    lumen_image_destroy(hi);

    /* Destroying one image leaves the others usable. */
    lumen_image *tmp = NULL, *out = NULL;
    CHECK_OK(lumen_image_create(16, 8, 3, &tmp));
    CHECK_OK(lumen_image_create(16, 8, 3, &out));
    CHECK_OK(lumen_gaussian_blur(NULL, s, tmp, 1.0f));
    lumen_image_destroy(tmp);
    CHECK_OK(lumen_gaussian_blur(NULL, s, out, 1.0f));
    lumen_image_destroy(out);

    /* A success clears the thread's last error; in-place levels is allowed. */
    CHECK_OK(lumen_levels(NULL, s, s, 1, 0));
    CHECK(lumen_last_error()[0] == '\0', "last error kept after success: %s", lumen_last_error());

    t_image_free(&rgb), t_image_free(&gray), t_image_free(&small), t_image_free(&rgba);
}

/* CUDA interop without a usable GPU: clean statuses. */
static void cuda_interop(void) {
    lumen_context *ctx = NULL;
    lumen_image *img = NULL;
    uint64_t ptr = 0;
    expect(lumen_cuda_context_create(NULL, NULL), LUMEN_ERROR_INVALID_ARGUMENT,
           "lumen_cuda_context_create", "NULL out");
    expect(lumen_cuda_image_wrap(NULL, 0, 4, 4, 1, 4, &img), LUMEN_ERROR_INVALID_ARGUMENT,
           "lumen_cuda_image_wrap", "device_ptr 0");
    expect(lumen_cuda_image_wrap(NULL, 4096, 4, 4, 3, 8, &img), LUMEN_ERROR_INVALID_ARGUMENT,
           "lumen_cuda_image_wrap", "pitch < row");
    expect(lumen_cuda_image_device_ptr(NULL, NULL, &ptr, NULL), LUMEN_ERROR_INVALID_ARGUMENT,
           "lumen_cuda_image_device_ptr", "NULL image");
    if (lumen_backend_available(LUMEN_BACKEND_CUDA) == LUMEN_OK) return;
    expect(lumen_cuda_context_create(NULL, &ctx), LUMEN_ERROR_BACKEND_UNAVAILABLE,
           "lumen_cuda_context_create", "no GPU");
    CHECK(ctx == NULL, "context made without a GPU");
    expect(lumen_cuda_image_wrap(NULL, 4096, 4, 4, 1, 4, &img), LUMEN_ERROR_BACKEND_UNAVAILABLE,
           "lumen_cuda_image_wrap", "no GPU");
    expect(lumen_cuda_image_device_ptr(NULL, dst.img, &ptr, NULL), LUMEN_ERROR_BACKEND_UNAVAILABLE,
           "lumen_cuda_image_device_ptr", "no GPU");
}

/* Backends that are not there: a status, never an abort. */
static void backends(void) {
    t_image src = t_image_new(16, 8, 3, 0, 1);
    for (lumen_backend b = LUMEN_BACKEND_CUDA; b <= LUMEN_BACKEND_OPENCL; b++) {
        lumen_context *ctx = NULL;
        CHECK_OK(lumen_context_create(b, &ctx));
        lumen_status st = lumen_levels(ctx, src.img, dst.img, 1, 0);
        printf("%s backend here: %s (%s)\n", lumen_backend_name(b), lumen_status_string(st),
               lumen_last_error());
        if (st != LUMEN_OK) {
            CHECK(st == LUMEN_ERROR_BACKEND_UNAVAILABLE || st == LUMEN_ERROR_DEVICE, "%s: %s",
                  lumen_backend_name(b), lumen_status_string(st));
            CHECK(lumen_last_error()[0] != '\0', "no message");
        }
        memset(dst.mem, T_CANARY, dst.ref.stride * dst.ref.h);
        lumen_context_destroy(ctx);
    }
    t_image_free(&src);
}

int main(void) {
    t_seed();
    dst = t_image_new(16, 8, 3, 0, 0);
    statuses();
    queries();
    contexts();
    images();
    pipelines();
    if (!getenv("LUMEN_TEST_QUICK")) { /* GPU drivers (PoCL) are too much for valgrind */
        cuda_interop();
        backends();
    }
    t_image_free(&dst);
    return t_summary();
}
