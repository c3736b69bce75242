/* The device path on one GPU backend (argv[1], default opencl; PoCL in CI): device-resident
 * chains equal the CPU chains and move pixels exactly as often as they must; mixed chains; threads;
 * backend choice; no device memory leaks. argv[2] = "env": the default context must follow
 * LUMEN_BACKEND; "hidden": CUDA must be unavailable (CUDA_VISIBLE_DEVICES=""). With LUMEN_TEST_RAW
 * it runs on the ld --wrap build and also checks the counters against the runtime's own calls. */
#include <pthread.h>

#include "../harness.h"
#if LUMEN_TEST_RAW
#  include "raw_counts.h"
#endif

typedef enum { LEVELS, BLUR, UNSHARP, RESIZE, SOBEL, GRAYSCALE, LEVELS2 } stage;
static const char *const stage_names[] = {"levels", "blur",      "unsharp", "resize",
                                          "sobel",  "grayscale", "levels2"};
static lumen_backend gpu_backend = LUMEN_BACKEND_OPENCL;
static lumen_context *gpu, *cpu;

/* Runs one stage into a new Lumen image (resize: 3/4 of the size; grayscale: 1 channel). */
static lumen_image *run_stage(lumen_context *ctx, stage s, lumen_image *src) {
    int w = lumen_image_width(src), h = lumen_image_height(src), c = lumen_image_channels(src);
    if (s == RESIZE) w = w * 3 / 4 + 1, h = h * 3 / 4 + 1;
    if (s == GRAYSCALE) c = 1;
    lumen_image *dst = NULL;
    CHECK_OK(lumen_image_create(w, h, c, &dst));
    lumen_status st = LUMEN_OK;
    switch (s) {
        case LEVELS:
            st = lumen_levels(ctx, src, dst, 1.25f, -12.0f);
            break;
        case BLUR:
            st = lumen_gaussian_blur(ctx, src, dst, 1.7f);
            break;
        case UNSHARP:
            st = lumen_unsharp_mask(ctx, src, dst, 2.3f, 1.6f);
            break;
        case RESIZE:
            st = lumen_resize(ctx, src, dst);
            break;
        case SOBEL:
            st = lumen_sobel(ctx, src, dst);
            break;
        case GRAYSCALE:
            st = lumen_grayscale(ctx, src, dst);
            break;
        case LEVELS2:
            st = lumen_levels(ctx, src, dst, 0.8f, 30.0f);
            break;
    }
    CHECK(st == LUMEN_OK, "%s: %s", stage_names[s], lumen_last_error());
    return dst;
}

/* Runs stages[0..n) with ctxs[i] (NULL entries: gpu), returns the last image. */
static lumen_image *run_chain(lumen_context **ctxs, const stage *stages, int n, lumen_image *src) {
    lumen_image *cur = src;
    for (int i = 0; i < n; i++) {
        lumen_image *next = run_stage(ctxs && ctxs[i] ? ctxs[i] : gpu, stages[i], cur);
        if (cur != src) lumen_image_destroy(cur);
        cur = next;
    }
    return cur;
}

static lumen_transfer_stats stats(lumen_context *ctx) {
    lumen_transfer_stats s;
    CHECK_OK(lumen_context_stats(ctx, &s));
    return s;
}

#if LUMEN_TEST_RAW
/* Lumen's counters (all contexts of this test) against the runtime's calls since the last check. */
static raw_counts raw_before;
static lumen_transfer_stats lumen_before;
static lumen_transfer_stats all_stats(void) {
    lumen_transfer_stats g = stats(gpu), c = stats(cpu), t = g;
    t.uploads += c.uploads, t.downloads += c.downloads;
    t.device_allocations += c.device_allocations, t.device_frees += c.device_frees;
    return t;
}
static void raw_mark(void) {
    lumen_test_raw_counts(&raw_before);
    lumen_before = all_stats();
}
static void raw_check(const char *what) {
    raw_counts r;
    lumen_test_raw_counts(&r);
    lumen_transfer_stats l = all_stats();
    CHECK(l.uploads - lumen_before.uploads == r.uploads - raw_before.uploads &&
              l.downloads - lumen_before.downloads == r.downloads - raw_before.downloads &&
              l.device_allocations - lumen_before.device_allocations ==
                  r.allocations - raw_before.allocations &&
              l.device_frees - lumen_before.device_frees == r.frees - raw_before.frees,
          "%s: Lumen counted up %llu down %llu alloc %llu free %llu, the runtime did %llu %llu "
          "%llu %llu",
          what, (unsigned long long)(l.uploads - lumen_before.uploads),
          (unsigned long long)(l.downloads - lumen_before.downloads),
          (unsigned long long)(l.device_allocations - lumen_before.device_allocations),
          (unsigned long long)(l.device_frees - lumen_before.device_frees),
          (unsigned long long)(r.uploads - raw_before.uploads),
          (unsigned long long)(r.downloads - raw_before.downloads),
          (unsigned long long)(r.allocations - raw_before.allocations),
          (unsigned long long)(r.frees - raw_before.frees));
}
#else
static void raw_mark(void) {}
static void raw_check(const char *what) { (void)what; }
#endif

/* A device chain equals the CPU chain; one upload, one download, one allocation per image. */
static void check_chain(const stage *stages, int n, int channels) {
    char what[128];
    int len = snprintf(what, sizeof what, "%dch", channels);
    for (int i = 0; i < n; i++)
        len += snprintf(what + len, sizeof what - len, " %s", stage_names[stages[i]]);
    t_image src = t_image_new(173, 91, channels, 3, 1);
    lumen_context *on_cpu[8] = {cpu, cpu, cpu, cpu, cpu, cpu, cpu, cpu};
    lumen_image *want = run_chain(on_cpu, stages, n, src.img);

    lumen_context_reset_stats(gpu);
    raw_mark();
    lumen_image *got = run_chain(NULL, stages, n, src.img);
    CHECK(lumen_image_location(got) == gpu_backend, "%s: result not on the device", what);
    CHECK(t_same_pixels(got, want), "%s: device chain differs from the CPU chain", what);
    lumen_image_destroy(got);
    lumen_transfer_stats s = stats(gpu);
    CHECK(s.uploads == 1 && s.downloads == 1 && s.upload_bytes == 173u * 91 * channels,
          "%s: %llu uploads (%llu bytes), %llu downloads; want 1 and 1", what,
          (unsigned long long)s.uploads, (unsigned long long)s.upload_bytes,
          (unsigned long long)s.downloads);
    CHECK(s.device_allocations == (uint64_t)n + 1, "%s: %llu device allocations, want %d", what,
          (unsigned long long)s.device_allocations, n + 1);
    t_image_free(&src); /* frees the input's device copy too */
    s = stats(gpu);
    CHECK(s.device_frees == s.device_allocations, "%s: %llu allocations, %llu frees", what,
          (unsigned long long)s.device_allocations, (unsigned long long)s.device_frees);
    raw_check(what);
    lumen_image_destroy(want);
}

static void chains(void) {
    /* Gray: every order works, so both directions of each prefix. */
    const stage gray[] = {LEVELS, BLUR, UNSHARP, RESIZE, SOBEL, LEVELS2};
    for (int n = 2; n <= 6; n++) {
        stage fwd[6], rev[6];
        for (int i = 0; i < n; i++) fwd[i] = gray[i], rev[i] = gray[n - 1 - i];
        check_chain(fwd, n, 1);
        check_chain(rev, n, 1);
    }
    /* Colour, ending in grayscale + sobel. */
    const stage rgb[] = {LEVELS, BLUR, UNSHARP, RESIZE, GRAYSCALE, SOBEL};
    for (int n = 2; n <= 6; n++) check_chain(rgb, n, n % 2 ? 3 : 4);
}

/* gpu -> cpu -> gpu: correct, and every crossing counted against the call that made it. */
static void mixed_chain(void) {
    const stage s[] = {BLUR, LEVELS, UNSHARP};
    lumen_context *ctxs[] = {gpu, cpu, gpu};
    lumen_context *on_cpu[] = {cpu, cpu, cpu};
    t_image src = t_image_new(120, 80, 3, 0, 1);
    lumen_image *want = run_chain(on_cpu, s, 3, src.img);
    lumen_context_reset_stats(gpu);
    lumen_context_reset_stats(cpu);
    raw_mark();
    lumen_image *got = run_chain(ctxs, s, 3, src.img);
    CHECK(t_same_pixels(got, want), "mixed chain differs from the CPU chain");
    lumen_transfer_stats g = stats(gpu), c = stats(cpu);
    CHECK(g.uploads == 2 && g.downloads == 1 && c.uploads == 0 && c.downloads == 1,
          "mixed chain: gpu %llu up %llu down, cpu %llu up %llu down; want 2/1, 0/1",
          (unsigned long long)g.uploads, (unsigned long long)g.downloads,
          (unsigned long long)c.uploads, (unsigned long long)c.downloads);
    lumen_image_destroy(got);
    t_image_free(&src);
    raw_check("mixed chain");
    lumen_image_destroy(want);
}

/* Four threads, each its own context and device chain. */
typedef struct {
    lumen_image *src, *want;
    int ok;
} job;

static void *worker(void *arg) {
    job *j = (job *)arg;
    lumen_context *ctx = NULL;
    const stage s[] = {LEVELS, BLUR, UNSHARP, RESIZE};
    j->ok = 1;
    for (int round = 0; round < 5 && j->ok; round++) {
        if (lumen_context_create(gpu_backend, &ctx) != LUMEN_OK) return j->ok = 0, NULL;
        lumen_image *cur = j->src;
        for (int i = 0; i < 4 && cur; i++) {
            lumen_image *next = NULL;
            int w = lumen_image_width(cur), h = lumen_image_height(cur);
            if (s[i] == RESIZE) w = w * 3 / 4 + 1, h = h * 3 / 4 + 1;
            lumen_status st = lumen_image_create(w, h, lumen_image_channels(cur), &next);
            if (!st) switch (s[i]) {
                    case LEVELS:
                        st = lumen_levels(ctx, cur, next, 1.25f, -12.0f);
                        break;
                    case BLUR:
                        st = lumen_gaussian_blur(ctx, cur, next, 1.7f);
                        break;
                    case UNSHARP:
                        st = lumen_unsharp_mask(ctx, cur, next, 2.3f, 1.6f);
                        break;
                    default:
                        st = lumen_resize(ctx, cur, next);
                        break;
                }
            if (cur != j->src) lumen_image_destroy(cur);
            cur = next;
            if (st) j->ok = 0;
        }
        if (!cur || !t_same_pixels(cur, j->want)) j->ok = 0;
        lumen_image_destroy(cur);
        lumen_context_destroy(ctx);
    }
    return NULL;
}

static void threads(void) {
    const stage s[] = {LEVELS, BLUR, UNSHARP, RESIZE};
    lumen_context *on_cpu[] = {cpu, cpu, cpu, cpu};
    job jobs[4];
    t_image srcs[4];
    pthread_t tids[4];
    for (int i = 0; i < 4; i++) {
        srcs[i] = t_image_new(97 + 13 * i, 61 + 7 * i, i % 2 ? 3 : 1, 0, 1);
        jobs[i].src = srcs[i].img;
        jobs[i].want = run_chain(on_cpu, s, 4, srcs[i].img);
    }
    for (int i = 0; i < 4; i++) pthread_create(&tids[i], NULL, worker, &jobs[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(tids[i], NULL);
        CHECK(jobs[i].ok, "thread %d: device chain wrong or failed", i);
        lumen_image_destroy(jobs[i].want);
        t_image_free(&srcs[i]);
    }
}

/* auto, forced CUDA without a GPU, device-resident sources. */
static void backend_choice(void) {
    lumen_context *autoctx = NULL;
    CHECK_OK(lumen_context_create(LUMEN_BACKEND_AUTO, &autoctx));
    t_image src = t_image_new(40, 30, 3, 0, 1);
    lumen_image *host_out = run_stage(autoctx, LEVELS, src.img);
    lumen_backend preferred = lumen_backend_preferred();
    printf("auto prefers %s for host images\n", lumen_backend_name(preferred));
    CHECK(lumen_image_location(host_out) == preferred, "auto on a host image ran on %s",
          lumen_backend_name(lumen_image_location(host_out)));
    if (gpu_backend == LUMEN_BACKEND_OPENCL && lumen_backend_available(LUMEN_BACKEND_CUDA)) {
        /* No CUDA here and PoCL is a CPU device: auto must stay on the CPU. */
        CHECK(preferred == LUMEN_BACKEND_CPU, "auto prefers %s", lumen_backend_name(preferred));
    }
    lumen_image *on_gpu = run_stage(gpu, BLUR, src.img);
    lumen_image *follow = run_stage(autoctx, LEVELS, on_gpu);
    CHECK(lumen_image_location(follow) == gpu_backend,
          "auto did not follow a device-resident source");

    lumen_status avail = lumen_backend_available(LUMEN_BACKEND_CUDA);
    printf("cuda here: %s (%s)\n", lumen_status_string(avail), lumen_last_error());
    if (avail != LUMEN_OK) {
        lumen_context *cuda = NULL;
        CHECK_OK(lumen_context_create(LUMEN_BACKEND_CUDA, &cuda));
        t_image dst = t_image_new(40, 30, 3, 0, 0);
        lumen_status st = lumen_levels(cuda, src.img, dst.img, 1.0f, 0.0f);
        CHECK(st == LUMEN_ERROR_BACKEND_UNAVAILABLE && strstr(lumen_last_error(), "cuda"),
              "forced cuda without a device: %s (%s)", lumen_status_string(st), lumen_last_error());
        int untouched = 1;
        for (size_t i = 0; i < dst.ref.stride * 30; i++) untouched &= dst.mem[i] == T_CANARY;
        CHECK(untouched, "forced cuda without a device wrote the destination");
        st = lumen_gaussian_blur(cuda, on_gpu, dst.img, 2.0f); /* device source, wrong backend */
        CHECK(st == LUMEN_ERROR_BACKEND_UNAVAILABLE, "forced cuda, opencl source: %s",
              lumen_status_string(st));
        t_image_free(&dst);
        lumen_context_destroy(cuda);
    }
    lumen_image_destroy(host_out);
    lumen_image_destroy(on_gpu);
    lumen_image_destroy(follow);
    t_image_free(&src);
    lumen_context_destroy(autoctx);
}

/* 10k create/run/destroy cycles: every device allocation freed; the cache can be emptied. */
static void cycles(void) {
    lumen_context *ctx = gpu;
    lumen_context_reset_stats(ctx);
    raw_mark();
    int failures = 0;
    for (int i = 0; i < 10000; i++) {
        lumen_image *a = NULL, *b = NULL;
        if (lumen_image_create(16 + i % 7, 8, 3, &a) || lumen_image_create(16 + i % 7, 8, 3, &b) ||
            lumen_levels(ctx, a, b, 1.5f, 3.0f))
            failures++;
        lumen_image_destroy(a);
        lumen_image_destroy(b);
    }
    lumen_transfer_stats s = stats(ctx);
    CHECK(failures == 0, "%d of 10000 cycles failed: %s", failures, lumen_last_error());
    CHECK(s.device_allocations == 20000 && s.device_frees == 20000,
          "10k cycles: %llu device allocations, %llu frees (want 20000 each)",
          (unsigned long long)s.device_allocations, (unsigned long long)s.device_frees);
    raw_check("10k cycles");
    CHECK_OK(lumen_release_device_memory());
}

/* The context outlives its destroy call while an image still holds device memory from it. */
static void context_lifetime(void) {
    lumen_context *ctx = NULL;
    CHECK_OK(lumen_context_create(gpu_backend, &ctx));
    t_image src = t_image_new(33, 17, 4, 0, 1);
    lumen_image *out = run_stage(ctx, UNSHARP, src.img);
    lumen_context_destroy(ctx); /* out still references it */
    uint8_t *px = NULL;
    CHECK_OK(lumen_image_map(out, LUMEN_ACCESS_READ, &px));
    lumen_image_destroy(out);
    t_image_free(&src);
}

/* Views and planar images of images already on the device run there as device crops: a chain
 * through them moves nothing, and gives the CPU's pixels. Offsets are multiples of 4 KiB, within
 * any device's crop alignment (an OpenCL device's CL_DEVICE_MEM_BASE_ADDR_ALIGN). */
static void views_on_device(void) {
    t_image src = t_image_new(1024, 48, 4, 0, 1); /* rows of 4 KiB */
    lumen_image *img[2][2], *view[2][2];          /* [cpu, gpu][a, b] */
    for (int g = 0; g < 2; g++) {
        lumen_context *ctx = g ? gpu : cpu;
        for (int k = 0; k < 2; k++) {
            CHECK_OK(lumen_image_create(1024, 48, 4, &img[g][k]));
            CHECK_OK(lumen_levels(ctx, src.img, img[g][k], k ? 1.0f : 1.2f, k ? 0.0f : 5.0f));
            CHECK_OK(lumen_image_view(img[g][k], 0, 8 * (k + 1), 1024, 16, 0, &view[g][k]));
        }
        if (g) lumen_context_reset_stats(gpu), raw_mark();
        CHECK_OK(lumen_gaussian_blur(ctx, view[g][0], view[g][1], 2.0f));
        CHECK_OK(lumen_unsharp_mask(ctx, view[g][1], view[g][0], 1.0f, 1.5f));
    }
    lumen_transfer_stats s = stats(gpu);
    CHECK(s.uploads == 0 && s.downloads == 0 && s.device_allocations == 0,
          "views of device images: %llu uploads, %llu downloads, %llu allocations; want none",
          (unsigned long long)s.uploads, (unsigned long long)s.downloads,
          (unsigned long long)s.device_allocations);
    CHECK(lumen_image_location(img[1][0]) == gpu_backend, "view results not on the device");
    raw_check("views on the device");
    for (int k = 0; k < 2; k++) {
        CHECK(t_same_pixels(img[1][k], img[0][k]), "views on the device: image %d differs", k);
        for (int g = 0; g < 2; g++) lumen_image_destroy(view[g][k]), lumen_image_destroy(img[g][k]);
    }
    /* planar: planes of 48 KiB */
    lumen_image *pl[2][2];
    for (int g = 0; g < 2; g++) {
        lumen_context *ctx = g ? gpu : cpu;
        for (int k = 0; k < 2; k++) {
            uint8_t *px;
            CHECK_OK(lumen_image_create_format(1024, 48, LUMEN_FORMAT_RGB8_PLANAR, &pl[g][k]));
            CHECK_OK(lumen_image_map(pl[g][k], LUMEN_ACCESS_WRITE, &px));
            for (size_t i = 0; i < 3 * 1024 * 48; i++) px[i] = (uint8_t)(i * 7 + (i >> 10));
        }
        if (g) lumen_context_reset_stats(gpu), raw_mark();
        CHECK_OK(lumen_levels(ctx, pl[g][0], pl[g][1], 0.8f, 20.0f));
        if (g) { /* the source uploaded; the new destination, wholly written, is not */
            lumen_transfer_stats u = stats(gpu);
            CHECK(u.uploads == 1 && u.device_allocations == 2,
                  "planar levels to a new image: %llu uploads, %llu allocations; want 1 and 2",
                  (unsigned long long)u.uploads, (unsigned long long)u.device_allocations);
            raw_check("planar to a new image");
            lumen_context_reset_stats(gpu), raw_mark();
        }
        CHECK_OK(lumen_gaussian_blur(ctx, pl[g][1], pl[g][0], 3.0f));
        CHECK_OK(lumen_levels(ctx, pl[g][0], pl[g][0], 1.5f, -10.0f));
    }
    s = stats(gpu);
    CHECK(s.uploads == 0 && s.downloads == 0 && s.device_allocations == 0,
          "planar device images: %llu uploads, %llu downloads, %llu allocations; want none",
          (unsigned long long)s.uploads, (unsigned long long)s.downloads,
          (unsigned long long)s.device_allocations);
    raw_check("planar on the device");
    for (int k = 0; k < 2; k++) {
        uint8_t *a, *b;
        CHECK_OK(lumen_image_map(pl[0][k], LUMEN_ACCESS_READ, &a));
        CHECK_OK(lumen_image_map(pl[1][k], LUMEN_ACCESS_READ, &b));
        CHECK(a && b && !memcmp(a, b, 3 * 1024 * 48), "planar on the device: image %d differs", k);
        lumen_image_destroy(pl[0][k]), lumen_image_destroy(pl[1][k]);
    }
    t_image_free(&src);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) gpu_backend = LUMEN_BACKEND_CUDA;
    const char *mode = argc > 2 ? argv[2] : "";
    t_seed();
    if (strcmp(mode, "hidden") == 0) { /* CUDA_VISIBLE_DEVICES="" */
        CHECK(lumen_backend_available(LUMEN_BACKEND_CUDA) == LUMEN_ERROR_BACKEND_UNAVAILABLE,
              "cuda available with CUDA_VISIBLE_DEVICES empty");
        printf("cuda: %s\n", lumen_last_error());
        return t_summary();
    }
    if (strcmp(mode, "env") == 0) { /* LUMEN_BACKEND=<backend> */
        t_image src = t_image_new(16, 16, 1, 0, 1);
        lumen_image *out = run_stage(NULL, SOBEL, src.img);
        CHECK(lumen_context_policy(NULL) == gpu_backend, "default policy %s",
              lumen_backend_name(lumen_context_policy(NULL)));
        CHECK(lumen_image_location(out) == gpu_backend, "default context ran on %s",
              lumen_backend_name(lumen_image_location(out)));
        lumen_image_destroy(out);
        t_image_free(&src);
        return t_summary();
    }
    if (lumen_backend_available(gpu_backend) != LUMEN_OK) {
        printf("SKIP: %s\n", lumen_last_error());
        return 77;
    }
    CHECK_OK(lumen_context_create(gpu_backend, &gpu));
    CHECK_OK(lumen_context_create(LUMEN_BACKEND_CPU, &cpu));
    chains();
    mixed_chain();
    views_on_device();
    threads();
    backend_choice();
    context_lifetime();
    cycles();
    lumen_context_destroy(gpu);
    lumen_context_destroy(cpu);
    return t_summary();
}
