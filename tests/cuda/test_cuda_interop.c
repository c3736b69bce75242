/* CUDA interop on a real GPU (skips, exit 77, without one): caller device memory in and out,
 * device-resident chains equal the CPU, the primary context is shared with the caller, a caller
 * stream is used, device pointers of Lumen images. */
#include <lumen/lumen_cuda.h>

#include "../harness.h"
#include "cuda_driver.h"

enum { W = 301, H = 173, C = 4 };

static int same_as(lumen_image *want, const uint8_t *got, size_t pitch) {
    uint8_t *px;
    if (lumen_image_map(want, LUMEN_ACCESS_READ, &px)) return 0;
    for (int y = 0; y < lumen_image_height(want); y++)
        if (memcmp(px + y * lumen_image_stride(want), got + y * pitch,
                   (size_t)lumen_image_width(want) * lumen_image_channels(want)))
            return 0;
    return 1;
}

int main(void) {
    if (lumen_backend_available(LUMEN_BACKEND_CUDA) != LUMEN_OK) {
        printf("SKIP: %s\n", lumen_last_error());
        return 77;
    }
    void *primary = NULL;
    if (!cuda_driver_load(&primary)) {
        printf("FAIL: Lumen sees CUDA but the test cannot load the driver\n");
        return 1;
    }
    printf("devices: %s\n", lumen_backend_devices(LUMEN_BACKEND_CUDA));
    t_seed();
    size_t pitch = (W * C + 255) / 256 * 256, bytes = pitch * H;
    uint8_t *host = malloc(bytes), *back = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) host[i] = (uint8_t)t_rand();
    uint64_t d_src = 0, d_dst = 0;
    CHECK(cu.MemAlloc(&d_src, bytes) == 0 && cu.MemAlloc(&d_dst, bytes) == 0, "cuMemAlloc");
    cu.MemcpyHtoD(d_src, host, bytes);

    /* CPU reference for blur -> unsharp -> levels. */
    lumen_context *cpu = NULL;
    lumen_image *h_src = NULL, *r1 = NULL, *r2 = NULL, *want = NULL;
    CHECK_OK(lumen_context_create(LUMEN_BACKEND_CPU, &cpu));
    CHECK_OK(lumen_image_wrap(host, W, H, C, pitch, &h_src));
    CHECK_OK(lumen_image_create(W, H, C, &r1));
    CHECK_OK(lumen_image_create(W, H, C, &r2));
    CHECK_OK(lumen_image_create(W, H, C, &want));
    CHECK_OK(lumen_gaussian_blur(cpu, h_src, r1, 2.0f));
    CHECK_OK(lumen_unsharp_mask(cpu, r1, r2, 1.5f, 2.0f));
    CHECK_OK(lumen_levels(cpu, r2, want, 1.2f, -5.0f));

    /* Every pipeline on CUDA, caller memory in and out (primary context), vs the CPU. */
    for (int with_stream = 0; with_stream < 2; with_stream++) {
        void *stream = NULL;
        if (with_stream) CHECK(cu.StreamCreate(&stream, 0) == 0, "cuStreamCreate");
        lumen_cuda_options o = {0, with_stream ? primary : NULL, stream};
        lumen_context *gpu = NULL;
        lumen_image *src = NULL, *dst = NULL, *a = NULL, *b = NULL;
        CHECK_OK(lumen_cuda_context_create(&o, &gpu));
        CHECK_OK(lumen_cuda_image_wrap(gpu, d_src, W, H, C, pitch, &src));
        CHECK_OK(lumen_cuda_image_wrap(gpu, d_dst, W, H, C, pitch, &dst));
        CHECK_OK(lumen_image_create(W, H, C, &a));
        CHECK_OK(lumen_image_create(W, H, C, &b));
        lumen_context_reset_stats(gpu);
        CHECK_OK(lumen_gaussian_blur(gpu, src, a, 2.0f));
        CHECK_OK(lumen_unsharp_mask(gpu, a, b, 1.5f, 2.0f));
        CHECK_OK(lumen_levels(gpu, b, dst, 1.2f, -5.0f));
        CHECK_OK(lumen_image_sync(dst));
        if (stream) cu.StreamSynchronize(stream);
        lumen_transfer_stats s;
        lumen_context_stats(gpu, &s);
        CHECK(s.uploads == 0 && s.downloads == 0, "device chain moved pixels: %llu up, %llu down",
              (unsigned long long)s.uploads, (unsigned long long)s.downloads);
        memset(back, 0, bytes);
        cu.MemcpyDtoH(back, d_dst, bytes); /* the caller reads its own memory */
        CHECK(same_as(want, back, pitch), "CUDA chain into caller memory differs (stream %d)",
              with_stream);
        /* A Lumen image's device pointer, read by the caller. */
        uint64_t p = 0;
        size_t p_pitch = 0;
        CHECK_OK(lumen_cuda_image_device_ptr(gpu, b, &p, &p_pitch));
        memset(back, 0, bytes);
        CHECK(p && cu.MemcpyDtoH(back, p, p_pitch * H) == 0, "reading Lumen's device pointer");
        CHECK(same_as(r2, back, p_pitch), "device pointer of a Lumen image holds other pixels");
        lumen_image_destroy(src), lumen_image_destroy(dst);
        lumen_image_destroy(a), lumen_image_destroy(b);
        lumen_context_destroy(gpu);
        if (stream) cu.StreamDestroy(stream);
    }
    /* Caller memory survives its Lumen images. */
    CHECK(cu.MemcpyDtoH(back, d_src, bytes) == 0 && memcmp(back, host, bytes) == 0,
          "the caller's source memory changed or was freed");
    lumen_cuda_options bad = {99, NULL, NULL};
    lumen_context *none = NULL;
    CHECK(lumen_cuda_context_create(&bad, &none) == LUMEN_ERROR_INVALID_ARGUMENT, "device 99");
    cu.MemFree(d_src), cu.MemFree(d_dst);
    lumen_image_destroy(h_src), lumen_image_destroy(r1), lumen_image_destroy(r2);
    lumen_image_destroy(want);
    lumen_context_destroy(cpu);
    free(host), free(back);
    return t_summary();
}
