/* "Another vendor's" Halide AOT library: its own runtime, default visibility (its halide_*
 * symbols are exported, as a typical Linux build leaves them), its own error handler. */
#include <HalideRuntime.h>
#include <string.h>

#include "other_levels.h"

static char message[1024];
static int errors;

static void on_error(void *user_context, const char *msg) {
    (void)user_context;
    errors++;
    strncpy(message, msg, sizeof message - 1);
}

void other_init(void) { halide_set_error_handler(on_error); }
int other_errors(void) { return errors; }
const char *other_message(void) { return message; }
/* levels, gain and bias in Q12, on OpenCL. */
int other_levels_run(struct halide_buffer_t *in, int gain, int bias, struct halide_buffer_t *out) {
    return other_levels(in, gain, bias, out);
}
