/* Images: host memory described by a halide_buffer_t, plus where the newest pixels live. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#if LUMEN__HAVE_CUDA
#  include <HalideRuntimeCuda.h>
#endif
#if LUMEN__HAVE_OPENCL
#  include <HalideRuntimeOpenCL.h>
#endif

enum { ROW_ALIGN = 64 };

const struct halide_device_interface_t *lumen__device_interface(lumen_backend backend) {
    switch (backend) {
#if LUMEN__HAVE_CUDA
        case LUMEN_BACKEND_CUDA:
            return halide_cuda_device_interface();
#endif
#if LUMEN__HAVE_OPENCL
        case LUMEN_BACKEND_OPENCL:
            return halide_opencl_device_interface();
#endif
        default:
            return NULL;
    }
}

static lumen_backend backend_of(const struct halide_device_interface_t *iface) {
    for (int b = LUMEN_BACKEND_CUDA; b <= LUMEN_BACKEND_OPENCL; b++) {
        if (iface && iface == lumen__device_interface((lumen_backend)b)) return (lumen_backend)b;
    }
    return LUMEN_BACKEND_CPU;
}

static int device_dirty(const lumen_image *img) {
    return (img->buf.flags & halide_buffer_flag_device_dirty) != 0;
}

static void set_flag(lumen_image *img, uint64_t flag, int on) {
    img->buf.flags = on ? (img->buf.flags | flag) : (img->buf.flags & ~flag);
}

/* Bytes per element (the Halide buffer's strides count elements). */
static size_t elem(const lumen_image *img) { return img->buf.type.bits / 8u; }

/* Bytes from the first element to the last (interleaved or planar). */
static size_t image_bytes(const lumen_image *img) {
    size_t span = 1;
    for (int i = 0; i < 3; i++)
        span += (size_t)(img->dim[i].extent - 1) * (size_t)img->dim[i].stride;
    return span * elem(img);
}

static int is_planar(lumen_format format) { return ((unsigned)format & LUMEN_FORMAT_PLANAR) != 0; }

/* Width, height, channels and stride (named `stride_name` in messages) within what Halide's
 * 32-bit buffers can address, checked in the order lumen.h documents. */
static lumen_status check_size(lumen__call *call, int w, int h) {
    if (w < 1 || w > LUMEN_MAX_DIMENSION) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "width %d outside 1..%d", w,
                           LUMEN_MAX_DIMENSION);
    }
    if (h < 1 || h > LUMEN_MAX_DIMENSION) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "height %d outside 1..%d", h,
                           LUMEN_MAX_DIMENSION);
    }
    return LUMEN_OK;
}

lumen_status lumen__check_geometry(lumen__call *call, int w, int h, int c, int elem_size,
                                   size_t stride, const char *stride_name) {
    lumen_status st = check_size(call, w, h);
    if (st) return st;
    if (c != 1 && c != 3 && c != 4) {
        return lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT, "channels %d (1, 3 or 4 taken)",
                           c);
    }
    size_t row = (size_t)w * (size_t)c * (size_t)elem_size;
    if (stride < row) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "%s %zu < width * channels%s = %zu",
                           stride_name, stride, elem_size > 1 ? " * element size" : "", row);
    }
    if (stride % (size_t)elem_size) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "%s %zu is not a multiple of the element size %d", stride_name, stride,
                           elem_size);
    }
    /* Halide's pipelines check height * stride (not the last row's end) against 2^31 - 1. */
    if (stride > (size_t)LUMEN_MAX_BYTES || (size_t)h * stride > (size_t)LUMEN_MAX_BYTES) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "width %d, height %d, channels %d, %s %zu: height * %s over 2^31 - 1 "
                           "bytes",
                           w, h, c, stride_name, stride, stride_name);
    }
    return LUMEN_OK;
}

void lumen__buffer_init(halide_buffer_t *b, void *host, int bits, int dimensions,
                        halide_dimension_t *dim, uint64_t flags) {
    *b = (halide_buffer_t){0};
    b->host = (uint8_t *)host;
    b->type.code = halide_type_uint;
    b->type.bits = (uint8_t)bits;
    b->type.lanes = 1;
    b->dimensions = dimensions;
    b->dim = dim;
    b->flags = flags;
}

lumen_status lumen__new_image(lumen__call *call, uint8_t *data, void *owned, int w, int h, int c,
                              int elem_size, size_t stride, lumen_image **out) {
    lumen_image *img = (lumen_image *)calloc(1, sizeof *img);
    if (!img) {
        free(owned);
        return lumen__fail(call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for an image");
    }
    img->dim[0].extent = c;
    img->dim[0].stride = 1;
    img->dim[1].extent = w;
    img->dim[1].stride = c;
    img->dim[2].extent = h;
    img->dim[2].stride = (int32_t)(stride / (size_t)elem_size);
    /* host dirty: the caller may have written it */
    lumen__buffer_init(&img->buf, data, 8 * elem_size, 3, img->dim, halide_buffer_flag_host_dirty);
    if (elem_size == 4) img->buf.type.code = halide_type_float;
    img->owned = owned;
    img->format = (lumen_format)c;
    *out = img;
    return LUMEN_OK;
}

/* width, height, then the format checked as lumen.h orders it; its channel count in *c. */
static lumen_status check_format(lumen__call *call, int w, int h, lumen_format format, int *c) {
    *c = lumen_format_channels(format);
    lumen_status st = *c ? LUMEN_OK : check_size(call, w, h);
    if (!*c && !st) {
        st = lumen__fail(call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                         "format 0x%x is not a lumen_format (GRAY, RGB, RGBA, BGR, BGRA in 8, 16 "
                         "or F32, the last four also _PLANAR)",
                         (unsigned)format);
    }
    return st;
}

/* A planar image's rows (as a 1-channel image's) and planes (plane_stride 0: height * stride),
 * checked as lumen.h orders it. */
static lumen_status check_planes(lumen__call *call, int w, int h, int c, int es, size_t stride,
                                 size_t *plane_stride) {
    lumen_status st = lumen__check_geometry(call, w, h, 1, es, stride, "stride");
    if (st) return st;
    size_t plane = *plane_stride ? *plane_stride : (size_t)h * stride;
    if (plane < (size_t)h * stride || plane % (size_t)es) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "plane_stride %zu: needs at least height * stride = %zu, a multiple of "
                           "the element size %d",
                           plane, (size_t)h * stride, es);
    }
    if (plane > (size_t)LUMEN_MAX_BYTES ||
        (size_t)(c - 1) * plane + (size_t)h * stride > (size_t)LUMEN_MAX_BYTES) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "%d planes of %zu bytes: over 2^31 - 1 bytes", c, plane);
    }
    *plane_stride = plane;
    return LUMEN_OK;
}

/* The new image img (of lumen__new_image) as format; planar: planes plane_stride bytes apart. */
static void set_format(lumen_image *img, lumen_format format, size_t plane_stride) {
    if (!format) return;
    img->format = format;
    if (is_planar(format)) {
        img->dim[0].stride = (int32_t)(plane_stride / elem(img));
        img->dim[1].stride = 1;
    }
}

static lumen_status create(lumen__call *call, int width, int height, int channels,
                           lumen_format format, lumen_image **out) {
    int es = format ? lumen_format_element_size(format) : 1, planar = is_planar(format);
    size_t row = width > 0 && channels > 0 ? (size_t)width * (size_t)es : 0;
    if (!planar) row *= (size_t)(channels > 0 ? channels : 0);
    size_t stride = (row + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN, plane = 0;
    lumen_status st =
        planar ? check_planes(call, width, height, channels, es, stride, &plane)
               : lumen__check_geometry(call, width, height, channels, es, stride, "stride");
    if (st) return st;
    size_t bytes = planar ? (size_t)channels * plane : stride * (size_t)height;
    void *owned = malloc(bytes + ROW_ALIGN);
    if (!owned) return lumen__fail(call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for pixels");
    uint8_t *data = (uint8_t *)owned + (ROW_ALIGN - (uintptr_t)owned % ROW_ALIGN) % ROW_ALIGN;
    st = lumen__new_image(call, data, owned, width, height, channels, es, stride, out);
    if (!st) set_format(*out, format, plane);
    return st;
}

static lumen_status wrap(lumen__call *call, void *data, int width, int height, int channels,
                         lumen_format format, size_t stride, size_t plane, lumen_image **out) {
    int es = format ? lumen_format_element_size(format) : 1;
    lumen_status st =
        is_planar(format)
            ? check_planes(call, width, height, channels, es, stride, &plane)
            : lumen__check_geometry(call, width, height, channels, es, stride, "stride");
    if (st) return st;
    if ((uintptr_t)data % (uintptr_t)es) {
        return lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "data %p is not aligned to the element size %d", data, es);
    }
    st = lumen__new_image(call, (uint8_t *)data, NULL, width, height, channels, es, stride, out);
    if (!st) set_format(*out, format, plane);
    return st;
}

lumen_status lumen_image_create(int width, int height, int channels, lumen_image **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_create", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    return create(&call, width, height, channels, (lumen_format)0, out);
}

lumen_status lumen_image_create_format(int width, int height, lumen_format format,
                                       lumen_image **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_create_format", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    int c;
    lumen_status st = check_format(&call, width, height, format, &c);
    return st ? st : create(&call, width, height, c, format, out);
}

lumen_status lumen_image_wrap(void *data, int width, int height, int channels, size_t stride,
                              lumen_image **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_wrap", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!data) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "data is NULL");
    return wrap(&call, data, width, height, channels, (lumen_format)0, stride, 0, out);
}

lumen_status lumen_image_wrap_format(void *data, int width, int height, lumen_format format,
                                     size_t stride, lumen_image **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_wrap_format", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!data) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "data is NULL");
    int c;
    lumen_status st = check_format(&call, width, height, format, &c);
    return st ? st : wrap(&call, data, width, height, c, format, stride, 0, out);
}

lumen_status lumen_image_wrap_planar(void *data, int width, int height, lumen_format format,
                                     size_t stride, size_t plane_stride, lumen_image **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_wrap_planar", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!data) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "data is NULL");
    int c;
    lumen_status st = check_format(&call, width, height, format, &c);
    if (!st) st = check_size(&call, width, height);
    if (!st && !is_planar(format)) {
        st = lumen__fail(&call, LUMEN_ERROR_UNSUPPORTED_FORMAT,
                         "format %s is not planar (RGB8_PLANAR .. BGRAF32_PLANAR taken)",
                         lumen_format_name(format));
    }
    if (!st && !plane_stride) /* 0 would mean "back to back" inside wrap: never the caller's */
        st = lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "plane_stride is 0");
    return st ? st : wrap(&call, data, width, height, c, format, stride, plane_stride, out);
}

/* A format's parts: channels (1, 3, 4), BGR order, element type (0: 8-bit, 1: 16-bit, 2: float)
 * (and the planar flag, 3 or 4 channels only); 0 if the value is not a lumen_format. */
static int format_parts(lumen_format format, int *bgr, int *type) {
    unsigned f = (unsigned)format, c = f & 0xff, planar = (f >> 16) & 1;
    *bgr = (f >> 8) & 0xf, *type = (f >> 12) & 0xf;
    int ok = (f >> 17) == 0 && *bgr <= 1 && *type <= 2 && (c == 1 || c == 3 || c == 4) &&
             !(c == 1 && (*bgr || planar));
    return ok ? (int)c : 0;
}

int lumen_format_channels(lumen_format format) {
    int bgr, type;
    return format_parts(format, &bgr, &type);
}

int lumen_format_element_size(lumen_format format) {
    int bgr, type;
    return format_parts(format, &bgr, &type) ? 1 << type : 0;
}

const char *lumen_format_name(lumen_format format) {
    static const char *const names[3][2][5] = {
        {{"", "GRAY8", "", "RGB8", "RGBA8"}, {"", "", "", "BGR8", "BGRA8"}},
        {{"", "GRAY16", "", "RGB16", "RGBA16"}, {"", "", "", "BGR16", "BGRA16"}},
        {{"", "GRAYF32", "", "RGBF32", "RGBAF32"}, {"", "", "", "BGRF32", "BGRAF32"}}};
    static const char *const planar[3][2][5] = {
        {{"", "", "", "RGB8_PLANAR", "RGBA8_PLANAR"}, {"", "", "", "BGR8_PLANAR", "BGRA8_PLANAR"}},
        {{"", "", "", "RGB16_PLANAR", "RGBA16_PLANAR"},
         {"", "", "", "BGR16_PLANAR", "BGRA16_PLANAR"}},
        {{"", "", "", "RGBF32_PLANAR", "RGBAF32_PLANAR"},
         {"", "", "", "BGRF32_PLANAR", "BGRAF32_PLANAR"}}};
    int bgr, type, c = format_parts(format, &bgr, &type);
    return !c ? "unknown" : is_planar(format) ? planar[type][bgr][c] : names[type][bgr][c];
}

/* Transfers, counted against the context `ctx`. */
static size_t pixel_bytes(const lumen_image *img) {
    return (size_t)img->dim[0].extent * (size_t)img->dim[1].extent * (size_t)img->dim[2].extent *
           elem(img);
}

lumen_status lumen__ensure_host(lumen__call *call, lumen_image *img) {
    if (img->buf.host) return LUMEN_OK;
    size_t bytes = (size_t)img->dim[2].stride * (size_t)img->dim[2].extent * elem(img);
    if (image_bytes(img) > bytes) bytes = image_bytes(img); /* planar */
    img->owned = malloc(bytes + ROW_ALIGN);
    if (!img->owned) return lumen__fail(call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for pixels");
    img->buf.host =
        (uint8_t *)img->owned + (ROW_ALIGN - (uintptr_t)img->owned % ROW_ALIGN) % ROW_ALIGN;
    return LUMEN_OK;
}

lumen_status lumen__to_host(lumen__call *call, lumen_image *img, lumen_context *ctx) {
    lumen_status st = lumen__ensure_host(call, img);
    if (st || !device_dirty(img)) return st;
    int rc;
    LUMEN__HALIDE_CALL(rc, halide_copy_to_host(call, &img->buf));
    st = lumen__halide_status(call, rc);
    if (!st) {
        lumen__count(&ctx->stats.downloads, 1);
        lumen__count(&ctx->stats.download_bytes, pixel_bytes(img));
    }
    return st;
}

lumen_status lumen__free_device(lumen__call *call, lumen_image *img, lumen_context *ctx) {
    if (!img->buf.device) return LUMEN_OK;
#if LUMEN__HAVE_CUDA
    if (img->device_ptr) { /* the caller's memory: let go of it, never free it */
        img->device_ptr = 0;
        int rc;
        LUMEN__HALIDE_CALL(rc, halide_cuda_detach_device_ptr(call, &img->buf));
        return lumen__halide_status(call, rc);
    }
#endif
    int rc;
    LUMEN__HALIDE_CALL(rc, halide_device_free(call, &img->buf));
    lumen_status st = lumen__halide_status(call, rc);
    if (!st) lumen__count(&ctx->stats.device_frees, 1);
    return st;
}

lumen_context *lumen__owner(const lumen_image *img) {
    return img->owner ? img->owner : lumen__default_context();
}

void lumen__set_owner(lumen_image *img, lumen_context *ctx) {
    if (img->owner == ctx) return;
    lumen__context_release(img->owner);
    img->owner = lumen__context_retain(ctx);
}

static void free_image(lumen_image *img) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_destroy", img->owner);
    call.backend = lumen_image_location(img);
    lumen__free_device(&call, img, lumen__owner(img));
    lumen__context_release(img->owner);
    free(img->owned);
    free(img);
}

/* A root's memory lives while it or a view of it does: its count of live views drops by one
 * per view destroyed and by one when it is destroyed itself; the call that takes it below 0 frees.
 */
void lumen_image_destroy(lumen_image *img) {
    if (!img) return;
    lumen_image *root = img->root ? img->root : img;
    if (img != root) free(img);
    if (__atomic_sub_fetch(&root->views, 1, __ATOMIC_ACQ_REL) < 0) free_image(root);
}

lumen_status lumen_image_view(lumen_image *img, int x, int y, int width, int height, unsigned flags,
                              lumen_image **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_view", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!img) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "img is NULL");
    int w = lumen_image_width(img), h = lumen_image_height(img);
    if (width < 1 || height < 1 || x < 0 || y < 0 || x > w - width || y > h - height) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "the rectangle %dx%d at (%d, %d) is not inside img (%dx%d)", width,
                           height, x, y, w, h);
    }
    if (flags & ~(unsigned)LUMEN_VIEW_ISOLATED) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "flags 0x%x (LUMEN_VIEW_ISOLATED taken)", flags);
    }
    lumen_image *v = (lumen_image *)calloc(1, sizeof *v);
    if (!v) return lumen__fail(&call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for a view");
    lumen_image *root = img->root ? img->root : img;
    *v = *root;
    v->buf.dim = v->dim;
    v->buf.device = 0;
    v->buf.device_interface = NULL;
    v->buf.flags = 0;
    v->owned = NULL;
    v->device_ptr = 0;
    v->owner = NULL;
    v->views = 0;
    v->root = root;
    v->x0 = (img->root ? img->x0 : 0) + x;
    v->y0 = (img->root ? img->y0 : 0) + y;
    v->dim[1].extent = width;
    v->dim[2].extent = height;
    if (flags & LUMEN_VIEW_ISOLATED) {
        v->clamp[0] = v->x0, v->clamp[1] = v->y0;
        v->clamp[2] = v->x0 + width, v->clamp[3] = v->y0 + height;
    } else if (img->root) {
        memcpy(v->clamp, img->clamp, sizeof v->clamp);
    } else {
        v->clamp[0] = v->clamp[1] = 0, v->clamp[2] = w, v->clamp[3] = h;
    }
    v->buf.host = NULL; /* derived from the root's: lumen__host */
    __atomic_add_fetch(&root->views, 1, __ATOMIC_ACQ_REL);
    *out = v;
    return LUMEN_OK;
}

uint8_t *lumen__host(const lumen_image *img) {
    const lumen_image *r = img->root;
    if (!r || !r->buf.host) return img->buf.host;
    return r->buf.host + ((size_t)img->y0 * (size_t)r->dim[2].stride +
                          (size_t)img->x0 * (size_t)r->dim[1].stride) *
                             elem(r);
}

int lumen_image_width(const lumen_image *img) { return img ? img->dim[1].extent : 0; }
int lumen_image_height(const lumen_image *img) { return img ? img->dim[2].extent : 0; }
int lumen_image_channels(const lumen_image *img) { return img ? img->dim[0].extent : 0; }
size_t lumen_image_stride(const lumen_image *img) {
    return img ? (size_t)img->dim[2].stride * elem(img) : 0;
}
size_t lumen_image_plane_stride(const lumen_image *img) {
    return img && is_planar(img->format) ? (size_t)img->dim[0].stride * elem(img) : 0;
}
lumen_format lumen_image_format(const lumen_image *img) {
    return img ? img->format : (lumen_format)0;
}

lumen_backend lumen_image_location(const lumen_image *img) {
    if (img && img->root) img = img->root;
    return img && device_dirty(img) ? backend_of(img->buf.device_interface) : LUMEN_BACKEND_CPU;
}

lumen_status lumen_image_map(lumen_image *img, lumen_access access, uint8_t **data) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_map", NULL);
    if (data) *data = NULL;
    if (!img || !data) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "%s is NULL", img ? "data" : "img");
    }
    if (access < LUMEN_ACCESS_READ || access > LUMEN_ACCESS_READ_WRITE) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "unknown access %d", (int)access);
    }
    lumen_image *view = img->root ? img : NULL;
    if (view) img = img->root;
    call.ctx = lumen__owner(img);
    call.backend = lumen_image_location(img);
    lumen_status st = lumen__to_host(&call, img, lumen__owner(img));
    if (st) return st;
    if (access & LUMEN_ACCESS_WRITE) set_flag(img, halide_buffer_flag_host_dirty, 1);
    *data = lumen__host(view ? view : img);
    return LUMEN_OK;
}

lumen_status lumen_image_sync(lumen_image *img) {
    lumen__call call;
    lumen__begin(&call, "lumen_image_sync", NULL);
    if (!img) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "img is NULL");
    if (img->root) img = img->root;
    if (!img->buf.device) return LUMEN_OK;
    call.ctx = lumen__owner(img);
    call.backend = backend_of(img->buf.device_interface);
    int rc;
    LUMEN__HALIDE_CALL(rc, halide_device_sync(&call, &img->buf));
    return lumen__halide_status(&call, rc);
}

lumen_status lumen__check_image(lumen__call *call, const lumen_image *img, const char *name) {
    return img ? LUMEN_OK : lumen__fail(call, LUMEN_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
}

int lumen__overlap(const lumen_image *a, const lumen_image *b) {
    if (a == b) return 1;
    if (a->device_ptr && b->device_ptr) /* both over caller's CUDA memory */
        return a->device_ptr < b->device_ptr + image_bytes(b) &&
               b->device_ptr < a->device_ptr + image_bytes(a);
    const uint8_t *a0 = lumen__host(a), *b0 = lumen__host(b);
    return a0 && b0 && a0 < b0 + image_bytes(b) && b0 < a0 + image_bytes(a);
}

int lumen__overlap_memory(const lumen_image *img, const void *p, size_t n) {
    const uint8_t *a = lumen__host(img), *b = (const uint8_t *)p;
    return a && b && a < b + n && b < a + image_bytes(img);
}

lumen_status lumen__choose(lumen__call *call, const lumen_image *src, lumen_backend *backend) {
    lumen_backend b = call->ctx->policy;
    if (b == LUMEN_BACKEND_AUTO) {
        b = lumen_image_location(src); /* CPU for NULL; a view's root's */
        if (b == LUMEN_BACKEND_CPU) b = lumen__preferred();
    }
    call->backend = b;
    *backend = b;
    if (b != LUMEN_BACKEND_CPU && !lumen__device_interface(b)) {
        return lumen__fail(call, LUMEN_ERROR_BACKEND_UNAVAILABLE,
                           "Lumen was built without the %s backend", lumen_backend_name(b));
    }
    return lumen__probe(call, b);
}

lumen_status lumen__on_device(lumen__call *call, lumen_image *img, int overwrite) {
    const struct halide_device_interface_t *iface = lumen__device_interface(call->backend);
    lumen_context *ctx = call->ctx;
    lumen_status st = LUMEN_OK;
    if (img->buf.device && img->buf.device_interface != iface) {
        if (overwrite)
            set_flag(img, halide_buffer_flag_device_dirty, 0);
        else if ((st = lumen__to_host(call, img, lumen__owner(img))))
            return st;
        if ((st = lumen__free_device(call, img, lumen__owner(img)))) return st;
        set_flag(img, halide_buffer_flag_host_dirty, 1);
    }
    int rc = 0;
    if (!img->buf.device) {
        LUMEN__HALIDE_CALL(rc, halide_device_malloc(call, &img->buf, iface));
        if ((st = lumen__halide_status(call, rc))) return st;
        lumen__count(&ctx->stats.device_allocations, 1);
        set_flag(img, halide_buffer_flag_host_dirty, 1); /* the host is all there is */
    }
    /* overwrite: not uploaded; the output, once written, is the newest (lumen__device_written) */
    if (!overwrite && (img->buf.flags & halide_buffer_flag_host_dirty)) {
        LUMEN__HALIDE_CALL(rc, halide_copy_to_device(call, &img->buf, iface));
        if ((st = lumen__halide_status(call, rc))) return st;
        lumen__count(&ctx->stats.uploads, 1);
        lumen__count(&ctx->stats.upload_bytes, pixel_bytes(img));
    }
    lumen__set_owner(img, ctx);
    return LUMEN_OK;
}

void lumen__device_written(lumen_image *img) {
    set_flag(img, halide_buffer_flag_host_dirty, 0);
    set_flag(img, halide_buffer_flag_device_dirty, 1);
}

lumen_status lumen__prepare(lumen__call *call, lumen_image *src, lumen_image *dst,
                            lumen_backend *backend) {
    lumen_status st = lumen__choose(call, src, backend);
    return st ? st : lumen__place(call, src, dst);
}

lumen_status lumen__place(lumen__call *call, lumen_image *src, lumen_image *dst) {
    const struct halide_device_interface_t *iface = lumen__device_interface(call->backend);
    lumen_status st;
    lumen_context *ctx = call->ctx;
    if (!iface && ((src && (st = lumen__ensure_host(call, src))) ||
                   (dst && (st = lumen__ensure_host(call, dst)))))
        return st;
    /* Source: newest pixels to where they are needed. Halide uploads a host-dirty input itself;
     * memory on another device is released so Halide never switches a buffer's interface. */
    if (src && src->buf.device && src->buf.device_interface != iface) {
        if ((st = lumen__to_host(call, src, ctx))) return st;
        if (iface) {
            if ((st = lumen__free_device(call, src, ctx))) return st;
            set_flag(src, halide_buffer_flag_host_dirty, 1);
        }
    }
    if (dst && dst != src) {
        /* Destination: fully overwritten, so its old pixels are dropped, not copied. */
        if (dst->buf.device && dst->buf.device_interface != iface && iface) {
            set_flag(dst, halide_buffer_flag_device_dirty, 0);
            if ((st = lumen__free_device(call, dst, ctx))) return st;
        }
        set_flag(dst, iface ? halide_buffer_flag_host_dirty : halide_buffer_flag_device_dirty, 0);
    }
    call->src = src;
    call->dst = dst;
    call->src_flags = src ? src->buf.flags : 0;
    call->src_device = src ? src->buf.device : 0;
    call->dst_device = dst ? dst->buf.device : 0;
    lumen__pool_enter();
    return LUMEN_OK;
}

lumen_status lumen__finish(lumen__call *call, int code) {
    /* The wait for a CPU OpenCL device's queue is driver work: inside the call lock, so the exit
     * fence cannot let Halide's exit-time teardown run under it. */
    if (call->backend == LUMEN_BACKEND_OPENCL) lumen__opencl_after_call();
    lumen__pool_leave();
    lumen_status st = lumen__halide_status(call, code);
    lumen_image *src = call->src, *dst = call->dst;
    if (call->backend == LUMEN_BACKEND_CPU) {
        if (!st && dst) set_flag(dst, halide_buffer_flag_host_dirty, 1); /* newer than any copy */
        return st;
    }
    lumen__exit_fence_renew(call->function, call->backend);
    /* What the Halide call moved, even if it failed part-way. */
    lumen_context *ctx = call->ctx;
    if (src && (call->src_flags & halide_buffer_flag_host_dirty) &&
        !(src->buf.flags & halide_buffer_flag_host_dirty)) {
        lumen__count(&ctx->stats.uploads, 1);
        lumen__count(&ctx->stats.upload_bytes, pixel_bytes(src));
    }
    if (src && !call->src_device && src->buf.device)
        lumen__count(&ctx->stats.device_allocations, 1);
    if (dst && dst != src && !call->dst_device && dst->buf.device)
        lumen__count(&ctx->stats.device_allocations, 1);
    if (src && src->buf.device) lumen__set_owner(src, ctx);
    if (dst && dst->buf.device) lumen__set_owner(dst, ctx);
    return st;
}
