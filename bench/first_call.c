/* First-call latency and peak memory per call at 4K, per pipeline and backend (issue #16).
 * Usage: lumen_first_call            prints a Markdown table (runs each case in a fresh process)
 *        lumen_first_call PIPE BACKEND   one case: "first_ms warm_ms peak_mib"
 * First call: the first Lumen pipeline call of a fresh process (CPU: variant pick and thread pool
 * start; OpenCL: device init, kernel compile (PoCL's kernel cache off), copies). Warm: the median of the next 5 calls.
 * Peak: the process's peak RSS growth over the calls, past the images (allocated and touched
 * first). 3840x2160 RGB in (gray for sobel), same-size out (1920x1080 for resize). */
#include <lumen/lumen.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const pipes[] = {"levels", "grayscale", "gaussian_blur",
                                    "resize", "sobel",     "unsharp_mask"};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double peak_mib(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0; /* KiB on Linux */
}

static lumen_status run(const char *p, lumen_context *ctx, lumen_image *s, lumen_image *d) {
    if (!strcmp(p, "levels")) return lumen_levels(ctx, s, d, 1.2f, 10.0f);
    if (!strcmp(p, "grayscale")) return lumen_grayscale(ctx, s, d);
    if (!strcmp(p, "gaussian_blur")) return lumen_gaussian_blur(ctx, s, d, 2.0f);
    if (!strcmp(p, "resize")) return lumen_resize(ctx, s, d);
    if (!strcmp(p, "sobel")) return lumen_sobel(ctx, s, d);
    return lumen_unsharp_mask(ctx, s, d, 2.0f, 1.5f);
}

static int one(const char *p, const char *b) {
    lumen_backend backend = !strcmp(b, "opencl") ? LUMEN_BACKEND_OPENCL : LUMEN_BACKEND_CPU;
    setenv("POCL_KERNEL_CACHE", "0", 1); /* PoCL: compile the kernels now, not from its disk cache */
    if (lumen_backend_available(backend) != LUMEN_OK) return 77;
    int w = 3840, h = 2160, c = !strcmp(p, "sobel") ? 1 : 3;
    int dw = !strcmp(p, "resize") ? 1920 : w, dh = !strcmp(p, "resize") ? 1080 : h;
    int dc = !strcmp(p, "grayscale") || !strcmp(p, "sobel") ? 1 : c;
    lumen_context *ctx;
    lumen_image *s, *d;
    uint8_t *px;
    if (lumen_context_create(backend, &ctx) || lumen_image_create(w, h, c, &s) ||
        lumen_image_create(dw, dh, dc, &d) || lumen_image_map(s, LUMEN_ACCESS_WRITE, &px))
        return 1;
    for (size_t i = 0; i < lumen_image_stride(s) * (size_t)h; i++) px[i] = (uint8_t)(i * 2654435761u >> 24);
    uint8_t *q;
    if (lumen_image_map(d, LUMEN_ACCESS_WRITE, &q)) return 1;
    memset(q, 0, lumen_image_stride(d) * (size_t)dh);
    double base = peak_mib(), t = now_ms();
    if (run(p, ctx, s, d)) return 1;
    double first = now_ms() - t, warm[5];
    for (int i = 0; i < 5; i++) {
        t = now_ms();
        if (run(p, ctx, s, d)) return 1;
        warm[i] = now_ms() - t;
    }
    for (int i = 0; i < 5; i++) /* median of 5 */
        for (int j = i + 1; j < 5; j++)
            if (warm[j] < warm[i]) t = warm[i], warm[i] = warm[j], warm[j] = t;
    printf("%.2f %.2f %.1f\n", first, warm[2], peak_mib() - base);
    lumen_image_destroy(s);
    lumen_image_destroy(d);
    lumen_context_destroy(ctx);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3) return one(argv[1], argv[2]);
    printf("| pipeline | backend | first call ms | warm call ms | peak memory per call MiB |\n"
           "|---|---|---|---|---|\n");
    for (int b = 0; b < 2; b++)
        for (size_t i = 0; i < sizeof pipes / sizeof *pipes; i++) {
            const char *backend = b ? "opencl" : "cpu";
            char cmd[4096], line[256] = "";
            snprintf(cmd, sizeof cmd, "'%s' %s %s", argv[0], pipes[i], backend);
            FILE *f = popen(cmd, "r");
            if (!f) return 1;
            char *ok = fgets(line, sizeof line, f);
            int st = pclose(f);
            if (WIFEXITED(st) && WEXITSTATUS(st) == 77) continue; /* backend not here */
            double first, warm, peak;
            if (!ok || sscanf(line, "%lf %lf %lf", &first, &warm, &peak) != 3) {
                printf("| %s | %s | failed | | |\n", pipes[i], backend);
                continue;
            }
            printf("| %s | %s | %.2f | %.2f | %.1f |\n", pipes[i], backend, first, warm, peak);
        }
    return 0;
}
