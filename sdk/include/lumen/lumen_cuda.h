/** @file
 * Lumen CUDA interop. No CUDA headers needed: CUcontext and CUstream are passed as void *,
 * CUdeviceptr as uint64_t. Lumen runs its CUDA work in the device's PRIMARY context (the one the
 * CUDA runtime API uses, so memory from cudaMalloc works) or in a context the caller gives; never
 * in a private context of its own. */
#ifndef LUMEN_LUMEN_CUDA_H
#define LUMEN_LUMEN_CUDA_H

#include "lumen/lumen.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where lumen_cuda_context_create binds: zero-initialise, then set what you need. */
typedef struct lumen_cuda_options {
    int device;    /**< device index, used when context is NULL (default 0) */
    void *context; /**< a caller's CUcontext, or NULL: the device's primary context */
    void *stream;  /**< a caller's CUstream (in that context), or NULL: the default stream */
} lumen_cuda_options;

/** A context with policy LUMEN_BACKEND_CUDA bound to a device / context / stream (options NULL:
 * device 0, its primary context, the default stream). The caller's CUcontext and CUstream must
 * outlive the Lumen context and every image it leaves on the device.
 * options->device is ignored when options->context is set. Errors, checked in this order:
 *   INVALID_ARGUMENT      out NULL, options->device < 0
 *   BACKEND_UNAVAILABLE   not built with CUDA, no driver or device
 *   INVALID_ARGUMENT      options->device >= the number of devices (known only to the driver)
 *   DEVICE                the primary context could not be retained
 *   OUT_OF_MEMORY */
LUMEN_API lumen_status lumen_cuda_context_create(const lumen_cuda_options *options,
                                                 lumen_context **out);

/** An image over the caller's device memory (device_ptr, pitch = bytes between rows), in the CUDA
 * context of ctx (NULL: the default context's, i.e. device 0's primary context). Its pixels are
 * taken as the newest; host memory is allocated only if the image is mapped or used on the CPU.
 * Destroying it never frees the caller's memory. Errors, checked in this order (the arguments as
 * for lumen_image_wrap, pitch for stride, before the driver):
 *   INVALID_ARGUMENT      out NULL, device_ptr 0; width, then height, out of range
 *   UNSUPPORTED_FORMAT    channels not 1, 3 or 4
 *   INVALID_ARGUMENT      pitch < width * channels; pitch or the image over 2^31 - 1 bytes
 *   BACKEND_UNAVAILABLE, DEVICE, OUT_OF_MEMORY */
LUMEN_API lumen_status lumen_cuda_image_wrap(lumen_context *ctx, uint64_t device_ptr, int width,
                                             int height, int channels, size_t pitch,
                                             lumen_image **out);

/** The CUdeviceptr holding the image's newest pixels and its pitch in bytes; uploads the image to
 * CUDA first if it is not there (in the context of the last CUDA call on it, else ctx's).
 * pitch may be NULL. On failure *device_ptr and *pitch are 0.
 * Errors: INVALID_ARGUMENT (img NULL, device_ptr NULL, img a view), BACKEND_UNAVAILABLE, OUT_OF_MEMORY (the
 * image's pixels on another GPU backend, to be moved through host memory), DEVICE. */
LUMEN_API lumen_status lumen_cuda_image_device_ptr(lumen_context *ctx, lumen_image *img,
                                                   uint64_t *device_ptr, size_t *pitch);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_LUMEN_CUDA_H */
