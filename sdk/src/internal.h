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
};

struct lumen_image {
    halide_buffer_t buf; /* dims: 0 = channel, 1 = x, 2 = y */
    halide_dimension_t dim[3];
    void *owned; /* our allocation, NULL for wrapped memory */
};

/* One API call: Halide's user_context, so runtime hooks (errors) reach the call that failed. */
typedef struct lumen__call {
    const char *function; /* public function name, prefixes messages */
    lumen_context *ctx;   /* never NULL: the default context stands in */
    lumen_backend backend; /* where the call runs (set by lumen__prepare) */
    int failed;           /* set (atomically) by the first Halide error */
    char message[LUMEN__MESSAGE_SIZE];
} lumen__call;

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

/* Moves src/dst to where `backend` can use them (copying device data back to the host, dropping
 * another backend's device memory) and, after a CPU run, marks dst's host copy newest. */
lumen_status lumen__prepare(lumen__call *call, lumen_image *src, lumen_image *dst,
                            lumen_backend *backend);
void lumen__finish_cpu(lumen_image *dst);

const struct halide_device_interface_t *lumen__device_interface(lumen_backend backend);

/* Q14 Gaussian taps (2 * radius + 1 of them, summing to 16384) for sigma; returns the radius.
 * taps must hold 2 * ceil(3 * LUMEN_SIGMA_MAX) + 1 values. */
int lumen__gaussian_taps(float sigma, uint16_t *taps);
enum { LUMEN__MAX_TAPS = 2 * 48 + 1 };

#endif /* LUMEN_INTERNAL_H */
