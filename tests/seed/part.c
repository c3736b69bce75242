/* Rows 7 and 8 (controls): func1 and func2 each in its OWN shared library with its own Halide
 * runtime, i.e. the "two DLLs" layout. Compiled twice, SEED_PART=1 and 2; exports seed_partN_*. */
#include <HalideRuntime.h>

#if SEED_PART == 1
#include "func1.h"
#define PART_RUN seed_part1_run
#define PART_HANDLER seed_part1_set_error_handler
#define PART_FUNC func1
#else
#include "func2.h"
#define PART_RUN seed_part2_run
#define PART_HANDLER seed_part2_set_error_handler
#define PART_FUNC func2
#endif

#ifdef _WIN32
#define PART_API __declspec(dllexport)
#else
#define PART_API __attribute__((visibility("default")))
#endif

PART_API int PART_RUN(struct halide_buffer_t *in, struct halide_buffer_t *out) {
    return PART_FUNC(in, out);
}

/* The error handler of THIS library's runtime. */
PART_API void PART_HANDLER(halide_error_handler_t handler) { halide_set_error_handler(handler); }
