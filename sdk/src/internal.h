/* Lumen internals (lumen__ prefix): never installed. */
#ifndef LUMEN_INTERNAL_H
#define LUMEN_INTERNAL_H

#include "lumen/lumen.h"

#include <HalideRuntime.h>

#if defined(_MSC_VER)
#  define LUMEN__THREAD_LOCAL __declspec(thread)
#else
#  define LUMEN__THREAD_LOCAL _Thread_local
#endif

/* Runs fn once per process, whichever thread comes first (pthread_once / InitOnceExecuteOnce). */
#if defined(_WIN32)
#  include <windows.h>
typedef INIT_ONCE lumen__once_t;
#  define LUMEN__ONCE_INIT INIT_ONCE_STATIC_INIT
#else
#  include <pthread.h>
typedef pthread_once_t lumen__once_t;
#  define LUMEN__ONCE_INIT PTHREAD_ONCE_INIT
#endif

/* A static mutex: a pthread mutex or an exclusive SRWLOCK (ThreadSanitizer sees both; the Halide
 * runtime's halide_mutex is not instrumented). */
#if defined(_WIN32)
typedef SRWLOCK lumen__mutex;
#  define LUMEN__MUTEX_INIT SRWLOCK_INIT
#  define lumen__lock(m) AcquireSRWLockExclusive(m)
#  define lumen__unlock(m) ReleaseSRWLockExclusive(m)
#  define lumen__trylock(m) (TryAcquireSRWLockExclusive(m) != 0)
#else
typedef pthread_mutex_t lumen__mutex;
#  define LUMEN__MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#  define lumen__lock(m) pthread_mutex_lock(m)
#  define lumen__unlock(m) pthread_mutex_unlock(m)
#  define lumen__trylock(m) (pthread_mutex_trylock(m) == 0)
#endif
void lumen__once(lumen__once_t *once, void (*fn)(void));

enum { LUMEN__MESSAGE_SIZE = 1024 };

struct lumen_context {
    lumen_backend policy;
    int refs;                   /* the creator + images; < 0: the static default context */
    lumen_transfer_stats stats; /* updated atomically */
    int cuda_device;            /* CUDA: device whose primary context is used ... */
    void *cuda_context;         /* ... unless the caller gave a CUcontext */
    void *cuda_stream;          /* NULL: the default stream */
    lumen_border border;        /* the neighbourhood pipelines' (lumen_context_set_border) */
    float border_value[4];
};

struct lumen_image {
    halide_buffer_t buf; /* dims: 0 = channel, 1 = x, 2 = y */
    halide_dimension_t dim[3];
    void *owned;          /* our host allocation, NULL for wrapped memory */
    uint64_t device_ptr;  /* caller's CUDA memory wrapped by lumen_cuda_image_wrap, else 0 */
    lumen_context *owner; /* context of the last GPU call on it (referenced), or NULL */
    lumen_format format;  /* its channel count for images made without one */
    /* Views (lumen_image_view): root is the image owning the pixels (referenced), NULL for an
     * image that is not a view; the view is the rectangle at (x0, y0) of it; neighbourhoods clamp
     * at the rectangle clamp[4] = {x0, y0, x1, y1} (exclusive ends), in the root's coordinates. */
    struct lumen_image *root;
    int x0, y0, clamp[4];
    int views; /* a root: its live views, minus 1 once destroyed itself (atomic; < 0: freed) */
};

/* One API call: Halide's user_context, so runtime hooks (errors) reach the call that failed. */
typedef struct lumen__call {
    const char *function;  /* public function name, prefixes messages */
    lumen_context *ctx;    /* never NULL: the default context stands in */
    lumen_backend backend; /* where the call runs (set by lumen__prepare) */
    /* The images' state after lumen__prepare, to count what the Halide call moved. */
    struct lumen_image *src, *dst;
    uint64_t src_flags;
    uint64_t src_device, dst_device;
    int failed; /* set (atomically) by the first Halide error */
    char message[LUMEN__MESSAGE_SIZE];
} lumen__call;

/* Atomic counter update, context references. */
void lumen__count(uint64_t *counter, uint64_t n);
lumen_context *lumen__context_retain(lumen_context *ctx);
void lumen__context_release(lumen_context *ctx);
lumen_context *lumen__default_context(void);

/* CUDA driver entry points (backend.c; valid once CUDA probed usable). */
int lumen__cuda_device_count(void);
int lumen__cuda_primary_context(int device, void **context); /* CUresult */
/* Installs the Halide CUDA context/stream hooks (cuda.c). */
void lumen__cuda_install_hooks(void);
/* Host memory for an image that has none yet (device-wrapped images). */
lumen_status lumen__ensure_host(lumen__call *call, struct lumen_image *img);
/* Newest pixels to the host / the image's device memory released, counted against ctx. */
lumen_status lumen__to_host(lumen__call *call, struct lumen_image *img, lumen_context *ctx);
lumen_status lumen__free_device(lumen__call *call, struct lumen_image *img, lumen_context *ctx);
/* A halide_buffer_t of unsigned `bits`-bit values over host memory, with no device memory yet. */
void lumen__buffer_init(halide_buffer_t *b, void *host, int bits, int dimensions,
                        halide_dimension_t *dim, uint64_t flags);
/* An image of w x h pixels of c elements of elem_size bytes (1, 2: unsigned; 4: float), rows
 * stride bytes apart. */
lumen_status lumen__new_image(lumen__call *call, uint8_t *data, void *owned, int w, int h, int c,
                              int elem_size, size_t stride, struct lumen_image **out);
lumen_status lumen__check_geometry(lumen__call *call, int w, int h, int c, int elem_size,
                                   size_t stride, const char *stride_name);
lumen_context *lumen__owner(const struct lumen_image *img);
void lumen__set_owner(struct lumen_image *img, lumen_context *ctx);

/* GPU backends: LUMEN_OK if usable, else BACKEND_UNAVAILABLE with the reason (probed once). */
lumen_status lumen__probe(lumen__call *call, lumen_backend backend);
/* Device crops on a GPU backend start at multiples of this many bytes (Halide's OpenCL kernels
 * take a crop as a sub-buffer, which must be aligned to the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN,
 * known after the first OpenCL call); 0: no crops (CPU, or not known yet). */
int lumen__crop_align(lumen_backend backend);
/* After an OpenCL call: waits for Halide's queue if its device is a CPU (see backend.c). */
void lumen__opencl_after_call(void);
/* What LUMEN_BACKEND_AUTO picks for host images (lumen_backend_preferred without a call). */
lumen_backend lumen__preferred(void);

/* Starts a call: one-time set-up, clears this thread's last error. */
void lumen__begin(lumen__call *call, const char *function, lumen_context *ctx);
/* For lumen_io, a library of its own: sets this thread's lumen_last_error() to message ("" for
 * NULL) and returns status. Exported, but no public API. */
LUMEN_API lumen_status lumen__set_error(lumen_status status, const char *message);
/* Records a failure: formats the thread's last error and returns status. */
lumen_status lumen__fail(const lumen__call *call, lumen_status status, const char *fmt, ...)
#if defined(__MINGW32__) /* C99 rules (__USE_MINGW_ANSI_STDIO); "printf" means msvcrt's */
    __attribute__((format(gnu_printf, 3, 4)))
#elif defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Turns a Halide return code into a status (LUMEN_OK for 0), with Halide's message. */
lumen_status lumen__halide_status(lumen__call *call, int halide_code);

/* Image checks shared by the pipelines. */
lumen_status lumen__check_image(lumen__call *call, const lumen_image *img, const char *name);
int lumen__overlap(const lumen_image *a, const lumen_image *b);
/* The first host pixel of an image, or of a view (from its root's; NULL while there is none). */
uint8_t *lumen__host(const struct lumen_image *img);
/* 1 if img's host memory overlaps the n bytes at p. */
int lumen__overlap_memory(const lumen_image *img, const void *p, size_t n);

/* Picks the backend and moves src/dst to where it can use them (copying device data back to the
 * host, dropping another backend's device memory). Either may be NULL (a YUV frame's side). */
lumen_status lumen__prepare(lumen__call *call, lumen_image *src, lumen_image *dst,
                            lumen_backend *backend);
/* lumen__prepare in two steps: the backend (policy; AUTO: src's location, a view's root's, else
 * the preferred one), checked usable; then the images moved (and the call lock taken). */
lumen_status lumen__choose(lumen__call *call, const lumen_image *src, lumen_backend *backend);
lumen_status lumen__place(lumen__call *call, lumen_image *src, lumen_image *dst);
/* A GPU call's image whose device memory is used in part (device crops: views, planes): given
 * memory of call->backend holding its newest pixels (uploaded if the host's were newer), or, with
 * overwrite (an output covering all of it), any contents. Outside the call lock. */
lumen_status lumen__on_device(lumen__call *call, struct lumen_image *img, int overwrite);
/* Its device memory written (by a crop): the newest pixels. */
void lumen__device_written(struct lumen_image *img);
/* After the Halide call returned `code`: counts transfers, marks where the newest pixels are. */
lumen_status lumen__finish(lumen__call *call, int code);
/* Held (shared) from a successful lumen__prepare to lumen__finish, so lumen_set_num_threads can
 * restart Halide's thread pool while no pipeline runs. */
void lumen__pool_enter(void);
void lumen__pool_leave(void);
/* Runs a Halide runtime call under the call lock, shared (never while holding it already). */
#define LUMEN__HALIDE_CALL(rc, expr) \
  do {                               \
    lumen__pool_enter();             \
    (rc) = (expr);                   \
    lumen__pool_leave();             \
  } while (0)
/* Links sdk/src/threads.c (Lumen's halide_spawn_thread) into static programs. */
void lumen__threads_link(void);
/* Halide's host allocations through hostmem.c's cache of freed blocks; the cache emptied. */
void lumen__host_memory_install(void);
/* The same cache for the C code's own buffers (128-byte aligned; NULL when out of memory). */
void *lumen__host_alloc(size_t n);
void lumen__host_free(void *p);
void lumen__host_memory_release(void);
/* After a GPU call: the first of each (function, backend) registers the exit fence again. */
void lumen__exit_fence_renew(const char *function, lumen_backend backend);

const struct halide_device_interface_t *lumen__device_interface(lumen_backend backend);

/* Q16 Gaussian taps (2 * radius + 1 of them, summing to 65536) for sigma; returns the radius.
 * taps must hold 2 * ceil(3 * LUMEN_SIGMA_MAX) + 1 values. */
int lumen__gaussian_taps(float sigma, uint16_t *taps);
enum { LUMEN__MAX_TAPS = 2 * 48 + 1 };

#endif /* LUMEN_INTERNAL_H */
