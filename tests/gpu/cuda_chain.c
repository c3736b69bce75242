/* The CUDA check's measurements (run by check.sh on a machine with an NVIDIA GPU; exit 77 without
 * one). Prints Markdown tables:
 *   1. each pipeline on CUDA vs the CPU backend (random 1920x1080 input): bytes that differ;
 *   2. a 4-stage device-resident chain (levels -> gaussian_blur -> unsharp_mask -> levels) on
 *      W x H RGBA (default 7680x4320) in caller memory: time, effective bandwidth (each stage reads
 *      and writes the image once) vs a measured device-to-device copy, and host transfers.
 * Usage: lumen_cuda_chain [W H [runs]]. Exit 1 if a pipeline differs or the chain moved pixels to
 * or from the host; the bandwidth goal (>= 70% of the copy) is reported, not asserted. */
#include <lumen/lumen_cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/cuda_driver.h"

#define TRY(call)                                          \
  do {                                                     \
    if ((call) != LUMEN_OK) {                              \
      printf("FAIL: %s: %s\n", #call, lumen_last_error()); \
      exit(1);                                             \
    }                                                      \
  } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static lumen_image *image(int w, int h, int c, unsigned seed) {
    lumen_image *img = NULL;
    uint8_t *px = NULL;
    TRY(lumen_image_create(w, h, c, &img));
    TRY(lumen_image_map(img, LUMEN_ACCESS_WRITE, &px));
    srand(seed);
    for (size_t i = 0; i < (size_t)lumen_image_stride(img) * h; i++) px[i] = (uint8_t)(rand() >> 5);
    return img;
}

static size_t differ(lumen_image *a, lumen_image *b) {
    uint8_t *pa = NULL, *pb = NULL;
    TRY(lumen_image_map(a, LUMEN_ACCESS_READ, &pa));
    TRY(lumen_image_map(b, LUMEN_ACCESS_READ, &pb));
    size_t n = 0, row = (size_t)lumen_image_width(a) * lumen_image_channels(a);
    for (int y = 0; y < lumen_image_height(a); y++)
        for (size_t x = 0; x < row; x++)
            n += pa[y * lumen_image_stride(a) + x] != pb[y * lumen_image_stride(b) + x];
    return n;
}

/* Pipeline k of 6 on ctx: a fresh output for src. */
static const char *const names[] = {"levels", "grayscale", "gaussian_blur",
                                    "resize", "sobel",     "unsharp_mask"};
static lumen_image *run(int k, lumen_context *ctx, lumen_image *src) {
    int w = lumen_image_width(src), h = lumen_image_height(src), c = lumen_image_channels(src);
    lumen_image *dst = NULL;
    TRY(lumen_image_create(k == 3 ? w * 2 / 3 : w, k == 3 ? h * 2 / 3 : h, k == 1 ? 1 : c, &dst));
    lumen_status s = k == 0   ? lumen_levels(ctx, src, dst, 1.3f, -10.0f)
                     : k == 1 ? lumen_grayscale(ctx, src, dst)
                     : k == 2 ? lumen_gaussian_blur(ctx, src, dst, 2.5f)
                     : k == 3 ? lumen_resize(ctx, src, dst)
                     : k == 4 ? lumen_sobel(ctx, src, dst)
                              : lumen_unsharp_mask(ctx, src, dst, 1.5f, 1.2f);
    TRY(s);
    return dst;
}

static void chain(lumen_context *ctx, lumen_image *src, lumen_image *t[3], lumen_image *dst) {
    TRY(lumen_levels(ctx, src, t[0], 1.1f, -4.0f));
    TRY(lumen_gaussian_blur(ctx, t[0], t[1], 1.0f));
    TRY(lumen_unsharp_mask(ctx, t[1], t[2], 1.0f, 0.8f));
    TRY(lumen_levels(ctx, t[2], dst, 0.9f, 6.0f));
}

int main(int argc, char **argv) {
    int W = argc > 2 ? atoi(argv[1]) : 7680, H = argc > 2 ? atoi(argv[2]) : 4320;
    int runs = argc > 3 ? atoi(argv[3]) : 20, fails = 0;
    if (lumen_backend_available(LUMEN_BACKEND_CUDA) != LUMEN_OK) {
        printf("SKIP: %s\n", lumen_last_error());
        return 77;
    }
    void *primary = NULL;
    if (!cuda_driver_load(&primary)) {
        printf("FAIL: Lumen sees CUDA but the driver could not be loaded here\n");
        return 1;
    }
    lumen_context *gpu = NULL, *cpu = NULL;
    TRY(lumen_cuda_context_create(NULL, &gpu));
    TRY(lumen_context_create(LUMEN_BACKEND_CPU, &cpu));
    printf("Device: %s\n\n| pipeline | CUDA vs CPU (1920x1080) |\n|---|---|\n",
           lumen_backend_devices(LUMEN_BACKEND_CUDA));
    for (int k = 0; k < 6; k++) {
        lumen_image *src = image(1920, 1080, k == 4 ? 1 : k == 1 ? 3 : 4, 100u + k);
        lumen_image *g = run(k, gpu, src), *c = run(k, cpu, src);
        size_t n = differ(g, c);
        fails += n != 0;
        printf("| %s | %s (%zu bytes differ) |\n", names[k], n ? "FAIL" : "exact", n);
        lumen_image_destroy(src), lumen_image_destroy(g), lumen_image_destroy(c);
    }

    /* The bandwidth reference: device-to-device copies of one image. */
    size_t bytes = (size_t)W * H * 4;
    uint64_t d_src = 0, d_dst = 0;
    if (cu.MemAlloc(&d_src, bytes) || cu.MemAlloc(&d_dst, bytes)) {
        printf("FAIL: cuMemAlloc of 2 x %zu bytes\n", bytes);
        return 1;
    }
    cu.MemcpyDtoD(d_dst, d_src, bytes);
    cu.CtxSynchronize();
    double t0 = now();
    for (int i = 0; i < runs; i++) cu.MemcpyDtoD(d_dst, d_src, bytes);
    cu.CtxSynchronize();
    double copy_s = (now() - t0) / runs, copy_bw = 2.0 * bytes / copy_s / 1e9;

    /* The chain, caller memory in and out, intermediates left on the device by Lumen. */
    lumen_image *host = image(W, H, 4, 7), *src = NULL, *dst = NULL, *t[3];
    uint8_t *px = NULL;
    TRY(lumen_image_map(host, LUMEN_ACCESS_READ, &px));
    cu.MemcpyHtoD(d_src, px, bytes);
    TRY(lumen_cuda_image_wrap(gpu, d_src, W, H, 4, (size_t)W * 4, &src));
    TRY(lumen_cuda_image_wrap(gpu, d_dst, W, H, 4, (size_t)W * 4, &dst));
    for (int i = 0; i < 3; i++) TRY(lumen_image_create(W, H, 4, &t[i]));
    for (int i = 0; i < 3; i++) chain(gpu, src, t, dst); /* warm-up: allocations, kernels */
    TRY(lumen_image_sync(dst));
    lumen_context_reset_stats(gpu);
    t0 = now();
    for (int i = 0; i < runs; i++) chain(gpu, src, t, dst);
    TRY(lumen_image_sync(dst));
    cu.CtxSynchronize();
    double chain_s = (now() - t0) / runs, chain_bw = 4 * 2.0 * bytes / chain_s / 1e9;
    lumen_transfer_stats st;
    TRY(lumen_context_stats(gpu, &st));
    unsigned long long moved = st.uploads + st.downloads;
    fails += moved != 0;

    /* The chain's result equals the CPU's. */
    lumen_image *c[3], *want = NULL;
    for (int i = 0; i < 3; i++) TRY(lumen_image_create(W, H, 4, &c[i]));
    TRY(lumen_image_create(W, H, 4, &want));
    chain(cpu, host, c, want);
    uint8_t *back = malloc(bytes), *wpx = NULL;
    cu.MemcpyDtoH(back, d_dst, bytes);
    TRY(lumen_image_map(want, LUMEN_ACCESS_READ, &wpx));
    int same = 1;
    for (int y = 0; y < H; y++)
        same &=
            !memcmp(back + (size_t)y * W * 4, wpx + y * lumen_image_stride(want), (size_t)W * 4);
    fails += !same;

    printf("\n| %dx%d RGBA, %d runs | time | bandwidth | of D2D copy |\n|---|---|---|---|\n", W, H,
           runs);
    printf("| device-to-device copy | %.3f ms | %.1f GB/s | 100%% |\n", copy_s * 1e3, copy_bw);
    printf("| 4-stage chain | %.3f ms | %.1f GB/s | %.0f%% (goal >= 70%%) |\n", chain_s * 1e3,
           chain_bw, 100 * chain_bw / copy_bw);
    printf(
        "\nChain result vs CPU: %s; host transfers during the timed chains: %llu "
        "(%llu up, %llu down)\n",
        same ? "exact" : "FAIL", moved, (unsigned long long)st.uploads,
        (unsigned long long)st.downloads);
    free(back);
    for (int i = 0; i < 3; i++) lumen_image_destroy(t[i]), lumen_image_destroy(c[i]);
    lumen_image_destroy(src), lumen_image_destroy(dst), lumen_image_destroy(host);
    lumen_image_destroy(want);
    lumen_context_destroy(gpu), lumen_context_destroy(cpu);
    cu.MemFree(d_src), cu.MemFree(d_dst);
    return fails ? 1 : 0;
}
