/* The seed's bug as a negative control. Two shared libraries, each with its own Halide runtime and
 * hidden visibility (as Windows DLLs are): a device buffer made by one cannot be consumed by the
 * other ("switching interfaces"). The same chain through liblumen (one runtime) works. */
#include <HalideRuntime.h>

#include "../harness.h"

void neg_a_init(void);
void neg_b_init(void);
const char *neg_b_message(void);
int neg_a_levels(struct halide_buffer_t *in, struct halide_buffer_t *out);
int neg_b_levels(struct halide_buffer_t *in, struct halide_buffer_t *out);
int neg_a_device_free(struct halide_buffer_t *buf);
int neg_b_device_free(struct halide_buffer_t *buf);

enum { W = 64, H = 32, C = 3 };

static void make_buffer(struct halide_buffer_t *b, halide_dimension_t *dim, uint8_t *host) {
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

int main(void) {
    static uint8_t in_px[W * H * C], mid_px[W * H * C], out_px[W * H * C];
    t_seed();
    for (int i = 0; i < W * H * C; i++) in_px[i] = (uint8_t)t_rand();

    /* Two runtimes: A's device buffer goes into B. */
    struct halide_buffer_t in, mid, out;
    halide_dimension_t din[3], dmid[3], dout[3];
    make_buffer(&in, din, in_px);
    make_buffer(&mid, dmid, mid_px);
    make_buffer(&out, dout, out_px);
    neg_a_init();
    neg_b_init();
    int rc = neg_a_levels(&in, &mid);
    CHECK(rc == 0, "library A on OpenCL failed: %d", rc);
    CHECK(mid.flags & halide_buffer_flag_device_dirty, "A's result is not on the device");
    rc = neg_b_levels(&mid, &out);
    printf("two runtimes: B returned %d: %s\n", rc, neg_b_message());
    CHECK(rc != 0, "the chain across two runtimes worked: the negative control did not reproduce");
    CHECK(strstr(neg_b_message(), "switching interfaces") != NULL, "unexpected error: %s",
          neg_b_message());
    neg_a_device_free(&in);
    neg_a_device_free(&mid);
    neg_b_device_free(&out);

    /* One runtime: the same chain through liblumen. */
    lumen_context *ctx = NULL;
    lumen_image *a = NULL, *b = NULL, *c = NULL;
    CHECK_OK(lumen_context_create(LUMEN_BACKEND_OPENCL, &ctx));
    CHECK_OK(lumen_image_wrap(in_px, W, H, C, W * C, &a));
    CHECK_OK(lumen_image_create(W, H, C, &b));
    CHECK_OK(lumen_image_create(W, H, C, &c));
    CHECK_OK(lumen_levels(ctx, a, b, 1.0f, 0.0f));
    CHECK(lumen_image_location(b) == LUMEN_BACKEND_OPENCL, "liblumen result not on the device");
    CHECK_OK(lumen_levels(ctx, b, c, 1.0f, 0.0f));
    uint8_t *px = NULL;
    CHECK_OK(lumen_image_map(c, LUMEN_ACCESS_READ, &px));
    int same = 1;
    for (int y = 0; px && y < H; y++)
        same &= memcmp(px + (size_t)y * lumen_image_stride(c), in_px + y * W * C, W * C) == 0;
    CHECK(same, "liblumen chain result differs from the input (levels with gain 1)");
    printf("one runtime (liblumen): %s\n", same ? "chain ok" : "chain wrong");
    lumen_image_destroy(a);
    lumen_image_destroy(b);
    lumen_image_destroy(c);
    lumen_context_destroy(ctx);
    return t_summary();
}
