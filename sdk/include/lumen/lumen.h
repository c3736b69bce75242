/** @file
 * Lumen: image processing pipelines built with Halide, behind a small C API.
 *
 * Images are 1 = gray, 3 = RGB or BGR, 4 = RGBA or BGRA channels of 8-bit, 16-bit or float
 * elements, interleaved or (since 1.5) planar, with any row stride: see lumen_format.
 * Every function that can fail returns a lumen_status; on failure nothing is written to the
 * destination image, output pointers (out, data, device_ptr, pitch) are set to NULL / 0 where the
 * caller passed them, and lumen_last_error() holds a message for the calling thread that starts
 * with the function's name and names the offending argument ("lumen_gaussian_blur: sigma 0.2
 * outside [0.5, 16]"). Arguments are checked, in the order listed under "Errors:", before any
 * backend or driver is touched: INVALID_ARGUMENT, UNSUPPORTED_FORMAT and SIZE_MISMATCH come
 * before BACKEND_UNAVAILABLE and DEVICE. Lumen never prints and never aborts. All functions are
 * thread-safe; one image must not be used by two calls at the same time. */
#ifndef LUMEN_LUMEN_H
#define LUMEN_LUMEN_H

#include <stddef.h>
#include <stdint.h>

#include "lumen/version.h"

#if defined(_WIN32) && !defined(LUMEN_STATIC)
#  if defined(LUMEN_BUILDING)
#    define LUMEN_API __declspec(dllexport)
#  else
#    define LUMEN_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && defined(LUMEN_BUILDING)
#  define LUMEN_API __attribute__((visibility("default")))
#else
#  define LUMEN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ------------------------------------------------------------------------------ */

/** LUMEN_VERSION_NUMBER of the library actually loaded (may differ from the header's). */
LUMEN_API unsigned lumen_version(void);
/** "MAJOR.MINOR.PATCH" of the library actually loaded. */
LUMEN_API const char *lumen_version_string(void);
/** The version of Halide the library's pipelines and runtime were built with, e.g. "21.0.0"
 * (since 1.1). */
LUMEN_API const char *lumen_halide_version(void);

/* ---- Status and errors -------------------------------------------------------------------- */

/** What every function that can fail returns: LUMEN_OK or the kind of error (details in
 * lumen_last_error()). */
typedef enum lumen_status {
    LUMEN_OK = 0,                       /**< success */
    LUMEN_ERROR_INVALID_ARGUMENT = 1,   /**< NULL pointer, bad size or stride, value out of range */
    LUMEN_ERROR_UNSUPPORTED_FORMAT = 2, /**< channels not 1, 3 or 4 (also 0 or negative), a
                                         * channel count the operation does not take, or a file
                                         * format lumen_io cannot read or write */
    LUMEN_ERROR_SIZE_MISMATCH = 3,      /**< destination does not fit the source */
    LUMEN_ERROR_OUT_OF_MEMORY = 4,      /**< an allocation failed */
    LUMEN_ERROR_BACKEND_UNAVAILABLE = 5, /**< backend not built in, or no driver / device */
    LUMEN_ERROR_DEVICE = 6,              /**< a GPU driver call failed */
    LUMEN_ERROR_INTERNAL = 7,            /**< a Halide error Lumen did not expect */
    LUMEN_ERROR_IO = 8,                  /**< a file cannot be opened, read or written (since 1.2,
                                          * lumen_io) */
    LUMEN_ERROR_CORRUPT_DATA = 9         /**< a file's content is truncated or damaged (since 1.2,
                                          * lumen_io) */
} lumen_status;

/** A static, human-readable name for a status ("ok", "invalid argument", ...). */
LUMEN_API const char *lumen_status_string(lumen_status status);
/** The message of the last failed Lumen call on this thread, "" after a successful one.
 * Valid until the next Lumen call on this thread. */
LUMEN_API const char *lumen_last_error(void);

/* ---- Contexts: where pipelines run -------------------------------------------------------- */

/** Where pipelines run: a context's policy, and where an image's newest pixels are. */
typedef enum lumen_backend {
    LUMEN_BACKEND_AUTO = 0, /**< the device the source lives on, else lumen_backend_preferred() */
    LUMEN_BACKEND_CPU = 1,
    LUMEN_BACKEND_CUDA = 2,
    LUMEN_BACKEND_OPENCL = 3
} lumen_backend;

/** "auto", "cpu", "cuda", "opencl", or NULL for an unknown value. */
LUMEN_API const char *lumen_backend_name(lumen_backend backend);
/** 1 if the library was built with pipelines for this backend (AUTO and CPU: always). */
LUMEN_API int lumen_backend_compiled(lumen_backend backend);
/** LUMEN_OK if calls forced onto this backend can run here; else BACKEND_UNAVAILABLE with the
 * reason in lumen_last_error() (e.g. "libcuda.so.1 not found", "no OpenCL device"). CUDA needs
 * the driver, a device (CUDA_VISIBLE_DEVICES is honoured) and compute capability >= the PTX's;
 * OpenCL needs any OpenCL device. Probed once per process.
 * Errors: INVALID_ARGUMENT (unknown backend), BACKEND_UNAVAILABLE. */
LUMEN_API lumen_status lumen_backend_available(lumen_backend backend);
/** The backend LUMEN_BACKEND_AUTO uses for images in host memory: CUDA when usable, else OpenCL
 * if it has a GPU device (CPU OpenCL devices such as PoCL do not count), else the CPU. The first
 * call probes the drivers: CUDA first (about 0.1 ms without libcuda), OpenCL only when CUDA is
 * not usable. Where an OpenCL driver is registered, that probe loads it: with PoCL 3.1 about
 * 30 ms (it loads LLVM), while an empty ICD registry costs about 0.2 ms. The first call of a
 * pipeline on an AUTO context (NULL included) pays this once; a CPU context, or LUMEN_BACKEND=cpu
 * for the default context, never probes. */
LUMEN_API lumen_backend lumen_backend_preferred(void);
/** The devices a GPU backend sees, e.g. "1 device: NVIDIA H200", "" if none (static string). */
LUMEN_API const char *lumen_backend_devices(lumen_backend backend);
/** The Halide targets compiled in for a backend, comma-separated (CPU: best first), "" if none. */
LUMEN_API const char *lumen_compiled_targets(lumen_backend backend);

/** An opaque context: a backend policy and its transfer counters (lumen_context_create). */
typedef struct lumen_context lumen_context;

/** A context with a backend policy. Passing NULL as a context anywhere means the default context,
 * whose policy is LUMEN_BACKEND_AUTO unless the environment variable LUMEN_BACKEND
 * (auto|cpu|cuda|opencl, read once at the first Lumen call) says otherwise; an empty value counts
 * as unset, any other value is ignored (the policy stays AUTO) and reported by
 * lumen_config_warning(). A forced GPU backend that is not usable here makes each call fail with
 * BACKEND_UNAVAILABLE (see lumen_backend_available).
 * Errors: INVALID_ARGUMENT (out NULL, policy not a lumen_backend), OUT_OF_MEMORY. */
LUMEN_API lumen_status lumen_context_create(lumen_backend policy, lumen_context **out);
/** NULL is ignored. Images that still hold device memory keep the context alive until they are
 * destroyed. */
LUMEN_API void lumen_context_destroy(lumen_context *ctx);
/** The policy ctx was created with (NULL: the default context's). */
LUMEN_API lumen_backend lumen_context_policy(const lumen_context *ctx);

/** "" if Lumen's environment variables are fine, else what is wrong with them, e.g.
 * "LUMEN_BACKEND='bogus' is not one of auto, cpu, cuda, opencl" (several joined by "; "). An
 * invalid LUMEN_BACKEND or LUMEN_MAX_CPU_ISA is ignored, as if unset; this is the only place it
 * shows (Lumen never prints). Read once, at the first Lumen call. Static string (since 1.2). */
LUMEN_API const char *lumen_config_warning(void);

/** Pixel transfers between host and device memory made by a context's calls (and by
 * lumen_image_map / lumen_image_destroy on images a context's call left on a device). Kernel
 * parameters (e.g. blur taps, < 200 bytes) are not counted. */
typedef struct lumen_transfer_stats {
    uint64_t uploads;            /**< host -> device copies of an image */
    uint64_t downloads;          /**< device -> host copies of an image */
    uint64_t upload_bytes;       /**< bytes of the uploads */
    uint64_t download_bytes;     /**< bytes of the downloads */
    uint64_t device_allocations; /**< images given device memory */
    uint64_t device_frees;       /**< images' device memory released */
} lumen_transfer_stats;

/** Errors: INVALID_ARGUMENT (out NULL). NULL ctx = the default context. */
LUMEN_API lumen_status lumen_context_stats(const lumen_context *ctx, lumen_transfer_stats *out);
/** Sets ctx's counters to 0 (NULL: the default context's). */
LUMEN_API void lumen_context_reset_stats(lumen_context *ctx);

/** Border modes: how a pipeline reads outside its source (OpenCV's BORDER_* names and values,
 * its borderInterpolate; since 1.7, REFLECT, WRAP and REFLECT_101 since 1.10). Pixels of a row
 * abcdefgh, and what lies left | right of it: */
typedef enum lumen_border {
    LUMEN_BORDER_CONSTANT = 0,   /**< iiiiii|abcdefgh|iiiiiii, i a value given with it */
    LUMEN_BORDER_REPLICATE = 1,  /**< aaaaaa|abcdefgh|hhhhhhh, the nearest edge pixel */
    LUMEN_BORDER_REFLECT = 2,    /**< fedcba|abcdefgh|hgfedcb */
    LUMEN_BORDER_WRAP = 3,       /**< cdefgh|abcdefgh|abcdefg */
    LUMEN_BORDER_REFLECT_101 = 4 /**< gfedcb|abcdefgh|gfedcba: OpenCV's BORDER_DEFAULT */
} lumen_border;
/** The border of ctx's neighbourhood pipelines (since 1.10): lumen_gaussian_blur,
 * lumen_unsharp_mask, lumen_sobel, lumen_median, lumen_morphology, lumen_box_filter,
 * lumen_filter2d, lumen_sep_filter (and lumen_bilateral, since 1.11) read the pixels outside
 * their source as `border` says (the
 * same on every backend, exact: pixels are only moved), as OpenCV's functions do with a
 * borderType: a border wider than the image reflects (or wraps) again, and a 1-pixel row reflects
 * to itself. LUMEN_BORDER_CONSTANT reads value[k] for channel k (in the image's channel order;
 * value NULL: 0; 8- and 16-bit: rounded and saturated to the element's range). Each context
 * starts with LUMEN_BORDER_REPLICATE, the only border of the default context (NULL), and of every
 * pipeline before 1.10. A source view's border lies where it stops reading around itself (the
 * edges of its image, or its own with LUMEN_VIEW_ISOLATED). Other modes than REPLICATE cost a
 * copy of the source with its border (in host memory on the CPU, device memory on a GPU) per call,
 * and refuse (INVALID_ARGUMENT) a source whose copy would exceed LUMEN_MAX_BYTES. A two-step
 * lumen_morphology (OPEN, CLOSE, TOPHAT, BLACKHAT) applies such a border to its source: the
 * second step reads the first's result computed over the source and its border, as
 * cv::morphologyEx does on cv::copyMakeBorder's result (OpenCV applies the border to the first
 * result instead: the same result for REFLECT and REFLECT_101 with odd kw and kh; CONSTANT, WRAP
 * and even sizes can differ near the edges; REPLICATE is OpenCV's, as before). resize,
 * lumen_resize_interp and lumen_warp_affine (its own border) keep theirs. Set it before calls
 * on ctx run, not during them. Errors: INVALID_ARGUMENT (ctx NULL, a border not listed, a value
 * not finite). */
LUMEN_API lumen_status lumen_context_set_border(lumen_context *ctx, lumen_border border,
                                                const float value[4]);
/** ctx's border (NULL: the default context's, REPLICATE); value, when not NULL, receives its
 * constant values (since 1.10). */
LUMEN_API lumen_border lumen_context_border(const lumen_context *ctx, float value[4]);

/** Device memory freed by images is kept for reuse (the runtime's cache); this returns the cached
 * memory of every backend to its driver. Host buffers that pipelines use inside a call are kept
 * for reuse too (up to 32 MiB in all since 1.8, 64 MiB since 1.10); this frees them as well.
 * Errors: DEVICE. */
LUMEN_API lumen_status lumen_release_device_memory(void);

/* ---- Images ------------------------------------------------------------------------------- */

/** An opaque image: 1, 3 or 4 channels of 8-bit (or, since 1.4, 16-bit or float) elements,
 * interleaved or (since 1.5) planar, in host or device memory. */
typedef struct lumen_image lumen_image;

/** Largest accepted width and height. An image must also have height * stride <= LUMEN_MAX_BYTES
 * (Halide's buffers use 32-bit offsets); lumen_image_create's stride is width * channels rounded
 * up to a multiple of 64. Every pipeline, on every backend, runs on any image within these
 * limits (INVALID_ARGUMENT beyond them). */
#define LUMEN_MAX_DIMENSION 65535
#define LUMEN_MAX_BYTES 2147483647 /**< 2^31 - 1 (since 1.1) */

/** Pixel formats (since 1.3): the channel order and element type of an image's interleaved
 * pixels. A format's low byte is its channel count (so the channel counts 1, 3 and 4 of
 * lumen_image_create and lumen_image_wrap are LUMEN_FORMAT_GRAY8, RGB8 and RGBA8), 0x100 marks
 * B, G, R order, 0x1000 16-bit unsigned and 0x2000 32-bit float elements (since 1.4). Every
 * pipeline that takes 3 or 4 channels takes both orders: lumen_grayscale weights each channel by
 * its colour, the others treat channels alike and need dst in src's format (SIZE_MISMATCH
 * otherwise). 16-bit and float images: lumen_levels, lumen_gaussian_blur, lumen_resize,
 * lumen_unsharp_mask (and since 1.5 lumen_flip, lumen_rotate and lumen_threshold, since 1.6
 * lumen_morphology and lumen_median, since 1.7 lumen_warp_affine and lumen_resize_interp's
 * nearest, since 1.11 lumen_bilateral) take them (dst of src's format);
 * lumen_grayscale, lumen_sobel and the YUV conversions return UNSUPPORTED_FORMAT for them. Planar
 * formats (since 1.5): LUMEN_FORMAT_PLANAR added to a 3- or 4-channel format (RGB8_PLANAR, ...,
 * BGRAF32_PLANAR) stores each channel as a plane of its own (plane k = the k-th channel of the
 * order, e.g. B for BGR; rows lumen_image_stride bytes apart within a plane, planes
 * lumen_image_plane_stride bytes apart): a CHW tensor's layout. lumen_levels, lumen_gaussian_blur,
 * lumen_resize, lumen_unsharp_mask, lumen_flip, lumen_rotate, lumen_threshold, lumen_morphology,
 * lumen_median, lumen_warp_affine, lumen_lut, lumen_histogram, lumen_resize_interp (and
 * lumen_box_filter, lumen_filter2d, lumen_sep_filter, lumen_bilateral) take them
 * (dst in src's format, planar too), with the results of the interleaved format plane by plane (on
 * a GPU as views: device crops, each plane's for OpenCL where the plane stride is a multiple of the
 * device's alignment, else through host memory); the other pipelines and the YUV conversions return
 * UNSUPPORTED_FORMAT for them. */
typedef enum lumen_format {
    LUMEN_FORMAT_GRAY8 = 1,
    LUMEN_FORMAT_RGB8 = 3,
    LUMEN_FORMAT_RGBA8 = 4,
    LUMEN_FORMAT_BGR8 = 0x103,    /**< B, G, R: OpenCV's order */
    LUMEN_FORMAT_BGRA8 = 0x104,   /**< B, G, R, A */
    LUMEN_FORMAT_GRAY16 = 0x1001, /**< 16-bit unsigned elements (since 1.4) */
    LUMEN_FORMAT_RGB16 = 0x1003,
    LUMEN_FORMAT_RGBA16 = 0x1004,
    LUMEN_FORMAT_BGR16 = 0x1103,
    LUMEN_FORMAT_BGRA16 = 0x1104,
    LUMEN_FORMAT_GRAYF32 = 0x2001, /**< 32-bit float elements, nominally 0..1 (since 1.4) */
    LUMEN_FORMAT_RGBF32 = 0x2003,
    LUMEN_FORMAT_RGBAF32 = 0x2004,
    LUMEN_FORMAT_BGRF32 = 0x2103,
    LUMEN_FORMAT_BGRAF32 = 0x2104,
    LUMEN_FORMAT_PLANAR = 0x10000, /**< a flag: one plane per channel (since 1.5) */
    LUMEN_FORMAT_RGB8_PLANAR = 0x10003,
    LUMEN_FORMAT_RGBA8_PLANAR = 0x10004,
    LUMEN_FORMAT_BGR8_PLANAR = 0x10103,
    LUMEN_FORMAT_BGRA8_PLANAR = 0x10104,
    LUMEN_FORMAT_RGB16_PLANAR = 0x11003,
    LUMEN_FORMAT_RGBA16_PLANAR = 0x11004,
    LUMEN_FORMAT_BGR16_PLANAR = 0x11103,
    LUMEN_FORMAT_BGRA16_PLANAR = 0x11104,
    LUMEN_FORMAT_RGBF32_PLANAR = 0x12003,
    LUMEN_FORMAT_RGBAF32_PLANAR = 0x12004,
    LUMEN_FORMAT_BGRF32_PLANAR = 0x12103,
    LUMEN_FORMAT_BGRAF32_PLANAR = 0x12104
} lumen_format;
/** The channel count of a format; 0 for a value that is none of the above. */
LUMEN_API int lumen_format_channels(lumen_format format);
/** Bytes per element (channel value) of a format: 1, 2 or 4; 0 for an unknown value (since 1.4).*/
LUMEN_API int lumen_format_element_size(lumen_format format);
/** "GRAY8", "RGB8", ..., "BGRAF32_PLANAR" (the enumerator without LUMEN_FORMAT_); "unknown" for
 * any other value (LUMEN_FORMAT_PLANAR alone and GRAY with it included). */
LUMEN_API const char *lumen_format_name(lumen_format format);

/** An image owning its memory, rows aligned to 64 bytes, contents undefined.
 * Errors, checked in this order:
 *   INVALID_ARGUMENT     out NULL; width, then height, outside 1..LUMEN_MAX_DIMENSION
 *   UNSUPPORTED_FORMAT   channels not 1, 3 or 4 (0 and negative counts included)
 *   INVALID_ARGUMENT     the image over 2^31 - 1 bytes
 *   OUT_OF_MEMORY */
LUMEN_API lumen_status lumen_image_create(int width, int height, int channels, lumen_image **out);
/** An image over the caller's memory (kept by the caller, must outlive the image); stride is the
 * distance between rows in bytes, >= width * channels. Errors, checked in this order:
 *   INVALID_ARGUMENT     out NULL, data NULL; width, then height, out of range (as above)
 *   UNSUPPORTED_FORMAT   channels not 1, 3 or 4
 *   INVALID_ARGUMENT     stride < width * channels; stride or the image over 2^31 - 1 bytes */
LUMEN_API lumen_status lumen_image_wrap(void *data, int width, int height, int channels,
                                        size_t stride, lumen_image **out);
/** lumen_image_create with a pixel format (since 1.3): its errors, with UNSUPPORTED_FORMAT for a
 * format value not listed above (after width and height). Rows are width * channels * element
 * size bytes rounded up to a multiple of 64; for a planar format, width * element size rounded
 * up to 64, and the planes follow each other (plane stride = height * stride). */
LUMEN_API lumen_status lumen_image_create_format(int width, int height, lumen_format format,
                                                 lumen_image **out);
/** lumen_image_wrap with a pixel format (since 1.3): its errors, with UNSUPPORTED_FORMAT for a
 * format value not listed above (after width and height); stride (bytes) must be at least width *
 * channels * element size and a multiple of the element size, data aligned to it. */
LUMEN_API lumen_status lumen_image_wrap_format(void *data, int width, int height,
                                               lumen_format format, size_t stride,
                                               lumen_image **out);
/** A planar image over the caller's memory (since 1.5): plane k starts at data + k *
 * plane_stride; rows are stride bytes apart within a plane. lumen_image_wrap_format takes planar
 * formats too, with plane_stride = height * stride (planes back to back, e.g. a CHW tensor).
 * Errors, checked in this order: INVALID_ARGUMENT (out NULL, data NULL; width, then height, out
 * of range); UNSUPPORTED_FORMAT (format not a planar lumen_format); INVALID_ARGUMENT (stride <
 * width * element size or not a multiple of it, data not aligned to it, plane_stride <
 * height * stride or not a multiple of the element size, (channels - 1) * plane_stride + height *
 * stride over 2^31 - 1 bytes). */
LUMEN_API lumen_status lumen_image_wrap_planar(void *data, int width, int height,
                                               lumen_format format, size_t stride,
                                               size_t plane_stride, lumen_image **out);
#define LUMEN_VIEW_ISOLATED 1u /**< lumen_image_view: neighbourhoods clamp at the view's edges */
/** A view (since 1.3): the width x height rectangle at (x, y) of img (an image or a view),
 * sharing its pixels: what is written through one is seen through the other. Every function
 * takes a view where it takes an image, with the view's size; its format and stride are img's.
 * A view keeps the pixels alive: img may be destroyed first (the memory goes with the last view).
 * The neighbourhood pipelines (gaussian_blur, unsharp_mask, sobel) read the pixels around a
 * source view, out to the edges of the image that owns the memory, and clamp only there, as
 * OpenCV does for a cv::Mat ROI; with LUMEN_VIEW_ISOLATED they clamp at the view's own edges (a
 * view of an isolated view, at that view's). resize and the point pipelines read only the view.
 * src and dst of one call may be views of one image when the pixels src reads (its rectangle,
 * grown by 1 for sobel and ceil(3 sigma) for gaussian_blur and unsharp_mask, within what it may
 * read) miss dst's rectangle (levels: or are exactly dst's). An image and its views count as one
 * image for thread safety. Views are zero-copy on the CPU and (since 1.5) on GPUs: a GPU call
 * works on a crop of the image's device memory (first uploading the whole image if its host
 * pixels are newer, as for any image), so chains through views stay on the device. OpenCL takes
 * a crop only where the first byte the call reads or writes is a multiple of the device's
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN (known after the process's first OpenCL call); there, and on
 * GPUs before 1.5, a call copies the view's pixels in (or its result out) through host memory.
 * lumen_cuda_image_device_ptr refuses views. Errors: INVALID_ARGUMENT (out NULL, img NULL, the
 * rectangle not inside img, flags other than LUMEN_VIEW_ISOLATED), OUT_OF_MEMORY. */
LUMEN_API lumen_status lumen_image_view(lumen_image *img, int x, int y, int width, int height,
                                        unsigned flags, lumen_image **out);
/** Frees the image and any device memory it holds (never the caller's memory). NULL is ignored. */
LUMEN_API void lumen_image_destroy(lumen_image *img);

LUMEN_API int lumen_image_width(const lumen_image *img);    /**< 0 for NULL */
LUMEN_API int lumen_image_height(const lumen_image *img);   /**< 0 for NULL */
LUMEN_API int lumen_image_channels(const lumen_image *img); /**< 0 for NULL */
/* lumen_image_map's pointer is to the first byte of the first row: cast it to uint16_t or float
 * for 16-bit and float formats (rows are lumen_image_stride bytes apart; for a planar format it
 * is plane 0's, plane k's is lumen_image_plane_stride * k bytes on). */
LUMEN_API size_t lumen_image_stride(const lumen_image *img); /**< bytes per row, 0 for NULL */
/** Bytes between the planes of a planar image (since 1.5); 0 for an interleaved one and NULL. */
LUMEN_API size_t lumen_image_plane_stride(const lumen_image *img);
/** The image's pixel format (since 1.3); 0 for NULL. */
LUMEN_API lumen_format lumen_image_format(const lumen_image *img);
/** Where the newest pixels are: LUMEN_BACKEND_CPU (host memory) or the GPU backend holding them.*/
LUMEN_API lumen_backend lumen_image_location(const lumen_image *img);

/** How lumen_image_map's caller will use the pixels. */
typedef enum lumen_access {
    LUMEN_ACCESS_READ = 1,
    LUMEN_ACCESS_WRITE = 2,
    LUMEN_ACCESS_READ_WRITE = 3
} lumen_access;

/** Host pointer to the pixels (row y starts at data + y * stride). Copies them back from a device
 * first when a GPU call left them there. With WRITE access the host copy becomes the newest, so a
 * later GPU call uploads it again: map with WRITE before changing pixels (also of wrapped memory).
 * Errors: INVALID_ARGUMENT (img NULL, data NULL, access not READ, WRITE or READ_WRITE),
 * OUT_OF_MEMORY (no host memory yet for an image wrapped over device memory), DEVICE (the copy
 * back failed). */
LUMEN_API lumen_status lumen_image_map(lumen_image *img, lumen_access access, uint8_t **data);
/** Waits until device work writing the image has finished (for timing; map waits by itself).
 * Errors: INVALID_ARGUMENT (img NULL), DEVICE. */
LUMEN_API lumen_status lumen_image_sync(lumen_image *img);

/* ---- Pipelines ---------------------------------------------------------------------------- *
 * Every pipeline returns, checked in this order (ctx NULL: the default context):
 *   INVALID_ARGUMENT      src, then dst, NULL
 *   UNSUPPORTED_FORMAT    src's channel count is not one the pipeline takes
 *   SIZE_MISMATCH         dst's channels, then format (channel order), then size, do not fit
 *                         src (as stated per pipeline)
 *   INVALID_ARGUMENT      src and dst memory overlap (only levels may run exactly in place)
 *   INVALID_ARGUMENT      a parameter out of its range, NaN or infinite, in argument order
 *                         (gain, bias; sigma, amount)
 *   BACKEND_UNAVAILABLE   the context's backend is not built in or not usable here
 *   DEVICE                a GPU driver call failed (copy, allocation, kernel)
 *   OUT_OF_MEMORY, INTERNAL  from the Halide runtime (not expected after the checks above)
 * On any failure dst's pixels are unchanged, except after DEVICE/INTERNAL errors on a GPU (and,
 * for planar images, run plane by plane, after OUT_OF_MEMORY: earlier planes may be written).
 * Integer arithmetic throughout: results are bit-exact across CPU variants and backends. */

#define LUMEN_GAIN_MAX 256.0f  /**< largest |gain| of lumen_levels */
#define LUMEN_BIAS_MAX 1024.0f /**< largest |bias| of lumen_levels */
/** dst = saturate(floor(g * src + b + 1/2)) on every channel (alpha too), with g = gain and
 * b = bias rounded (half up) to multiples of 1/4096 (Q12 fixed point, so results are exact on every
 * target). src: 1, 3 or 4 channels; dst: same size and format; src == dst (in place) allowed.
 * |gain| <= LUMEN_GAIN_MAX, |bias| <= LUMEN_BIAS_MAX. bias is in 8-bit units for every format:
 * 16-bit images (since 1.4) take dst = saturate(floor(g * src + 257 b + 1/2)) to 0..65535, in
 * 64-bit integers (exact); float images dst = gain * src + bias / 255 in float (no clamp; each
 * target within 1 float rounding of the real value). */
LUMEN_API lumen_status lumen_levels(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                    float gain, float bias);

/** (77 R + 150 G + 29 B + 128) >> 8 (BT.601; alpha ignored), R, G and B by src's format.
 * src: 3 or 4 channels (RGB8, RGBA8, BGR8, BGRA8); dst: same size, 1 channel. */
LUMEN_API lumen_status lumen_grayscale(lumen_context *ctx, lumen_image *src, lumen_image *dst);

#define LUMEN_SIGMA_MIN 0.5f  /**< smallest sigma (lumen_gaussian_blur, lumen_unsharp_mask) */
#define LUMEN_SIGMA_MAX 16.0f /**< largest sigma (lumen_gaussian_blur, lumen_unsharp_mask) */
/** Separable Gaussian, radius r = ceil(3 sigma), clamp-to-edge borders (or the context's:
 * lumen_context_set_border, as for every neighbourhood pipeline), in 16-bit integers:
 * taps w[-r..r] = the normalised Gaussian rounded to Q16 (the centre takes the rest, so they sum
 * to 65536); each pass (rows, then columns) maps Q7 values p (src << 7 for the first) to
 * q = (r + 1) / 2 + floor(w[0] p[0] / 65536) + sum_{j=1..r} floor(w[j] (p[-j] + p[j]) / 65536);
 * dst = min(255, (q + 64) >> 7). Within 1 of the ideal real-valued blur (0.72 seen in
 * tests/test_precision.c). src: 1, 3 or 4 channels; dst: same size and format;
 * sigma in [LUMEN_SIGMA_MIN, LUMEN_SIGMA_MAX]. 16-bit and float images (since 1.4), the same taps,
 * rows then columns, each pass over its input p (src, then the rows' result):
 * 16-bit: (w[0] p[0] + sum_{j=1..r} w[j] (p[-j] + p[j]) + 32768) >> 16, exact (32-bit sums);
 * float: w[0] p[0] + sum_{j=1..r} w[j] (p[-j] + p[j]) with taps w / 65536, j ascending, in float
 * (each target within 2^-16 relative of that sum in exact arithmetic, for values 0..1). */
LUMEN_API lumen_status lumen_gaussian_blur(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                           float sigma);

/** Bilinear resize to dst's size (any, up or down), pixel centres as OpenCV INTER_LINEAR, exact
 * integer weights (Q11). src: 1, 3 or 4 channels; dst: any size, same format. Output pixel (x, y)
 * blends source columns x0, x1 and rows y0, y1 with weights wx0 + wx1 = wy0 + wy1 = 2048:
 * 8- and 16-bit (since 1.4): (wy0 (wx0 p00 + wx1 p01) + wy1 (wx0 p10 + wx1 p11) + 2^21) >> 22,
 * exact (64-bit for 16-bit); float (since 1.4): rows first, v = (wy0 p0 + wy1 p1) / 2048 per
 * column, then (wx0 v0 + wx1 v1) / 2048, in float (within 2^-20 relative of the real value). */
LUMEN_API lumen_status lumen_resize(lumen_context *ctx, lumen_image *src, lumen_image *dst);

/** Resize methods of lumen_resize_interp (OpenCV's numbers; 4, OpenCV's Lanczos-4, is not
 * taken, and LANCZOS3 is Lumen's own). */
typedef enum lumen_interp {
    LUMEN_INTER_NEAREST = 0,  /**< nearest pixel centre, OpenCV INTER_NEAREST_EXACT's integers */
    LUMEN_INTER_LINEAR = 1,   /**< lumen_resize */
    LUMEN_INTER_CUBIC = 2,    /**< bicubic, OpenCV INTER_CUBIC's weights (since 1.9) */
    LUMEN_INTER_AREA = 3,     /**< area average (anti-aliased downscale), OpenCV INTER_AREA */
    LUMEN_INTER_LANCZOS3 = 64 /**< Lanczos-3, anti-aliased downscale, as Pillow's LANCZOS (1.9) */
} lumen_interp;

/** Resize to dst's size (any, up or down) by `interp` (since 1.7). src: 1, 3 or 4 channels;
 * dst: same format. Along an axis of `in` -> `out` pixels:
 * - NEAREST (any format, pixels moved as they are): the integers of OpenCV's resizeNN_bitexact
 *   (INTER_NEAREST_EXACT, pixel centres as Pillow): step = ((in << 16) + out / 2) / out, output
 *   i reads source min((step i + step / 2 - in % 2) >> 16, in - 1) (64-bit, 0 if negative).
 *   OpenCV 5's downscales equal it; its upscales take another path, and OpenCV 4.6 used
 *   step / 2 - 1 (bench/results.md).
 * - LINEAR: lumen_resize.
 * - AREA (8-bit): output i covers source [i in / out, (i + 1) in / out), each source pixel
 *   weighted by its overlap (upscales: 1 or 2 taps). Integer ratios (in = K out both ways,
 *   Kx Ky <= 65536): the block's sum s, (s + 2) >> 2 for 2x2, else round(float(s) *
 *   (1.0f / (Kx Ky))) ties to even: cv::resize INTER_AREA's integers. Other ratios: overlaps
 *   c_k of taps 0..k to Q weights by cumulative rounding, W_k = (c_k 2^Q + in / 2) / in (c in
 *   units of 1 / out source pixel), w_k = W_k - W_{k-1}; rows Q14 then v = (sum wy p + 32) >> 6,
 *   columns Q15, out = (sum wx v + 2^22) >> 23: within 1 of the real average (OpenCV's float
 *   weights: within 1 of it too), exact on every target.
 * - CUBIC (8- and 16-bit, since 1.9): cv::resize INTER_CUBIC's taps and 8-bit weights:
 *   fx = (float)((i + 0.5) s - 0.5) with s = 1 / (out / in) in double (OpenCV's scale),
 *   sx = floor(fx), taps sx - 1 .. sx + 2 (clamped into the source: replicate), weights
 *   round(2048 c_k) (ties to even) of OpenCV's interpolateCubic(fx - sx) (A = -0.75, in
 *   float); rows first, v = sum wy p, then out = saturate((sum wx v + 2^21) >> 22), exact.
 *   OpenCV's vectorized 8-bit path rounds its last step in float, so it may differ by 1.
 *   Downscales alias as OpenCV's do (4 taps per output whatever the ratio). 16-bit: below.
 * - LANCZOS3 (8- and 16-bit, since 1.9): Pillow's LANCZOS taps: with s = in / out, f = max(s, 1)
 *   and center = (i + 0.5) s, sources j in [floor(center - 3f + 0.5), floor(center + 3f + 0.5))
 *   inside the image, weighted L((j + 0.5 - center) / f), L(x) = sinc(x) sinc(x / 3) for |x| < 3
 *   (in double), normalised to sum 1 and rounded to Q14 by cumulative rounding (they sum to 2^14
 *   exactly, so flat areas stay flat); rows first, v = (sum wy p + 64) >> 7, then out =
 *   saturate((sum wx v + 2^20) >> 21), exact on every target; within 1 of the real-valued
 *   Lanczos-3 (clamped to the range). The support grows with the downscale ratio (anti-aliased:
 *   no aliasing at 1/8), and so does the cost, O(in / out) taps per output.
 * - CUBIC and LANCZOS3 on 16-bit: the same taps with weights in Q20 (cubic: round(2^20 c_k)),
 *   v = (sum wy p + 2^11) >> 12, out = saturate((sum wx v + 2^27) >> 28), in 64-bit integers:
 *   exact, within 1 of the real-valued result (OpenCV's 16-bit cubic has float weights).
 * Errors: those of every pipeline, INVALID_ARGUMENT for an interp not listed, UNSUPPORTED_FORMAT
 * for AREA on 16-bit or float and CUBIC, LANCZOS3 on float formats. */
LUMEN_API lumen_status lumen_resize_interp(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                           lumen_interp interp);

/** Gradient magnitude of a 1-channel src, 3x3 Sobel, clamp-to-edge (or the context's border):
 * min(255, floor(sqrt(gx^2 + gy^2) + 0.5)). src: 1 channel; dst: same size, 1 channel. */
LUMEN_API lumen_status lumen_sobel(lumen_context *ctx, lumen_image *src, lumen_image *dst);

#define LUMEN_AMOUNT_MAX 16.0f /**< largest amount of lumen_unsharp_mask */
/** dst = saturate(floor((q (4096 - A) + 128 A src + 2^18) / 2^19)) ~ b + a (src - b): q is the
 * blur of lumen_gaussian_blur before its last rounding (b = q / 128), A = amount in Q12 (a =
 * A / 4096, rounded half up). amount 1 returns src, > 1 sharpens, 0 blurs. Within 1 of the ideal
 * real-valued result for amount <= 2 (beyond: 1/2 + |1 - a| times the blur's error).
 * src: 1, 3 or 4 channels; dst: same size and format; sigma as for lumen_gaussian_blur,
 * amount in [0, LUMEN_AMOUNT_MAX]. 16-bit and float images (since 1.4), b their blur (as
 * lumen_gaussian_blur gives it): 16-bit dst = saturate(floor((b (4096 - A) + A src + 2048) /
 * 4096)), exact; float dst = b + amount (src - b), in float, no clamp. */
LUMEN_API lumen_status lumen_unsharp_mask(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                          float sigma, float amount);

/* ---- Geometry and thresholds, since 1.5 --------------------------------------------------- */

/** lumen_flip's directions (OpenCV cv::flip's flipCode 1, 0 and -1). */
typedef enum lumen_flip_mode {
    LUMEN_FLIP_HORIZONTAL = 1, /**< left-right: dst(x, y) = src(w - 1 - x, y) */
    LUMEN_FLIP_VERTICAL = 2,   /**< top-bottom: dst(x, y) = src(x, h - 1 - y) */
    LUMEN_FLIP_BOTH = 3        /**< both: dst(x, y) = src(w - 1 - x, h - 1 - y), rotation by 180 */
} lumen_flip_mode;
/** Mirrors src (w x h) into dst. src: any format (every element type, interleaved or planar);
 * dst: same size and format. Pixels are moved as they are. Errors: those of every pipeline, and
 * INVALID_ARGUMENT for a mode not listed. */
LUMEN_API lumen_status lumen_flip(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                  lumen_flip_mode mode);
/** Rotates src (w x h) clockwise by degrees = 90, 180 or 270 (OpenCV cv::rotate's
 * ROTATE_90_CLOCKWISE, ROTATE_180, ROTATE_90_COUNTERCLOCKWISE). 90: dst(x, y) = src(y, h - 1 - x);
 * 180: as LUMEN_FLIP_BOTH; 270: dst(x, y) = src(w - 1 - y, x). src: any format; dst: src's
 * format, h x w for 90 and 270 (else w x h). Errors: those of every pipeline (SIZE_MISMATCH by
 * those sizes; a degrees value not listed is checked against w x h), and INVALID_ARGUMENT for
 * degrees other than 90, 180 and 270. */
LUMEN_API lumen_status lumen_rotate(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                    int degrees);

/** lumen_warp_affine's flag: m maps dst to src (OpenCV's WARP_INVERSE_MAP). */
#define LUMEN_WARP_INVERSE_MAP 16
/** Affine warp, bilinear (cv::warpAffine with INTER_LINEAR; since 1.7): m = {m00, m01, m02, m10,
 * m11, m12} maps a src position to its dst position (x' = m00 x + m01 y + m02, y' = m10 x + m11 y +
 * m12; pixel centres at integer coordinates, as OpenCV), or with flags LUMEN_WARP_INVERSE_MAP a dst
 * position to the src position it reads; without the flag m is inverted first, in double, as
 * OpenCV does (cv::getRotationMatrix2D's matrix goes as it is). dst(x, y) interpolates src at
 * (sx, sy) = (i00 x + i01 y + i02, i10 x + i11 y + i12), i the inverse, in OpenCV's fixed point:
 * a = round(i00 x 1024), A = round((i01 y + i02) 1024) + 16 (round: to nearest, ties to even),
 * X = (a + A) >> 5, likewise Y from i10, i11, i12: taps X >> 5 and Y >> 5 and their right and
 * lower neighbours, weights (32 - fx, fx) x (32 - fy, fy) with fx = X & 31, fy = Y & 31 (1/32
 * pixel steps); 8- and 16-bit: (sum + 512) >> 10, exact; float: the weighted sum / 1024 in float.
 * Border: LUMEN_BORDER_REPLICATE clamps each tap to the image; LUMEN_BORDER_CONSTANT reads
 * value[k] for channel k of a tap outside (k in the image's channel order, B first for BGR; value
 * NULL: 0; 8- and 16-bit: rounded and saturated to the element's range), and a pixel whose four
 * taps are all outside is value itself. The same on every backend (8- and 16-bit bit-exact). src:
 * any format (interleaved or planar: per plane); a view is read as an image of its own (its
 * edges are the border); dst: any size, src's format, not overlapping src. Errors: those of every
 * pipeline, and INVALID_ARGUMENT for m NULL, not finite or singular (m00 m11 = m01 m10, without
 * the flag), flags other than 0 and LUMEN_WARP_INVERSE_MAP, a border not listed, or a value not
 * finite. */
LUMEN_API lumen_status lumen_warp_affine(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                         const double m[6], int flags, lumen_border border,
                                         const float value[4]);

/** lumen_threshold's rules, with gt = (v > t) (the values of OpenCV's THRESH_*). */
typedef enum lumen_threshold_type {
    LUMEN_THRESH_BINARY = 0,     /**< gt ? maxval : 0 */
    LUMEN_THRESH_BINARY_INV = 1, /**< gt ? 0 : maxval */
    LUMEN_THRESH_TRUNC = 2,      /**< gt ? t : v */
    LUMEN_THRESH_TOZERO = 3,     /**< gt ? v : 0 */
    LUMEN_THRESH_TOZERO_INV = 4  /**< gt ? 0 : v */
} lumen_threshold_type;
/** Thresholds every element v (every channel, alpha too, as cv::threshold). 8- and 16-bit:
 * t = floor(thresh) and maxval rounded half up and saturated to the element's range, a result
 * below 0 (TRUNC with t < 0) is 0: exact, as OpenCV's 8-bit threshold; float: t = thresh and
 * maxval as given. src: any format (interleaved or planar); dst: same size and format; src == dst
 * (in place) allowed. Errors: those of every pipeline, and INVALID_ARGUMENT for thresh or maxval
 * NaN or infinite, or a type not listed. */
LUMEN_API lumen_status lumen_threshold(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                       float thresh, float maxval, lumen_threshold_type type);

/* ---- Histograms and tables, since 1.7 ------------------------------------------------------ */

/** Per-channel histogram of an 8-bit image (cv::calcHist with 256 bins over [0, 256), one
 * channel at a time): counts[k * 256 + v] = the number of pixels whose channel k is v, for each
 * channel k of src (0 .. channels - 1, in the image's order; planar images too, per plane).
 * counts: 256 * channels entries, overwritten (on failure: unspecified). Computed in parallel
 * strips, then summed; on a GPU with atomic increments, the counts copied back. A view counts its
 * own pixels. Errors: those of every pipeline for src, INVALID_ARGUMENT for counts NULL,
 * UNSUPPORTED_FORMAT for 16-bit and float images. */
LUMEN_API lumen_status lumen_histogram(lumen_context *ctx, lumen_image *src, uint32_t *counts);
/** Table lookup (cv::LUT): dst element = table[k * 256 + v] for v the src element of channel k,
 * with table_channels = src's channel count (a table per channel), or table[v] for every channel
 * with table_channels = 1. 8-bit images (interleaved or planar: per plane); dst: same size and
 * format; src == dst (in place) allowed. Errors: those of every pipeline, INVALID_ARGUMENT for
 * table NULL or table_channels other than 1 and src's channel count, UNSUPPORTED_FORMAT for 16-bit
 * and float images. */
LUMEN_API lumen_status lumen_lut(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                 const uint8_t *table, int table_channels);
/** Histogram equalization of a gray 8-bit image (cv::equalizeHist, the same result): with h its
 * histogram, i the smallest value present and n the pixel count, value v becomes
 * round(s * (h[i + 1] + ... + h[v])) in float, s = 255 / (n - h[i]) as a float (ties to even;
 * i itself becomes 0); an image of one value i stays i. The histogram and the lookup run on the
 * context's backend (on a GPU only the 256 counts come back to the host). src: GRAY8; dst: same
 * size and format; src == dst allowed. Errors: those of every pipeline (UNSUPPORTED_FORMAT for
 * another format). */
LUMEN_API lumen_status lumen_equalize_hist(lumen_context *ctx, lumen_image *src, lumen_image *dst);

/* ---- Morphology and median, since 1.6 ----------------------------------------------------- */

/** lumen_morphology's operations (the values of OpenCV's MORPH_*). */
typedef enum lumen_morph_op {
    LUMEN_MORPH_ERODE = 0,    /**< erode(src): the window's minimum */
    LUMEN_MORPH_DILATE = 1,   /**< dilate(src): the window's maximum */
    LUMEN_MORPH_OPEN = 2,     /**< dilate(erode(src)) */
    LUMEN_MORPH_CLOSE = 3,    /**< erode(dilate(src)) */
    LUMEN_MORPH_GRADIENT = 4, /**< dilate(src) - erode(src) */
    LUMEN_MORPH_TOPHAT = 5,   /**< src - open(src) */
    LUMEN_MORPH_BLACKHAT = 6  /**< close(src) - src */
} lumen_morph_op;
/** The largest kernel width or height lumen_morphology takes. */
#define LUMEN_MORPH_MAX_KERNEL 255
/** Morphology with a kw x kh rectangle (cv::morphologyEx with getStructuringElement(MORPH_RECT)
 * and the default anchor, border and one iteration): the window of pixel (x, y) is
 * [x - kw/2, x - kw/2 + kw - 1] x [y - kh/2, y - kh/2 + kh - 1], pixels outside the image never
 * count (OpenCV's default border; here: clamped to the edge, the same result); a two-step
 * operation's second step reads the first's result the same way. Exact: elements are only
 * compared (float NaN elements: unspecified results), and differences of 8- and 16-bit elements
 * saturate at 0 (TOPHAT, BLACKHAT with an even kw or kh). Costs O(kw + kh) per pixel per step. src:
 * any format (interleaved or planar: per plane); dst: same size and format, not overlapping src. A
 * view reads around itself as lumen_gaussian_blur does (reach kw/2 and kh/2, twice that for OPEN,
 * CLOSE, TOPHAT, BLACKHAT). Errors: those of every pipeline, and INVALID_ARGUMENT for an op not
 * listed or kw, kh outside 1..LUMEN_MORPH_MAX_KERNEL. */
LUMEN_API lumen_status lumen_morphology(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                        lumen_morph_op op, int kw, int kh);
/** Median filter (cv::medianBlur): each element the median of its channel over the ksize x ksize
 * window (ksize 3 or 5) around its pixel, the window clamped to the edge (OpenCV's
 * BORDER_REPLICATE). Exact: elements are only compared (float NaN elements: unspecified results).
 * src: any format (interleaved or planar: per plane); dst: same size and format, not overlapping
 * src. A view reads around itself as lumen_gaussian_blur does (reach ksize / 2). Errors: those of
 * every pipeline, and INVALID_ARGUMENT for ksize other than 3 and 5. */
LUMEN_API lumen_status lumen_median(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                    int ksize);

/** The largest kernel width or height lumen_box_filter takes. */
#define LUMEN_BOX_MAX_KERNEL 255
/** Box filter, since 1.8 (cv::blur: cv::boxFilter normalized, default anchor, BORDER_REPLICATE):
 * each element the mean of its channel over the kw x kh window [x - kw/2, x - kw/2 + kw - 1] x
 * [y - kh/2, y - kh/2 + kh - 1], the window clamped to the edge. Exact: with S the window's
 * integer sum and n = kw * kh, the element is floor((S + floor(n / 2)) / n), S / n rounded half
 * up (OpenCV rounds half to even and may differ by 1 where S / n is within a float rounding of
 * k + 1/2). On the CPU the cost per pixel does not grow with kh, nor with kw past 24 (running
 * sums); on a GPU it is O(kw + kh). src: 8- or 16-bit formats (interleaved or planar: per plane);
 * dst: same size and format, not overlapping src. A view reads around itself as
 * lumen_gaussian_blur does (reach kw/2 and kh/2). Errors: those of every pipeline,
 * UNSUPPORTED_FORMAT for float formats and INVALID_ARGUMENT for kw, kh outside
 * 1..LUMEN_BOX_MAX_KERNEL. */
LUMEN_API lumen_status lumen_box_filter(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                        int kw, int kh);

/** The largest kernel width or height lumen_filter2d and lumen_sep_filter take. */
#define LUMEN_FILTER_MAX_KERNEL 15
/** The largest shift lumen_filter2d and lumen_sep_filter take. */
#define LUMEN_FILTER_MAX_SHIFT 30
/** Convolution with a caller's integer kernel, since 1.8 (cv::filter2D with the kernel
 * kernel[j * kw + i] / 2^shift, default anchor, BORDER_REPLICATE): with S the exact sum of
 * kernel[j * kw + i] * src(x - kw/2 + i, y - kh/2 + j) over the window (clamped to the edge), the
 * element is floor((S + 2^shift / 2) / 2^shift) (shift 0: S), saturated to the format's range:
 * taps in Q(shift) fixed point, rounded half up, the same on every backend. kw, kh: 1..
 * LUMEN_FILTER_MAX_KERNEL (even sizes: the window starts kw/2 left, kh/2 above); shift: 0..
 * LUMEN_FILTER_MAX_SHIFT. The sums are 32-bit: a kernel whose sum of |taps| times the format's
 * maximum (255, 65535), plus 2^shift / 2, reaches 2^31 is refused. Costs O(kw kh) per pixel.
 * src: 8- or 16-bit formats (interleaved or planar: per plane); dst: same size and format, not
 * overlapping src. A view reads around itself as lumen_gaussian_blur does (reach kw/2, kh/2).
 * Errors: those of every pipeline, UNSUPPORTED_FORMAT for float formats, INVALID_ARGUMENT for a
 * NULL kernel, kw, kh or shift out of range, or a kernel whose sums could overflow. */
LUMEN_API lumen_status lumen_filter2d(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                      const int16_t *kernel, int kw, int kh, int shift);
/** Separable convolution, since 1.8 (cv::sepFilter2D with kx / 2^shift... as one kernel): the
 * result of lumen_filter2d with the kernel kx[i] * ky[j] (its exact products, not limited to 16
 * bits), computed as row sums then column sums in O(kw + kh) per pixel. Refused (INVALID_ARGUMENT)
 * where the sum of |kx| times the sum of |ky| times the format's maximum, plus 2^shift / 2,
 * reaches 2^31; otherwise as lumen_filter2d (kx: kw taps, ky: kh taps). */
LUMEN_API lumen_status lumen_sep_filter(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                        const int16_t *kx, int kw, const int16_t *ky, int kh,
                                        int shift);

#define LUMEN_BILATERAL_SPACE_MIN 1.0f    /**< smallest sigma_space of lumen_bilateral (pixels) */
#define LUMEN_BILATERAL_SPACE_MAX 64.0f   /**< largest sigma_space of lumen_bilateral (pixels) */
#define LUMEN_BILATERAL_COLOR_MIN 4.0f    /**< smallest sigma_color (8-bit units, every format) */
#define LUMEN_BILATERAL_COLOR_MAX 4096.0f /**< largest sigma_color (8-bit units, every format) */
/** Edge-preserving smoothing by the bilateral grid, since 1.11 (Chen, Paris and Durand 2007, as
 * Halide's apps/bilateral_grid; an approximation of the bilateral filter with a Gaussian of
 * about 1.1 sigma_space in space and sigma_color in value). Each channel is filtered on its own
 * values: an element's key is its value in units of sigma_color (8-bit units for every format:
 * 16-bit elements count 1/257, float ones 255; keys clamp to 0..255 / sigma_color, so float
 * elements outside 0..1 are binned at the ends). The grid's cells are sigma_space pixels wide and
 * high, its bins one sigma_color deep: cell X takes the pixels in [(X - 1/2) sigma_space,
 * (X + 1/2) sigma_space) (y alike), bin z the keys in [z - 1/2, z + 1/2); each sums its elements
 * and counts them. The grid is blurred by [1 4 6 4 1] along z, x and y, then sampled
 * trilinearly (along y, x, z) at (x / sigma_space, y / sigma_space, key): the sum over the count,
 * 8- and 16-bit rounded to nearest (float NaN elements spread to their neighbours). Float
 * arithmetic in IEEE order (strict, no fused multiply-adds): every CPU variant gives the plain C
 * grid's result exactly (the tests' reference); a GPU is within 1 level (8- and 16-bit) or 2^-16
 * (float, values 0..1) of it. Costs O(1) per pixel for the splat and the sampling, whatever the
 * sigmas, plus the grid's blur: (width / sigma_space) x (height / sigma_space) x (255 /
 * sigma_color) cells of 2 floats per channel, computed on the CPU a strip at a time (each thread
 * holds 14 or more grid rows), on a GPU whole (three copies). So a small sigma_space and
 * sigma_color with a large image need much memory, and can fail with OUT_OF_MEMORY (or a device
 * error). Pixels outside the image are the context's border; the grid
 * reads 3.5 sigma_space + 2 around (a view reads its image there, as lumen_gaussian_blur does).
 * src: any format (interleaved or planar: per plane, the same result); dst: same size and
 * format, not overlapping src. Errors: those of every pipeline, INVALID_ARGUMENT for sigma_space
 * or sigma_color out of range. */
LUMEN_API lumen_status lumen_bilateral(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                       float sigma_space, float sigma_color);

/* ---- ML preprocessing, since 1.5 ---------------------------------------------------------- */

/** An 8-bit image (gray, RGB, RGBA, BGR or BGRA, interleaved) to a float tensor in one pass:
 * dst channel k = (r / 255 - mean[k]) / std[k], r the source channel of dst channel k's colour
 * (so a BGR image fills an RGB tensor in RGB order; alpha is dropped when dst has 3 channels),
 * resized to dst's size as lumen_resize's float path does (bilinear, OpenCV INTER_LINEAR pixel
 * centres; at src's size r is the value itself). Computed as r * s + o in float, with
 * s = 1 / (255 std[k]) and o = -mean[k] / std[k] rounded to float: within 2^-20 (1 + |r s| + |o|)
 * of the real value. dst: GRAYF32 from gray; RGBF32, BGRF32 (or their _PLANAR: CHW) from 3 or 4
 * channels; RGBAF32, BGRAF32 (or _PLANAR) from 4; any size. mean and std: dst's channel count of
 * values in dst's channel order (NULL: 0 and 1). Errors: INVALID_ARGUMENT (src, dst NULL);
 * UNSUPPORTED_FORMAT (src not 8-bit interleaved); SIZE_MISMATCH (dst not such a float format);
 * INVALID_ARGUMENT (src and dst overlap; a mean not finite, a std 0 or not finite, 1 / (255 std) or
 * mean / std beyond a float's range); then those of every pipeline. */
LUMEN_API lumen_status lumen_to_tensor(lumen_context *ctx, lumen_image *src, lumen_image *dst,
                                       const float *mean, const float *std);

/* ---- Camera frames (YUV 4:2:0), since 1.3 ------------------------------------------------- */

/** How a 4:2:0 frame's planes are laid out: a Y plane of width x height samples, and U and V at
 * half width and height (one sample per 2x2 pixels; width and height must be even). */
typedef enum lumen_yuv_layout {
    LUMEN_YUV_NV12 = 1, /**< planes[0] Y; planes[1] U and V interleaved (U first) */
    LUMEN_YUV_NV21 = 2, /**< as NV12 with V first (Android camera) */
    LUMEN_YUV_I420 = 3  /**< planes[0] Y, planes[1] U, planes[2] V */
} lumen_yuv_layout;

/** The colour matrix (Kr, Kb: BT.601 0.299, 0.114; BT.709 0.2126, 0.0722) and range: limited
 * (Y 16..235, U and V 16..240: video) or full (0..255: JPEG). */
typedef enum lumen_yuv_space {
    LUMEN_YUV_BT601_LIMITED = 1,
    LUMEN_YUV_BT601_FULL = 2,
    LUMEN_YUV_BT709_LIMITED = 3,
    LUMEN_YUV_BT709_FULL = 4
} lumen_yuv_space;

/** A frame in the caller's host memory (kept by the caller). strides[i]: bytes between rows of
 * planes[i], at least width for Y and for NV12's / NV21's interleaved plane, width / 2 for I420's
 * U and V; planes[2] and strides[2] are unused for NV12 and NV21. */
typedef struct lumen_yuv_frame {
    lumen_yuv_layout layout; /**< how the planes are laid out */
    int width;               /**< of the picture (the Y plane), even */
    int height;              /**< of the picture (the Y plane), even */
    uint8_t *planes[3];      /**< first byte of each plane */
    size_t strides[3];       /**< bytes between rows of each plane */
} lumen_yuv_frame;

/** A frame to RGB8, BGR8, RGBA8 or BGRA8 (alpha 255) by dst's format; dst: the frame's size, or
 * (since 1.4) any other: then the frame is converted and resized in one pass, bit for bit
 * lumen_resize of the frame-size conversion, with no full-size RGB image in between (memory: a
 * few rows; not yet faster: 1080p NV12 to half size takes 1.7x (RGBA) to 2x (RGB) the time of
 * lumen_yuv_to_rgb plus lumen_resize, so use those two where a full-size image is no concern).
 * Each pixel takes the U and V of its 2x2 block (as OpenCV's cvtColor). In integers (since 1.8;
 * 16-bit lanes), with sy = 255/219, sc = 255/224 and y0 = 16 for limited range (1, 1, 0 for
 * full), Kg = 1 - Kr - Kb and rn(v) = floor(v * 2^n + 0.5): cy = r14(sy),
 * crv = r13(2 sc (1 - Kr)), cgu = r13(2 sc Kb (1 - Kb) / Kg), cgv = r13(2 sc Kr (1 - Kr) / Kg),
 * cbu = r13(2 sc (1 - Kb)); with m(a, k, s) = (a k + 2^(14 - s)) >> (15 - s),
 * Yt = m(Y - y0, cy, 7) + 32, u = U - 128, v = V - 128 and q(e) = clamp(e >> 6, 0, 255):
 * R = q(Yt + m(v, crv, 8)), G = q(Yt - m(u, cgu, 8) - m(v, cgv, 8)), B = q(Yt + m(u, cbu, 8)).
 * Within 0.53 of the real-valued conversion (checked for every Y, U, V). Errors, in this order:
 * INVALID_ARGUMENT (src or dst NULL, a plane NULL); UNSUPPORTED_FORMAT (unknown layout or space;
 * width or height odd, or outside 2..LUMEN_MAX_DIMENSION); INVALID_ARGUMENT (a stride too small, a
 * plane over 2^31 - 1 bytes); UNSUPPORTED_FORMAT (dst not 3 or 4 channels, not 8-bit);
 * INVALID_ARGUMENT (dst overlaps a plane); then those of every pipeline
 * (BACKEND_UNAVAILABLE, DEVICE, ...). Nothing is written on failure. Runs on the context's backend
 * like the other pipelines (a GPU uploads the planes each call and leaves dst on the device). */
LUMEN_API lumen_status lumen_yuv_to_rgb(lumen_context *ctx, const lumen_yuv_frame *src,
                                        lumen_image *dst, lumen_yuv_space space);

/** src (RGB8, BGR8, RGBA8 or BGRA8; alpha ignored) into the caller's frame dst, of src's size.
 * In Q16 integers, with sy = 219/255, sc = 224/255 and y0 = 16 for limited range (1, 1, 0 for
 * full) and round() as above: yr = round(sy Kr), yb = round(sy Kb), yg = round(sy) - yr - yb;
 * ur = round(-sc Kr / (2 (1 - Kb))), ug = round(-sc Kg / (2 (1 - Kb))), ub = -ur - ug;
 * vg = round(-sc Kg / (2 (1 - Kr))), vb = round(-sc Kb / (2 (1 - Kr))), vr = -vg - vb (so gray
 * maps to U = V = 128 exactly). Per pixel Y = clamp((yr R + yg G + yb B + 65536 y0 + 32768) >> 16,
 * 0, 255); per 2x2 block, with SR, SG, SB the sums of its four R, G, B:
 * U = clamp((ur SR + ug SG + ub SB + 2^25 + 2^17) >> 18, 0, 255), V likewise with vr, vg, vb.
 * Within 1 of the real-valued conversion (of the block's mean colour, for U and V). Errors: those
 * of lumen_yuv_to_rgb with the roles swapped (src NULL, not 3 or 4 channels; SIZE_MISMATCH: the
 * frame's size), then INVALID_ARGUMENT when the frame's planes overlap each other. The frame is
 * host memory: on a GPU backend the planes are copied back before the call returns. */
LUMEN_API lumen_status lumen_rgb_to_yuv(lumen_context *ctx, lumen_image *src,
                                        const lumen_yuv_frame *dst, lumen_yuv_space space);

/* ---- CPU variants and threads ------------------------------------------------------------- */

/** The CPU variant Lumen runs on this machine: "avx512", "avx2", "sse41" or "baseline". The
 * environment variable LUMEN_MAX_CPU_ISA (same names), read once at the first Lumen call, caps
 * it; the choice is fixed for the life of the process. An empty LUMEN_MAX_CPU_ISA counts as
 * unset; any other value is ignored (no cap) and reported by lumen_config_warning(). */
LUMEN_API const char *lumen_cpu_variant(void);

/** Threads for CPU pipelines (one pool for all of Lumen); 0 (or negative) = one per core (or
 * HL_NUM_THREADS). Waits for running pipelines, then restarts the pool with the new count at the
 * next call (a few microseconds: call it rarely). Returns the previous setting (0 before any). */
LUMEN_API int lumen_set_num_threads(int n);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_LUMEN_H */
