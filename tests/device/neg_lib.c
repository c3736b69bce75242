/* One "DLL" of the seed's bug: a Lumen pipeline with its OWN Halide runtime, hidden visibility,
 * only NEG_PREFIX_* exported (see CMakeLists.txt). Two of these in one process reproduce
 * "halide_copy_to_device does not support switching interfaces". Test-only. */
#include <HalideRuntime.h>
#include <string.h>

#include "lumen__levels_opencl.h"

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define NAME(x) CAT(NEG_PREFIX, x)
#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

static char message[1024];

static void on_error(void *user_context, const char *msg) {
    (void)user_context;
    strncpy(message, msg, sizeof message - 1);
}
static void on_print(void *user_context, const char *msg) { (void)user_context, (void)msg; }

EXPORT void NAME(init)(void) {
    halide_set_error_handler(on_error);
    halide_set_custom_print(on_print);
}
EXPORT const char *NAME(message)(void) { return message; }
/* levels with gain 1, bias 0 (Q12), on this library's OpenCL runtime. */
EXPORT int NAME(levels)(struct halide_buffer_t *in, struct halide_buffer_t *out) {
    return lumen__levels_opencl(NULL, in, 4096, 0, out);
}
EXPORT int NAME(device_free)(struct halide_buffer_t *buf) { return halide_device_free(NULL, buf); }
