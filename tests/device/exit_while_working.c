/* Returning from main while worker threads are inside pipeline calls (a GUI closed mid-batch):
 * the process must exit 0, not crash in Halide's or the driver's exit-time teardown. argv[1]:
 * backend (cpu | opencl); argv[2]: run number, which picks the delay (0..90 ms) after every
 * thread has finished one round (so kernels are compiled: see lumen.c's exit fence). Before the
 * exit fence, OpenCL runs crashed in about one run of three. */
#include <lumen/lumen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { THREADS = 4 };
static lumen_backend backend;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void *work(void *arg) {
    (void)arg;
    lumen_context *ctx = NULL;
    lumen_image *a = NULL, *b = NULL;
    if (lumen_context_create(backend, &ctx) || lumen_image_create(640, 480, 3, &a) ||
        lumen_image_create(640, 480, 3, &b))
        abort();
    for (int round = 0;; round++) {
        uint8_t *p;
        if (lumen_gaussian_blur(ctx, a, b, 2.0f) || lumen_levels(ctx, b, a, 1.1f, 1.0f) ||
            lumen_image_map(a, LUMEN_ACCESS_WRITE, &p))
            abort();
        if (round == 0) {
            pthread_mutex_lock(&lock);
            ready++;
            pthread_cond_signal(&cond);
            pthread_mutex_unlock(&lock);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    backend = argc > 1 && !strcmp(argv[1], "opencl") ? LUMEN_BACKEND_OPENCL : LUMEN_BACKEND_CPU;
    int ms = argc > 2 ? atoi(argv[2]) * 10 % 100 : 0;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, work, NULL);
    pthread_mutex_lock(&lock);
    while (ready < THREADS) pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    struct timespec d = {0, ms * 1000000L};
    nanosleep(&d, NULL);
    printf("main returns %d ms after %d threads started pipelines on %s\n", ms, THREADS,
           lumen_backend_name(backend));
    return 0;
}
