/* Returning from main while worker threads are inside pipeline calls (a GUI closed mid-batch):
 * the process must exit cleanly. argv[1]: backend (cpu | opencl); argv[2]: ms before main
 * returns. The threads never stop by themselves. */
#include <lumen/lumen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static lumen_backend backend;

static void *work(void *arg) {
    (void)arg;
    lumen_context *ctx = NULL;
    lumen_image *a = NULL, *b = NULL;
    if (lumen_context_create(backend, &ctx) || lumen_image_create(640, 480, 3, &a) ||
        lumen_image_create(640, 480, 3, &b))
        abort();
    for (;;) {
        uint8_t *p;
        if (lumen_gaussian_blur(ctx, a, b, 2.0f) || lumen_levels(ctx, b, a, 1.1f, 1.0f) ||
            lumen_image_map(a, LUMEN_ACCESS_WRITE, &p))
            abort();
    }
    return NULL;
}

int main(int argc, char **argv) {
    backend = argc > 1 && !strcmp(argv[1], "opencl") ? LUMEN_BACKEND_OPENCL : LUMEN_BACKEND_CPU;
    int ms = argc > 2 ? atoi(argv[2]) : 100;
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, NULL);
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
    printf("main returns while 4 threads run pipelines on %s\n", lumen_backend_name(backend));
    return 0;
}
