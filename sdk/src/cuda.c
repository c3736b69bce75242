/* CUDA interop: Halide's CUDA context and stream hooks read the call's context, so Lumen's CUDA
 * work runs in the device's primary context or the caller's, on the caller's stream. */
#include "internal.h"

#include <stdlib.h>

#include "lumen/lumen_cuda.h"

#if LUMEN__HAVE_CUDA
#  include <HalideRuntimeCuda.h>

static lumen_context *context_of(void *user_context) {
    lumen__call *call = (lumen__call *)user_context;
    return call && call->ctx ? call->ctx : lumen__default_context();
}

static int acquire_context(void *user_context, void **cu_context, bool create) {
    (void)create;
    lumen_context *ctx = context_of(user_context);
    if (ctx->cuda_context) {
        *cu_context = ctx->cuda_context;
        return 0;
    }
    int rc = lumen__cuda_primary_context(ctx->cuda_device, cu_context);
    if (rc && user_context) halide_error(user_context, "CUDA: cuDevicePrimaryCtxRetain failed");
    return rc;
}

static int release_context(void *user_context) {
    (void)user_context;
    return 0; /* primary contexts stay retained; callers' contexts are theirs */
}

static int get_stream(void *user_context, void *cu_context, void **stream) {
    (void)cu_context;
    *stream = context_of(user_context)->cuda_stream;
    return 0;
}

void lumen__cuda_install_hooks(void) {
    halide_set_cuda_acquire_context(acquire_context);
    halide_set_cuda_release_context(release_context);
    halide_set_cuda_get_stream(get_stream);
}
#else
void lumen__cuda_install_hooks(void) {}
#endif

lumen_status lumen_cuda_context_create(const lumen_cuda_options *options, lumen_context **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_cuda_context_create", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    lumen_cuda_options o = {0, NULL, NULL};
    if (options) o = *options;
    /* Arguments first; the device count needs the driver. */
    if (!o.context && o.device < 0) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "options->device %d < 0", o.device);
    }
    lumen_status st = lumen__probe(&call, LUMEN_BACKEND_CUDA);
    if (st) return st;
    if (!o.context && o.device >= lumen__cuda_device_count()) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "options->device %d, but %d CUDA devices", o.device,
                           lumen__cuda_device_count());
    }
    void *primary = NULL;
    if (!o.context && lumen__cuda_primary_context(o.device, &primary)) {
        return lumen__fail(&call, LUMEN_ERROR_DEVICE, "cannot retain device %d's primary context",
                           o.device);
    }
    if ((st = lumen_context_create(LUMEN_BACKEND_CUDA, out))) return st;
    (*out)->cuda_device = o.device;
    (*out)->cuda_context = o.context;
    (*out)->cuda_stream = o.stream;
    return LUMEN_OK;
}

lumen_status lumen_cuda_image_wrap(lumen_context *ctx, uint64_t device_ptr, int width, int height,
                                   int channels, size_t pitch, lumen_image **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_cuda_image_wrap", ctx);
    call.backend = LUMEN_BACKEND_CUDA;
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!device_ptr) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "device_ptr is 0");
    lumen_status st = lumen__check_geometry(&call, width, height, channels, 1, pitch, "pitch");
    if (!st) st = lumen__probe(&call, LUMEN_BACKEND_CUDA);
    if (st) return st;
#if LUMEN__HAVE_CUDA
    lumen_image *img = NULL;
    if ((st = lumen__new_image(&call, NULL, NULL, width, height, channels, 1, pitch, &img))) return st;
    img->buf.flags = halide_buffer_flag_device_dirty; /* the caller's pixels are the newest */
    int rc;
    LUMEN__HALIDE_CALL(rc, halide_cuda_wrap_device_ptr(&call, &img->buf, device_ptr));
    st = lumen__halide_status(&call, rc);
    if (st) {
        free(img);
        return st;
    }
    img->device_ptr = device_ptr;
    lumen__set_owner(img, call.ctx);
    *out = img;
    return LUMEN_OK;
#else
    return LUMEN_ERROR_INTERNAL; /* lumen__probe fails first */
#endif
}

lumen_status lumen_cuda_image_device_ptr(lumen_context *ctx, lumen_image *img,
                                         uint64_t *device_ptr, size_t *pitch) {
    lumen__call call;
    lumen__begin(&call, "lumen_cuda_image_device_ptr", ctx);
    call.backend = LUMEN_BACKEND_CUDA;
    if (device_ptr) *device_ptr = 0;
    if (pitch) *pitch = 0;
    if (!img || !device_ptr) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "%s is NULL",
                           img ? "device_ptr" : "img");
    }
    if (img->root) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "img is a view (it has no device memory of its own)");
    }
    lumen_status st = lumen__probe(&call, LUMEN_BACKEND_CUDA);
    if (st) return st;
#if LUMEN__HAVE_CUDA
    const struct halide_device_interface_t *cuda = halide_cuda_device_interface();
    if (img->owner && img->owner->policy == LUMEN_BACKEND_CUDA) call.ctx = img->owner;
    if (img->buf.device && img->buf.device_interface != cuda) { /* on another backend */
        if ((st = lumen__to_host(&call, img, call.ctx))) return st;
        if ((st = lumen__free_device(&call, img, call.ctx))) return st;
        img->buf.flags |= halide_buffer_flag_host_dirty;
    }
    int had_device = img->buf.device != 0;
    int dirty = (img->buf.flags & halide_buffer_flag_host_dirty) != 0;
    int rc;
    LUMEN__HALIDE_CALL(rc, halide_copy_to_device(&call, &img->buf, cuda));
    st = lumen__halide_status(&call, rc);
    if (st) return st;
    if (!had_device) lumen__count(&call.ctx->stats.device_allocations, 1);
    if (dirty) {
        lumen__count(&call.ctx->stats.uploads, 1);
        lumen__count(&call.ctx->stats.upload_bytes, (uint64_t)lumen_image_width(img) *
                                                        lumen_image_height(img) *
                                                        lumen_image_channels(img));
    }
    lumen__set_owner(img, call.ctx);
    *device_ptr = (uint64_t)halide_cuda_get_device_ptr(&call, &img->buf);
    if (pitch) *pitch = lumen_image_stride(img);
    return LUMEN_OK;
#else
    (void)pitch;
    return LUMEN_ERROR_INTERNAL;
#endif
}
