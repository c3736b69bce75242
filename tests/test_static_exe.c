/* A fully static program (gcc -static) on liblumen.a: no GPU driver can be loaded into it, so
 * both GPU backends must be reported unavailable with the reason, the default context must run
 * on the CPU, and every pipeline must match its reference. Before Lumen detected static
 * programs, the first call crashed (the OpenCL probe dlopen()ed libOpenCL.so.1). */
#include "harness.h"

static void check(const char *name, lumen_status st, t_image *out, ref_image want) {
    long n;
    int pad_ok;
    CHECK(st == LUMEN_OK, "%s: %s", name, lumen_last_error());
    if (st != LUMEN_OK) return;
    t_sync(out);
    int d = t_compare(out, want, &n, &pad_ok);
    CHECK(d == 0 && pad_ok, "%s: max diff %d (%ld pixels), padding %s", name, d, n,
          pad_ok ? "ok" : "overwritten");
}

int main(void) {
    t_seed();
    for (lumen_backend b = LUMEN_BACKEND_CUDA; b <= LUMEN_BACKEND_OPENCL; b++) {
        lumen_status st = lumen_backend_available(b);
        printf("%s: %s (%s)\n", lumen_backend_name(b), lumen_status_string(st), lumen_last_error());
        CHECK(st == LUMEN_ERROR_BACKEND_UNAVAILABLE, "%s usable in a static program", lumen_backend_name(b));
        CHECK(strstr(lumen_last_error(), "statically linked") != NULL, "reason: %s", lumen_last_error());
    }
    CHECK(lumen_backend_preferred() == LUMEN_BACKEND_CPU, "auto backend is not the CPU");

    enum { W = 67, H = 41 };
    t_image rgb = t_image_new(W, H, 3, 5, 1), out3 = t_image_new(W, H, 3, 3, 0);
    t_image gray = t_image_new(W, H, 1, 0, 1), out1 = t_image_new(W, H, 1, 2, 0);
    t_image small = t_image_new(W / 2, H / 3, 3, 1, 0);
    uint8_t *want_mem = malloc((size_t)W * H * 3);
    ref_image want = {want_mem, W, H, 3, (size_t)W * 3}, want1 = {want_mem, W, H, 1, W};
    ref_image want_small = {want_mem, W / 2, H / 3, 3, (size_t)(W / 2) * 3};

    ref_levels(rgb.ref, want, 1.3f, -7.0f);
    check("levels", lumen_levels(NULL, rgb.img, out3.img, 1.3f, -7.0f), &out3, want);
    ref_grayscale(rgb.ref, want1);
    check("grayscale", lumen_grayscale(NULL, rgb.img, out1.img), &out1, want1);
    ref_gaussian_blur(rgb.ref, want, 2.0f);
    check("gaussian_blur", lumen_gaussian_blur(NULL, rgb.img, out3.img, 2.0f), &out3, want);
    ref_resize(rgb.ref, want_small);
    check("resize", lumen_resize(NULL, rgb.img, small.img), &small, want_small);
    ref_sobel(gray.ref, want1);
    check("sobel", lumen_sobel(NULL, gray.img, out1.img), &out1, want1);
    ref_unsharp_mask(rgb.ref, want, 1.5f, 1.7f);
    check("unsharp_mask", lumen_unsharp_mask(NULL, rgb.img, out3.img, 1.5f, 1.7f), &out3, want);

    t_image_free(&rgb), t_image_free(&out3), t_image_free(&gray), t_image_free(&out1);
    t_image_free(&small);
    free(want_mem);
    return t_summary();
}
