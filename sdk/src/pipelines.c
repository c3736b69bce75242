/* The public pipeline functions: validate, pick a backend, call the Halide pipeline. */
#include "internal.h"

#include <math.h>
#include <stdbool.h>

#include "lumen__gaussian_blur_cpu.h"
#include "lumen__grayscale_cpu.h"
#include "lumen__levels_cpu.h"
#include "lumen__resize_cpu.h"
#include "lumen__sobel_cpu.h"
#include "lumen__unsharp_mask_cpu.h"

/* Each pipeline's Halide functions by backend (index = lumen_backend); NULL = not built. */
#if LUMEN__HAVE_CUDA
#  define LUMEN__CUDA(p) lumen__##p##_cuda
#  include "lumen__gaussian_blur_cuda.h"
#  include "lumen__grayscale_cuda.h"
#  include "lumen__levels_cuda.h"
#  include "lumen__resize_cuda.h"
#  include "lumen__sobel_cuda.h"
#  include "lumen__unsharp_mask_cuda.h"
#else
#  define LUMEN__CUDA(p) NULL
#endif
#if LUMEN__HAVE_OPENCL
#  define LUMEN__OPENCL(p) lumen__##p##_opencl
#  include "lumen__gaussian_blur_opencl.h"
#  include "lumen__grayscale_opencl.h"
#  include "lumen__levels_opencl.h"
#  include "lumen__resize_opencl.h"
#  include "lumen__sobel_opencl.h"
#  include "lumen__unsharp_mask_opencl.h"
#else
#  define LUMEN__OPENCL(p) NULL
#endif
#define LUMEN__TABLE(p) \
  { NULL, lumen__##p##_cpu, LUMEN__CUDA(p), LUMEN__OPENCL(p) }

typedef struct halide_buffer_t buf_t;

enum { ANY_CHANNELS = (1 << 1) | (1 << 3) | (1 << 4) };

/* What a pipeline requires of its images. */
typedef struct {
    unsigned src_channels; /* bit mask of accepted source channel counts */
    int dst_channels;      /* 0: same as the source */
    int same_size;
    int in_place; /* src and dst may be the same pixels */
} shape;

static lumen_status check(lumen__call *call, const lumen_image *src, const lumen_image *dst,
                          shape s) {
    lumen_status st = lumen__check_image(call, src, "src");
    if (!st) st = lumen__check_image(call, dst, "dst");
    if (st) return st;
    int sc = lumen_image_channels(src), dc = lumen_image_channels(dst);
    if (!(s.src_channels & (1u << sc))) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT, "src has %d channels", sc);
    }
    int want = s.dst_channels ? s.dst_channels : sc;
    if (dc != want) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "dst has %d channels, needs %d", dc,
                           want);
    }
    if (!s.dst_channels && dst->format != src->format) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "dst is %s, needs src's format %s",
                           lumen_format_name(dst->format), lumen_format_name(src->format));
    }
    if (s.same_size && (lumen_image_width(src) != lumen_image_width(dst) ||
                        lumen_image_height(src) != lumen_image_height(dst))) {
        return lumen__fail(call, LUMEN_ERROR_SIZE_MISMATCH, "src is %dx%d but dst is %dx%d",
                           lumen_image_width(src), lumen_image_height(src), lumen_image_width(dst),
                           lumen_image_height(dst));
    }
    int same = src->buf.host == dst->buf.host && lumen_image_stride(src) == lumen_image_stride(dst);
    if (lumen__overlap(src, dst) && !(s.in_place && same)) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "src and dst overlap%s",
                           s.in_place ? " (other than exactly)" : "");
    }
    return LUMEN_OK;
}

static lumen_status check_sigma(lumen__call *call, float sigma) {
    if (!(sigma >= LUMEN_SIGMA_MIN && sigma <= LUMEN_SIGMA_MAX)) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "sigma %g outside [%g, %g]",
                           (double)sigma, (double)LUMEN_SIGMA_MIN, (double)LUMEN_SIGMA_MAX);
    }
    return LUMEN_OK;
}

/* The Q16 taps as a 1-D Halide buffer. */
typedef struct {
    uint16_t taps[LUMEN__MAX_TAPS];
    halide_dimension_t dim;
    buf_t buf;
    int radius;
} taps_t;

static void make_taps(taps_t *t, float sigma) {
    t->radius = lumen__gaussian_taps(sigma, t->taps);
    t->dim = (halide_dimension_t){0, 2 * t->radius + 1, 1, 0};
    t->buf = (buf_t){0};
    t->buf.host = (uint8_t *)t->taps;
    t->buf.type.code = halide_type_uint;
    t->buf.type.bits = 16;
    t->buf.type.lanes = 1;
    t->buf.dimensions = 1;
    t->buf.dim = &t->dim;
    t->buf.flags = halide_buffer_flag_host_dirty;
}

/* A GPU run copies the taps to the device: free that copy. */
static lumen_status release_taps(lumen__call *call, taps_t *t, lumen_status st) {
    if (t->buf.device) {
        int rc = halide_device_free(call, &t->buf);
        if (!st) st = lumen__halide_status(call, rc);
    }
    return st;
}

/* Checks, then picks the backend (b) and moves the images where it needs them. */
#define LUMEN__START(fn, shape_)                    \
  lumen__call call;                                 \
  lumen__begin(&call, fn, ctx);                     \
  lumen_backend b;                                  \
  lumen_status st = check(&call, src, dst, shape_); \
  if (st) return st

#define LUMEN__PREPARE() \
  if ((st = lumen__prepare(&call, src, dst, &b))) return st

/* v in Q12 fixed point, rounded half up. */
static int32_t q12(float v) { return (int32_t)floor((double)v * 4096.0 + 0.5); }

lumen_status lumen_levels(lumen_context *ctx, lumen_image *src, lumen_image *dst, float gain,
                          float bias) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(levels);
    LUMEN__START("lumen_levels", ((shape){ANY_CHANNELS, 0, 1, 1}));
    if (!(fabsf(gain) <= LUMEN_GAIN_MAX && fabsf(bias) <= LUMEN_BIAS_MAX)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "gain %g, bias %g: need |gain| <= %g, |bias| <= %g", (double)gain,
                           (double)bias, (double)LUMEN_GAIN_MAX, (double)LUMEN_BIAS_MAX);
    }
    LUMEN__PREPARE();
    return lumen__finish(&call, fns[b](&call, &src->buf, q12(gain), q12(bias), &dst->buf));
}

lumen_status lumen_grayscale(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    typedef int (*fn_t)(const void *, buf_t *, bool, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(grayscale);
    LUMEN__START("lumen_grayscale", ((shape){(1 << 3) | (1 << 4), 1, 1, 0}));
    LUMEN__PREPARE();
    bool bgr = src->format == LUMEN_FORMAT_BGR8 || src->format == LUMEN_FORMAT_BGRA8;
    return lumen__finish(&call, fns[b](&call, &src->buf, bgr, &dst->buf));
}

lumen_status lumen_gaussian_blur(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                 float sigma) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(gaussian_blur);
    LUMEN__START("lumen_gaussian_blur", ((shape){ANY_CHANNELS, 0, 1, 0}));
    if ((st = check_sigma(&call, sigma))) return st;
    LUMEN__PREPARE();
    taps_t t;
    make_taps(&t, sigma);
    st = lumen__finish(&call, fns[b](&call, &src->buf, &t.buf, t.radius, &dst->buf));
    return release_taps(&call, &t, st);
}

lumen_status lumen_resize(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    typedef int (*fn_t)(const void *, buf_t *, int32_t, int32_t, bool, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(resize);
    LUMEN__START("lumen_resize", ((shape){ANY_CHANNELS, 0, 0, 0}));
    LUMEN__PREPARE();
    int w = lumen_image_width(dst), h = lumen_image_height(dst);
    /* Exact doubling on the CPU: dst as (pixel pairs, w / 2, h), so the pipeline's vectors of
     * even and odd columns are dense stores (the generator's `pairs`). */
    bool pairs = b == LUMEN_BACKEND_CPU && w == 2 * lumen_image_width(src) &&
                 h == 2 * lumen_image_height(src);
    buf_t out = dst->buf;
    halide_dimension_t dim[3] = {dst->dim[0], dst->dim[1], dst->dim[2]};
    if (pairs) {
        dim[0].extent *= 2;
        dim[1].extent /= 2;
        dim[1].stride *= 2;
        out.dim = dim;
    }
    int rc = fns[b](&call, &src->buf, w, h, pairs, pairs ? &out : &dst->buf);
    return lumen__finish(&call, rc);
}

lumen_status lumen_sobel(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(sobel);
    LUMEN__START("lumen_sobel", ((shape){1 << 1, 1, 1, 0}));
    LUMEN__PREPARE();
    return lumen__finish(&call, fns[b](&call, &src->buf, &dst->buf));
}

lumen_status lumen_unsharp_mask(lumen_context *ctx, lumen_image *src, lumen_image *dst, float sigma,
                                float amount) {
    typedef int (*fn_t)(const void *, buf_t *, buf_t *, int32_t, int32_t, buf_t *);
    static const fn_t fns[] = LUMEN__TABLE(unsharp_mask);
    LUMEN__START("lumen_unsharp_mask", ((shape){ANY_CHANNELS, 0, 1, 0}));
    if ((st = check_sigma(&call, sigma))) return st;
    if (!(amount >= 0.0f && amount <= LUMEN_AMOUNT_MAX)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "amount %g outside [0, %g]",
                           (double)amount, (double)LUMEN_AMOUNT_MAX);
    }
    LUMEN__PREPARE();
    taps_t t;
    make_taps(&t, sigma);
    st = lumen__finish(&call, fns[b](&call, &src->buf, &t.buf, t.radius, q12(amount), &dst->buf));
    return release_taps(&call, &t, st);
}
