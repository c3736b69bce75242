/* mylib: the seed's API. Runs func1 then func2 on OpenCL, func1's device-resident output feeding
 * func2 with no copy to the host in between. */
#ifndef SEED_API_H
#define SEED_API_H
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && !defined(SEED_STATIC)
#ifdef SEED_BUILDING_MYLIB
#define MYLIB_API __declspec(dllexport)
#else
#define MYLIB_API __declspec(dllimport)
#endif
#elif defined(SEED_BUILDING_MYLIB)
#define MYLIB_API __attribute__((visibility("default")))
#else
#define MYLIB_API
#endif

enum {
    MYLIB_OK = 0,
    MYLIB_FUNC1_FAILED = 1,     /* Halide error in func1 (message in msg) */
    MYLIB_NOT_ON_DEVICE = 2,    /* func1's output is not device-resident, or its host was written */
    MYLIB_FUNC2_FAILED = 3,     /* Halide error in func2 (e.g. "switching interfaces") */
    MYLIB_COPY_FAILED = 4,      /* Halide error copying the result to the host */
};

/* out = (in + 1) * 2 with uint8 wrapping, for a w x h 8-bit image (row stride w). Returns a
 * MYLIB_* status and, on error, Halide's message in msg (msg_size bytes, NUL-terminated). */
MYLIB_API int mylib_run(const uint8_t *in, uint8_t *out, int w, int h, char *msg, size_t msg_size);

#endif
