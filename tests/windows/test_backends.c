/* Backend choice on a Windows machine without a GPU (run under wine): AUTO runs on the CPU and
 * matches the reference; forced GPU backends fail cleanly, never crash. argv[1]:
 *   none  nvcuda.dll and OpenCL.dll absent (WINEDLLOVERRIDES=nvcuda,opencl=d): both unavailable
 *   any   whatever drivers wine has (its opencl.dll forwards to the host's OpenCL, if any) */
#include "../harness.h"

static void check_forced(lumen_backend b, int expect_unavailable) {
    lumen_status avail = lumen_backend_available(b);
    char why[256];
    snprintf(why, sizeof why, "%s", lumen_last_error());
    printf("%s: compiled %d, %s (%s), devices \"%s\"\n", lumen_backend_name(b),
           lumen_backend_compiled(b), lumen_status_string(avail), why, lumen_backend_devices(b));
    if (avail != LUMEN_OK)
        CHECK(why[0] != '\0', "%s unavailable without a reason", lumen_backend_name(b));
    CHECK(lumen_backend_compiled(b) == 1, "%s not compiled in", lumen_backend_name(b));
    if (expect_unavailable)
        CHECK(avail == LUMEN_ERROR_BACKEND_UNAVAILABLE, "%s: %s", lumen_backend_name(b),
              lumen_status_string(avail));

    lumen_context *ctx = NULL;
    CHECK_OK(lumen_context_create(b, &ctx));
    t_image src = t_image_new(37, 23, 3, 5, 1), dst = t_image_new(37, 23, 3, 5, 0);
    lumen_status s = lumen_levels(ctx, src.img, dst.img, 1.5f, -10.0f);
    if (avail == LUMEN_OK) {
        CHECK(s == LUMEN_OK, "%s levels: %s", lumen_backend_name(b), lumen_last_error());
    } else {
        CHECK(s == LUMEN_ERROR_BACKEND_UNAVAILABLE && lumen_last_error()[0] != '\0',
              "%s levels: %s (%s)", lumen_backend_name(b), lumen_status_string(s),
              lumen_last_error());
    }
    t_image_free(&src);
    t_image_free(&dst);
    lumen_context_destroy(ctx);
}

int main(int argc, char **argv) {
    int none = argc > 1 && strcmp(argv[1], "none") == 0;
    t_seed();
    /* No GPU here: PoCL-style CPU OpenCL devices do not count, so AUTO means the CPU. */
    lumen_backend preferred = lumen_backend_preferred();
    printf("preferred: %s, cpu variant %s\n", lumen_backend_name(preferred), lumen_cpu_variant());
    CHECK(preferred == LUMEN_BACKEND_CPU, "preferred %s", lumen_backend_name(preferred));

    t_image src = t_image_new(61, 40, 3, 3, 1), dst = t_image_new(61, 40, 1, 7, 0);
    uint8_t *want = malloc(61 * 40);
    ref_image ref = {want, 61, 40, 1, 61};
    ref_grayscale(src.ref, ref);
    CHECK_OK(lumen_grayscale(NULL, src.img, dst.img));
    t_sync(&dst);
    long n_diff;
    int pad_ok;
    int max = t_compare(&dst, ref, &n_diff, &pad_ok);
    CHECK(max == 0 && pad_ok, "auto grayscale: max diff %d, %ld pixels, padding %s", max, n_diff,
          pad_ok ? "ok" : "overwritten");
    CHECK(lumen_image_location(dst.img) == LUMEN_BACKEND_CPU, "result not on the host");
    free(want);
    t_image_free(&src);
    t_image_free(&dst);

    check_forced(LUMEN_BACKEND_CUDA, none);
    check_forced(LUMEN_BACKEND_OPENCL, none);
    return t_summary();
}
