/* Coexistence: liblumen.so and an independently built Halide AOT library with its own runtime
 * (default visibility, own error handler, own thread pool, own OpenCL state) in one process.
 * Both work; neither's error handler, thread count or device state reaches the other.
 * argv[1] = "errors" (run with HL_OCL_DEVICE_TYPE=acc so that OpenCL fails in both runtimes). */
#include <HalideRuntime.h>

#include "../harness.h"

void other_init(void);
int other_errors(void);
const char *other_message(void);
int other_levels_run(struct halide_buffer_t *in, int gain, int bias, struct halide_buffer_t *out);

enum { W = 45, H = 27, C = 3 };

static void wrap(struct halide_buffer_t *b, halide_dimension_t *dim, uint8_t *host) {
    memset(b, 0, sizeof *b);
    dim[0] = (halide_dimension_t){0, C, 1, 0};
    dim[1] = (halide_dimension_t){0, W, C, 0};
    dim[2] = (halide_dimension_t){0, H, W * C, 0};
    b->host = host;
    b->type.code = halide_type_uint;
    b->type.bits = 8;
    b->type.lanes = 1;
    b->dimensions = 3;
    b->dim = dim;
    b->flags = halide_buffer_flag_host_dirty;
}

int main(int argc, char **argv) {
    static uint8_t in_px[W * H * C], other_px[W * H * C], lumen_px[W * H * C];
    t_seed();
    for (int i = 0; i < W * H * C; i++) in_px[i] = (uint8_t)t_rand();
    struct halide_buffer_t in, out;
    halide_dimension_t din[3], dout[3];
    wrap(&in, din, in_px);
    wrap(&out, dout, other_px);
    other_init();
    /* These resolve to the other library's exported runtime: Lumen's is hidden. */
    halide_set_num_threads(1);

    lumen_context *gpu = NULL;
    lumen_image *src = NULL, *dst = NULL;
    CHECK_OK(lumen_context_create(LUMEN_BACKEND_OPENCL, &gpu));
    CHECK_OK(lumen_image_wrap(in_px, W, H, C, W * C, &src));
    CHECK_OK(lumen_image_wrap(lumen_px, W, H, C, W * C, &dst));

    if (argc > 1 && strcmp(argv[1], "errors") == 0) {
        /* OpenCL fails in both runtimes: each error goes to its own library only. */
        lumen_status st = lumen_levels(gpu, src, dst, 1.5f, 10.0f);
        printf("lumen: %s: %s\n", lumen_status_string(st), lumen_last_error());
        CHECK(st == LUMEN_ERROR_DEVICE && strstr(lumen_last_error(), "Halide error"),
              "Lumen's OpenCL failure: %s (%s)", lumen_status_string(st), lumen_last_error());
        CHECK(other_errors() == 0, "Lumen's error reached the other handler: %s", other_message());
        int rc = other_levels_run(&in, 6144, 40960, &out);
        printf("other: %d: %s\n", rc, other_message());
        CHECK(rc != 0 && other_errors() >= 1, "the other library's failure: rc %d, %d errors", rc,
              other_errors());
        CHECK(strstr(lumen_last_error(), "lumen_levels") == lumen_last_error(),
              "the other library's error changed Lumen's last error: %s", lumen_last_error());
    } else {
        /* Both on OpenCL, interleaved, with the same parameters: identical results. */
        for (int round = 0; round < 3; round++) {
            int rc = other_levels_run(&in, 6144, 40960, &out); /* 1.5, 10.0 in Q12 */
            CHECK(rc == 0, "other library: %d (%s)", rc, other_message());
            CHECK_OK(lumen_levels(gpu, src, dst, 1.5f, 10.0f));
            CHECK(lumen_image_location(dst) == LUMEN_BACKEND_OPENCL, "Lumen result not on device");
            uint8_t *px;
            CHECK_OK(lumen_image_map(dst, LUMEN_ACCESS_READ, &px));
            halide_copy_to_host(NULL, &out); /* the other runtime's copy */
            CHECK(memcmp(lumen_px, other_px, sizeof lumen_px) == 0, "round %d: results differ",
                  round);
            CHECK_OK(lumen_levels(NULL, src, dst, 1.5f, 10.0f)); /* and Lumen on the CPU */
            CHECK(memcmp(lumen_px, other_px, sizeof lumen_px) == 0, "round %d: CPU differs", round);
        }
        /* An error in the other library reaches its handler only. */
        struct halide_buffer_t bad = out;
        halide_dimension_t dbad[3] = {dout[0], dout[1], dout[2]};
        dbad[0].extent = 4; /* channels differ from the input: a constraint violation */
        bad.dim = dbad;
        bad.flags = 0;
        int rc = other_levels_run(&in, 4096, 0, &bad);
        CHECK(rc != 0 && other_errors() == 1, "other library error: rc %d, %d errors", rc,
              other_errors());
        CHECK(lumen_last_error()[0] == '\0', "the other library's error showed up in Lumen: %s",
              lumen_last_error());
        /* Thread pools: the other library's count (1) is not Lumen's. */
        int lumen_threads = lumen_set_num_threads(2);
        CHECK(lumen_threads != 1, "Lumen's pool has the other library's thread count");
        lumen_set_num_threads(lumen_threads);
        halide_device_free(NULL, &in);
        halide_device_free(NULL, &out);
    }
    lumen_image_destroy(src);
    lumen_image_destroy(dst);
    lumen_context_destroy(gpu);
    return t_summary();
}
