/* hello: make an RGB image in memory, run two pipelines, check a pixel, say where it ran. */
#include <lumen/lumen.h>

#include <stdio.h>

#define TRY(call)                                                    \
  do {                                                               \
    lumen_status st_ = (call);                                       \
    if (st_ != LUMEN_OK) {                                           \
      fprintf(stderr, "%s failed: %s\n", #call, lumen_last_error()); \
      return 1;                                                      \
    }                                                                \
  } while (0)

int main(void) {
    enum { W = 64, H = 48 };
    lumen_image *rgb = NULL, *gray = NULL, *edges = NULL;
    uint8_t *px;
    printf("Lumen %s (headers %s), CPU variant %s\n", lumen_version_string(), LUMEN_VERSION_STRING,
           lumen_cpu_variant());

    TRY(lumen_image_create(W, H, 3, &rgb));
    TRY(lumen_image_create(W, H, 1, &gray));
    TRY(lumen_image_create(W, H, 1, &edges));
    TRY(lumen_image_map(rgb, LUMEN_ACCESS_WRITE, &px));
    for (int y = 0; y < H; y++) {
        uint8_t *row = px + (size_t)y * lumen_image_stride(rgb);
        for (int x = 0; x < W; x++) {
            row[3 * x + 0] = (uint8_t)(4 * x);
            row[3 * x + 1] = (uint8_t)(4 * y);
            row[3 * x + 2] = 128;
        }
    }
    TRY(lumen_grayscale(NULL, rgb, gray));
    TRY(lumen_sobel(NULL, gray, edges));

    /* BT.601 integer weights, as documented in lumen.h. */
    int x = 10, y = 20, want = (77 * 4 * x + 150 * 4 * y + 29 * 128 + 128) >> 8;
    TRY(lumen_image_map(gray, LUMEN_ACCESS_READ, &px));
    int got = px[(size_t)y * lumen_image_stride(gray) + x];
    printf("gray(%d,%d) = %d (expected %d), edges computed on: %s\n", x, y, got, want,
           lumen_backend_name(lumen_image_location(edges)));
    TRY(lumen_image_map(edges, LUMEN_ACCESS_READ, &px));
    int edge = px[(size_t)y * lumen_image_stride(edges) + x];

    lumen_image_destroy(rgb);
    lumen_image_destroy(gray);
    lumen_image_destroy(edges);
    if (got != want || edge == 0) {
        printf("hello: FAILED (edge %d)\n", edge);
        return 1;
    }
    printf("hello: ok\n");
    return 0;
}
