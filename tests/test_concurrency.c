/* 8 threads x mixed pipelines x 1000 iterations: results bit-exact with the serial run, and one
 * thread's errors never show up in another thread's lumen_last_error(). */
#include <pthread.h>

#include "harness.h"

enum { THREADS = 8, ITERATIONS = 1000, INPUTS = 4, PIPELINES = 6 };

static t_image inputs[INPUTS];
static lumen_image *serial[INPUTS][PIPELINES];

/* Pipeline p on src into a new image (NULL on failure). */
static lumen_image *run(int p, lumen_image *src) {
    int w = lumen_image_width(src), h = lumen_image_height(src), c = lumen_image_channels(src);
    lumen_image *src1 = src, *dst = NULL;
    if (p == 4 && c != 1) return NULL; /* sobel: gray only */
    if (p == 1 && c == 1) return NULL; /* grayscale: colour only */
    if (lumen_image_create(p == 3 ? w / 2 + 3 : w, p == 3 ? h * 2 : h, p == 1 ? 1 : c, &dst))
        return NULL;
    lumen_status st = LUMEN_ERROR_INTERNAL;
    switch (p) {
        case 0:
            st = lumen_levels(NULL, src1, dst, 1.3f, -7.0f);
            break;
        case 1:
            st = lumen_grayscale(NULL, src1, dst);
            break;
        case 2:
            st = lumen_gaussian_blur(NULL, src1, dst, 2.2f);
            break;
        case 3:
            st = lumen_resize(NULL, src1, dst);
            break;
        case 4:
            st = lumen_sobel(NULL, src1, dst);
            break;
        case 5:
            st = lumen_unsharp_mask(NULL, src1, dst, 1.2f, 2.5f);
            break;
    }
    if (st) lumen_image_destroy(dst), dst = NULL;
    return dst;
}

static int same(lumen_image *a, lumen_image *b) {
    uint8_t *pa, *pb;
    if (lumen_image_map(a, LUMEN_ACCESS_READ, &pa) || lumen_image_map(b, LUMEN_ACCESS_READ, &pb))
        return 0;
    size_t row = (size_t)lumen_image_width(a) * lumen_image_channels(a);
    for (int y = 0; y < lumen_image_height(a); y++)
        if (memcmp(pa + y * lumen_image_stride(a), pb + y * lumen_image_stride(b), row)) return 0;
    return 1;
}

typedef struct {
    int id, wrong, leaked, missing;
} worker_t;

static void *worker(void *arg) {
    worker_t *t = (worker_t *)arg;
    char mine[64];
    float sigma = 100.0f + (float)t->id; /* out of range: an error only this thread makes */
    snprintf(mine, sizeof mine, "sigma %g", (double)sigma);
    for (int i = 0; i < ITERATIONS; i++) {
        int in = (i + t->id) % INPUTS, p = (i * 7 + t->id) % PIPELINES;
        if (serial[in][p]) {
            lumen_image *out = run(p, inputs[in].img);
            if (!out || !same(out, serial[in][p])) t->wrong++;
            if (lumen_last_error()[0]) t->leaked++; /* a success leaves the thread's error empty */
            lumen_image_destroy(out);
        }
        if (i % 10 == 0) {
            lumen_image *dst = NULL;
            lumen_image_create(8, 8, 1, &dst);
            lumen_image *src = inputs[0].img;
            if (lumen_gaussian_blur(NULL, src, dst, sigma) != LUMEN_ERROR_SIZE_MISMATCH &&
                !strstr(lumen_last_error(), "lumen_gaussian_blur"))
                t->missing++;
            lumen_image_destroy(dst);
            lumen_image *same_size = NULL;
            lumen_image_create(lumen_image_width(src), lumen_image_height(src),
                               lumen_image_channels(src), &same_size);
            if (lumen_gaussian_blur(NULL, src, same_size, sigma) != LUMEN_ERROR_INVALID_ARGUMENT ||
                !strstr(lumen_last_error(), mine))
                t->missing++;
            lumen_image_destroy(same_size);
        }
    }
    return NULL;
}

#ifdef __linux__
#  include <dirent.h>
static int os_threads(void) { /* threads of this process */
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static void *nothing(void *arg) { return arg; }

/* lumen_set_num_threads controls Halide's one pool, shrinking it too (restart). */
static void check_thread_setting(void) {
    pthread_t t; /* ThreadSanitizer starts its own thread at the first pthread_create */
    pthread_create(&t, NULL, nothing, NULL);
    pthread_join(t, NULL);
    t_image a = t_image_new(512, 512, 1, 0, 1), b = t_image_new(512, 512, 1, 0, 0);
    lumen_context *cpu = NULL;
    CHECK_OK(lumen_context_create(LUMEN_BACKEND_CPU, &cpu));
    int before = os_threads();
    lumen_set_num_threads(3);
    CHECK_OK(lumen_gaussian_blur(cpu, a.img, b.img, 2.0f));
    int grown = os_threads() - before;
    CHECK(lumen_set_num_threads(1) == 3, "previous setting not returned");
    CHECK_OK(lumen_gaussian_blur(cpu, a.img, b.img, 2.0f));
    int shrunk = os_threads() - before;
    printf("pool workers: %d with 3 threads, %d with 1\n", grown, shrunk);
    CHECK(grown == 2 && shrunk == 0, "workers %d (want 2), then %d (want 0)", grown, shrunk);
    lumen_set_num_threads(0);
    lumen_context_destroy(cpu);
    t_image_free(&a);
    t_image_free(&b);
}
#else
static void check_thread_setting(void) {}
#endif

int main(void) {
    t_seed();
    check_thread_setting();
    for (int i = 0; i < INPUTS; i++)
        inputs[i] = t_image_new(37 + 11 * i, 23 + 5 * i, i % 2 ? 1 : 3 + i / 2, i, 1);
    for (int i = 0; i < INPUTS; i++)
        for (int p = 0; p < PIPELINES; p++) serial[i][p] = run(p, inputs[i].img);
    pthread_t tids[THREADS];
    worker_t workers[THREADS] = {{0}};
    for (int t = 0; t < THREADS; t++) {
        workers[t].id = t;
        pthread_create(&tids[t], NULL, worker, &workers[t]);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tids[t], NULL);
        CHECK(workers[t].wrong == 0, "thread %d: %d results differ from the serial run", t,
              workers[t].wrong);
        CHECK(workers[t].leaked == 0, "thread %d: %d successes saw an error message", t,
              workers[t].leaked);
        CHECK(workers[t].missing == 0, "thread %d: %d errors without this thread's own message", t,
              workers[t].missing);
    }
    for (int i = 0; i < INPUTS; i++) {
        for (int p = 0; p < PIPELINES; p++) lumen_image_destroy(serial[i][p]);
        t_image_free(&inputs[i]);
    }
    return t_summary();
}
