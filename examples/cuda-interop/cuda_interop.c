/* Lumen in a CUDA application: the image lives in cudaMalloc'd memory, three pipelines run on the
 * GPU in the device's primary context (the one the CUDA runtime uses), nothing crosses to the host
 * until the application copies the result back. Exit 77 = no usable GPU (skip). */
#include <cuda_runtime_api.h>
#include <lumen/lumen_cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LUMEN_TRY(call)                                       \
  do {                                                        \
    if ((call) != LUMEN_OK) {                                 \
      fprintf(stderr, "%s: %s\n", #call, lumen_last_error()); \
      return 1;                                               \
    }                                                         \
  } while (0)

enum { W = 1920, H = 1080, C = 4 };

/* blur -> unsharp -> levels on ctx, src to dst. */
static lumen_status chain(lumen_context *ctx, lumen_image *src, lumen_image *dst) {
    lumen_image *a = NULL, *b = NULL;
    lumen_status s = lumen_image_create(W, H, C, &a);
    if (!s) s = lumen_image_create(W, H, C, &b);
    if (!s) s = lumen_gaussian_blur(ctx, src, a, 1.5f);
    if (!s) s = lumen_unsharp_mask(ctx, a, b, 2.0f, 1.0f);
    if (!s) s = lumen_levels(ctx, b, dst, 1.1f, -8.0f);
    if (!s) s = lumen_image_sync(dst);
    lumen_image_destroy(a);
    lumen_image_destroy(b);
    return s;
}

int main(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0 ||
        lumen_backend_available(LUMEN_BACKEND_CUDA) != LUMEN_OK) {
        printf("SKIP: no usable CUDA device (%s)\n", n ? lumen_last_error() : "cudart: none");
        return 77;
    }
    size_t row = (size_t)W * C, pitch = 0;
    unsigned char *host = malloc(row * H), *back = malloc(row * H);
    for (size_t i = 0; i < row * H; i++) host[i] = (unsigned char)(rand() >> 7);
    void *d_src = NULL, *d_dst = NULL;
    if (cudaMallocPitch(&d_src, &pitch, row, H) != cudaSuccess ||
        cudaMalloc(&d_dst, row * H) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy2D(d_src, pitch, host, row, row, H, cudaMemcpyHostToDevice);

    /* NULL options: device 0, its primary context, the default stream. */
    lumen_context *gpu = NULL, *cpu = NULL;
    lumen_image *src = NULL, *dst = NULL, *h_src = NULL, *want = NULL;
    LUMEN_TRY(lumen_cuda_context_create(NULL, &gpu));
    LUMEN_TRY(lumen_cuda_image_wrap(gpu, (uint64_t)(uintptr_t)d_src, W, H, C, pitch, &src));
    LUMEN_TRY(lumen_cuda_image_wrap(gpu, (uint64_t)(uintptr_t)d_dst, W, H, C, row, &dst));
    LUMEN_TRY(chain(gpu, src, dst));
    lumen_transfer_stats st;
    lumen_context_stats(gpu, &st);
    cudaMemcpy(back, d_dst, row * H, cudaMemcpyDeviceToHost);

    /* The same chain on the CPU. */
    LUMEN_TRY(lumen_context_create(LUMEN_BACKEND_CPU, &cpu));
    LUMEN_TRY(lumen_image_wrap(host, W, H, C, row, &h_src));
    LUMEN_TRY(lumen_image_create(W, H, C, &want));
    LUMEN_TRY(chain(cpu, h_src, want));
    unsigned char *px = NULL;
    LUMEN_TRY(lumen_image_map(want, LUMEN_ACCESS_READ, &px));
    size_t diff = 0;
    for (int y = 0; y < H; y++)
        for (size_t x = 0; x < row; x++)
            diff += px[y * lumen_image_stride(want) + x] != back[y * row + x];

    printf("CUDA chain %dx%d RGBA on %s: %zu bytes differ from the CPU, %llu host transfers\n", W,
           H, lumen_backend_devices(LUMEN_BACKEND_CUDA), diff,
           (unsigned long long)(st.uploads + st.downloads));
    lumen_image_destroy(src), lumen_image_destroy(dst);
    lumen_image_destroy(h_src), lumen_image_destroy(want);
    lumen_context_destroy(gpu), lumen_context_destroy(cpu);
    cudaFree(d_src), cudaFree(d_dst);
    free(host), free(back);
    return diff == 0 && st.uploads + st.downloads == 0 ? 0 : 1;
}
