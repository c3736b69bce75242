/* mylib: func1 then func2 on OpenCL; func1's output stays on the device and feeds func2. */
#include <HalideRuntime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

#if SEED_CONFIG == 7 || SEED_CONFIG == 8
/* Controls: func1 and func2 live in two other shared libraries, each with its own runtime. mylib
 * has no Halide runtime: it sets each library's handler, and copies / frees through the buffer's
 * device_interface (which belongs to the runtime that made the device allocation). */
int seed_part1_run(struct halide_buffer_t *in, struct halide_buffer_t *out);
int seed_part2_run(struct halide_buffer_t *in, struct halide_buffer_t *out);
void seed_part1_set_error_handler(halide_error_handler_t handler);
void seed_part2_set_error_handler(halide_error_handler_t handler);
#define func1 seed_part1_run
#define func2 seed_part2_run
#define set_error_handlers(h) (seed_part1_set_error_handler(h), seed_part2_set_error_handler(h))
#define copy_to_host(b) ((b)->device_interface ? (b)->device_interface->copy_to_host(NULL, (b)) : 0)
#define device_free(b) ((b)->device_interface ? (b)->device_interface->device_free(NULL, (b)) : 0)
#else
#include "func1.h"
#include "func2.h"
/* Rows 1-6, 9: every Halide runtime symbol is defined once in the linked binary (see
 * docs/seed-matrix.md), so this one call reaches the runtime that func1 and func2 use. */
#define set_error_handlers(h) halide_set_error_handler(h)
#define copy_to_host(b) halide_copy_to_host(NULL, (b))
#define device_free(b) halide_device_free(NULL, (b))
#endif

/* Halide's error message. halide_set_error_handler sets the handler of ONE runtime: the one the
 * call binds to. Where several runtimes stay separate (rows 7, 8) each must get it (a runtime
 * left out would print to stderr with its default handler; the message says how many times this
 * handler ran). */
static char last_error[1024];
static int handler_calls;

static void on_error(void *user_context, const char *msg) {
    (void)user_context;
    handler_calls++;
    snprintf(last_error, sizeof last_error, "%s", msg);
}

static void make_buffer(halide_buffer_t *b, halide_dimension_t dim[2], uint8_t *host, int w, int h) {
    memset(b, 0, sizeof *b);
    dim[0] = (halide_dimension_t){0, w, 1, 0};
    dim[1] = (halide_dimension_t){0, h, w, 0};
    b->host = host;
    b->type = (struct halide_type_t){halide_type_uint, 8, 1};
    b->dimensions = 2;
    b->dim = dim;
}

static int fail(int status, const char *what, int rc, char *msg, size_t msg_size) {
    snprintf(msg, msg_size, "%s returned %d (handler called %d times): %s", what, rc,
             handler_calls, handler_calls ? last_error : "(no message reached mylib's handler)");
    return status;
}

MYLIB_API int mylib_run(const uint8_t *in_px, uint8_t *out_px, int w, int h, char *msg,
                        size_t msg_size) {
    size_t n = (size_t)w * (size_t)h;
    uint8_t *mid_px = malloc(n), *sentinel = malloc(n);
    halide_buffer_t in, mid, out;
    halide_dimension_t din[2], dmid[2], dout[2];
    int status = MYLIB_OK, rc;

    set_error_handlers(on_error);
    handler_calls = 0;
    last_error[0] = 0;
    msg[0] = 0;
    memset(mid_px, 0xA5, n);
    memset(sentinel, 0xA5, n);
    make_buffer(&in, din, (uint8_t *)in_px, w, h);
    make_buffer(&mid, dmid, mid_px, w, h);
    make_buffer(&out, dout, out_px, w, h);
    in.flags = halide_buffer_flag_host_dirty; /* the host wrote it: copy it to the device */

    rc = func1(&in, &mid);
    if (rc != 0) {
        status = fail(MYLIB_FUNC1_FAILED, "func1", rc, msg, msg_size);
        goto done;
    }
    if (!(mid.flags & halide_buffer_flag_device_dirty) || mid.device == 0 ||
        memcmp(mid_px, sentinel, n) != 0) {
        snprintf(msg, msg_size, "func1's output is not device-resident (flags %#llx, device %#llx)",
                 (unsigned long long)mid.flags, (unsigned long long)mid.device);
        status = MYLIB_NOT_ON_DEVICE;
        goto done;
    }
    rc = func2(&mid, &out); /* no copy to the host in between */
    if (rc != 0) {
        status = fail(MYLIB_FUNC2_FAILED, "func2", rc, msg, msg_size);
        goto done;
    }
    rc = copy_to_host(&out);
    if (rc != 0) status = fail(MYLIB_COPY_FAILED, "halide_copy_to_host", rc, msg, msg_size);
    else snprintf(msg, msg_size, "ok: func1's output was device-resident and host-untouched");

done:
    /* Each buffer's device_interface knows its own runtime. */
    device_free(&in);
    device_free(&mid);
    device_free(&out);
    free(mid_px);
    free(sentinel);
    return status;
}
