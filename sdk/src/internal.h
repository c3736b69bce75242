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

enum { LUMEN__MESSAGE_SIZE = 1024 };

struct lumen_context {
    lumen_backend policy;
    int refs;                   /* the creator + images; < 0: the static default context */
    lumen_transfer_stats stats; /* updated atomically */
};

struct lumen_image {
    halide_buffer_t buf; /* dims: 0 = channel, 1 = x, 2 = y */
    halide_dimension_t dim[3];
    void *owned;          /* our allocation, NULL for wrapped memory */
    lumen_context *owner; /* context of the last GPU call on it (referenced), or NULL */
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

/* GPU backends: LUMEN_OK if usable, else BACKEND_UNAVAILABLE with the reason (probed once). */
lumen_status lumen__probe(lumen__call *call, lumen_backend backend);
/* What LUMEN_BACKEND_AUTO picks for host images (lumen_backend_preferred without a call). */
lumen_backend lumen__preferred(void);

/* Starts a call: one-time set-up, clears this thread's last error. */
void lumen__begin(lumen__call *call, const char *function, lumen_context *ctx);
/* Records a failure: formats the thread's last error and returns status. */
lumen_status lumen__fail(const lumen__call *call, lumen_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Turns a Halide return code into a status (LUMEN_OK for 0), with Halide's message. */
lumen_status lumen__halide_status(lumen__call *call, int halide_code);

/* Image checks shared by the pipelines. */
lumen_status lumen__check_image(lumen__call *call, const lumen_image *img, const char *name);
int lumen__overlap(const lumen_image *a, const lumen_image *b);

/* Picks the backend and moves src/dst to where it can use them (copying device data back to the
 * host, dropping another backend's device memory). */
lumen_status lumen__prepare(lumen__call *call, lumen_image *src, lumen_image *dst,
                            lumen_backend *backend);
/* After the Halide call returned `code`: counts transfers, marks where the newest pixels are. */
lumen_status lumen__finish(lumen__call *call, int code);

const struct halide_device_interface_t *lumen__device_interface(lumen_backend backend);

/* Q14 Gaussian taps (2 * radius + 1 of them, summing to 16384) for sigma; returns the radius.
 * taps must hold 2 * ceil(3 * LUMEN_SIGMA_MAX) + 1 values. */
int lumen__gaussian_taps(float sigma, uint16_t *taps);
enum { LUMEN__MAX_TAPS = 2 * 48 + 1 };

#endif /* LUMEN_INTERNAL_H */
