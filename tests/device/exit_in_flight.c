/* Exit with OpenCL work in flight: each pipeline runs on OpenCL, its result stays on the device
 * (never mapped), and main returns with nothing destroyed. Run with an empty PoCL kernel cache
 * (repeat.sh --cold), PoCL would still be compiling kernels while exit() runs: this crashed in
 * every run until Lumen waited for the queue on CPU OpenCL devices (lumen__opencl_after_call in
 * sdk/src/backend.c). Passes if the process exits 0. */
#include <lumen/lumen.h>
#include <stdio.h>

int main(void) {
    lumen_context *ctx = NULL;
    lumen_image *a = NULL, *b = NULL, *g = NULL;
    if (lumen_context_create(LUMEN_BACKEND_OPENCL, &ctx) || lumen_image_create(256, 128, 3, &a) ||
        lumen_image_create(256, 128, 3, &b) || lumen_image_create(256, 128, 1, &g))
        return 2;
    lumen_status st = lumen_levels(ctx, a, b, 1.5f, 3.0f);
    if (!st) st = lumen_gaussian_blur(ctx, b, a, 2.0f);
    if (!st) st = lumen_unsharp_mask(ctx, a, b, 1.0f, 1.5f);
    if (!st) st = lumen_resize(ctx, b, a);
    if (!st) st = lumen_grayscale(ctx, a, g);
    if (st) {
        printf("OpenCL call failed: %s\n", lumen_last_error());
        return 1;
    }
    printf("queued on OpenCL; returning from main\n");
    return 0;
}
