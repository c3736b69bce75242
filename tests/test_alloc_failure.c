/* Allocation failure anywhere: the program's own malloc/calloc/realloc (which the libraries'
 * calls reach, the executable's definitions coming first) fail the Nth call, for N = 1, 2, ...
 * until a round needs fewer. Each round restarts Halide's thread pool (lumen_set_num_threads),
 * so worker threads are spawned inside it, then makes images and runs pipelines. Every call must
 * return OK or OUT_OF_MEMORY, never crash; after each round, with allocation working again, the
 * same calls must succeed. Before Lumen's own halide_spawn_thread (sdk/src/threads.c) this crashed
 * when the failure hit the runtime's thread start. glibc only (__libc_malloc). */
#include "harness.h"

#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long fail_at, calls;
static int failed;

static int fail_now(void) {
    if (!fail_at || ++calls != fail_at) return 0;
    failed = 1;
    return 1;
}
void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return fail_now() ? NULL : __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }

static lumen_status round_of_calls(int *bad) {
    lumen_image *a = NULL, *b = NULL, *g = NULL;
    lumen_status worst = LUMEN_OK, st[6];
    lumen_set_num_threads(2); /* the pool restarts: threads are spawned by the next call */
    st[0] = lumen_image_create(300, 200, 3, &a);
    st[1] = lumen_image_create(300, 200, 3, &b);
    st[2] = lumen_image_create(300, 200, 1, &g);
    st[3] = a && b ? lumen_gaussian_blur(NULL, a, b, 2.0f) : LUMEN_ERROR_OUT_OF_MEMORY;
    st[4] = a && g ? lumen_grayscale(NULL, a, g) : LUMEN_ERROR_OUT_OF_MEMORY;
    st[5] = a && b ? lumen_resize(NULL, a, b) : LUMEN_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < 6; i++) {
        if (st[i] != LUMEN_OK && st[i] != LUMEN_ERROR_OUT_OF_MEMORY) {
            printf("call %d: %s (%s)\n", i, lumen_status_string(st[i]), lumen_last_error());
            (*bad)++;
        }
        if (st[i] != LUMEN_OK) worst = st[i];
    }
    lumen_image_destroy(a), lumen_image_destroy(b), lumen_image_destroy(g);
    return worst;
}

int main(void) {
    t_seed();
    int bad = 0, rounds = 0, oom = 0;
    for (long n = 1; n < 100000; n++) {
        calls = 0, failed = 0, fail_at = n;
        lumen_status st = round_of_calls(&bad);
        fail_at = 0;
        int hit = failed;
        oom += st == LUMEN_ERROR_OUT_OF_MEMORY;
        rounds++;
        int again = 0;
        CHECK(round_of_calls(&again) == LUMEN_OK && again == 0, "round %ld: no recovery", n);
        if (!hit) break; /* this round needed fewer than n allocations: all were covered */
    }
    CHECK(bad == 0, "%d calls returned another status than OK / OUT_OF_MEMORY", bad);
    printf("%d rounds (one failing allocation each), %d reported OUT_OF_MEMORY\n", rounds, oom);
    return t_summary();
}
