/* chain: levels -> gaussian_blur -> unsharp_mask -> resize on one image, checked against values
 * worked out by hand. Usage: chain [auto|cpu|opencl|cuda] */
#include <lumen/lumen.h>

#include <stdio.h>
#include <string.h>

#define TRY(call)                                                    \
  do {                                                               \
    lumen_status st_ = (call);                                       \
    if (st_ != LUMEN_OK) {                                           \
      fprintf(stderr, "%s failed: %s\n", #call, lumen_last_error()); \
      return 1;                                                      \
    }                                                                \
  } while (0)

int main(int argc, char **argv) {
    lumen_backend backend = LUMEN_BACKEND_AUTO;
    for (int b = LUMEN_BACKEND_AUTO; argc > 1 && b <= LUMEN_BACKEND_OPENCL; b++)
        if (strcmp(argv[1], lumen_backend_name((lumen_backend)b)) == 0) backend = (lumen_backend)b;
    lumen_context *ctx = NULL;
    TRY(lumen_context_create(backend, &ctx));

    /* Left half 50, right half 200 (RGBA). */
    enum { W = 320, H = 200 };
    lumen_image *a = NULL, *b = NULL, *small = NULL;
    uint8_t *px;
    TRY(lumen_image_create(W, H, 4, &a));
    TRY(lumen_image_create(W, H, 4, &b));
    TRY(lumen_image_create(W / 4, H / 4, 4, &small));
    TRY(lumen_image_map(a, LUMEN_ACCESS_WRITE, &px));
    for (int y = 0; y < H; y++) {
        memset(px + (size_t)y * lumen_image_stride(a), 50, W * 2);
        memset(px + (size_t)y * lumen_image_stride(a) + W * 2, 200, W * 2);
    }

    TRY(lumen_levels(ctx, a, b, 0.5f, 20.0f)); /* 50 -> 45, 200 -> 120 */
    TRY(lumen_gaussian_blur(ctx, b, a, 3.0f)); /* flat areas stay flat */
    TRY(lumen_unsharp_mask(ctx, a, b, 2.0f, 1.5f));
    TRY(lumen_resize(ctx, b, small)); /* 4:1, averaging inside flat areas */

    /* Far from the edge between the halves every stage maps a flat area to itself. */
    TRY(lumen_image_map(small, LUMEN_ACCESS_READ, &px));
    size_t stride = lumen_image_stride(small);
    int left = px[10 * stride + 4 * 5], right = px[10 * stride + 4 * (W / 4 - 6)];
    printf("chain on %s: left %d (expected 45), right %d (expected 120)\n",
           lumen_backend_name(lumen_context_policy(ctx)), left, right);
    lumen_image_destroy(a);
    lumen_image_destroy(b);
    lumen_image_destroy(small);
    lumen_context_destroy(ctx);
    if (left != 45 || right != 120) {
        printf("chain: FAILED\n");
        return 1;
    }
    printf("chain: ok\n");
    return 0;
}
