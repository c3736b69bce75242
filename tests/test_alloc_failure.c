/* Allocation failure anywhere: the program's own malloc/calloc/realloc (which the libraries'
 * calls reach, the executable's definitions coming first) fail the Nth call, for N = 1, 2, ...
 * until a round needs fewer. Each round restarts Halide's thread pool (lumen_set_num_threads),
 * so worker threads are spawned inside it, then makes images and runs pipelines. Every call must
 * return OK or OUT_OF_MEMORY, never crash; after each round, with allocation working again, the
 * same calls must succeed; and (shared library) the blocks liblumen holds after the sweep must
 * be as many as before it: nothing leaks on a failure path. Before Lumen's own
 * halide_spawn_thread (sdk/src/threads.c) this crashed when the failure hit the runtime's thread
 * start. glibc only (__libc_malloc). */
#define _GNU_SOURCE
#include "harness.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static long fail_at, calls;
static int failed;

static int fail_now(void) {
    if (!fail_at || ++calls != fail_at) return 0;
    failed = 1;
    return 1;
}

/* Blocks allocated by code in liblumen.so (Lumen's C code, the Halide pipelines and runtime),
 * told by return address, in an open-addressing set with tombstones. */
enum { SET = 1 << 16 };
static void *live[SET];
static long n_live;
static uintptr_t lumen_lo, lumen_hi;
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;

static void track(void *p, const void *caller) {
    if (!p || (uintptr_t)caller < lumen_lo || (uintptr_t)caller >= lumen_hi) return;
    pthread_mutex_lock(&set_lock);
    size_t i = ((uintptr_t)p >> 4) & (SET - 1);
    while (live[i] && live[i] != (void *)1) i = (i + 1) & (SET - 1);
    live[i] = p, n_live++;
    pthread_mutex_unlock(&set_lock);
}
static void untrack(void *p) {
    if (!p || !lumen_hi) return;
    pthread_mutex_lock(&set_lock);
    for (size_t i = ((uintptr_t)p >> 4) & (SET - 1); live[i]; i = (i + 1) & (SET - 1))
        if (live[i] == p) {
            live[i] = (void *)1, n_live--;
            break;
        }
    pthread_mutex_unlock(&set_lock);
}
void *malloc(size_t n) {
    void *p = fail_now() ? NULL : __libc_malloc(n);
    track(p, __builtin_return_address(0));
    return p;
}
void *calloc(size_t n, size_t m) {
    void *p = fail_now() ? NULL : __libc_calloc(n, m);
    track(p, __builtin_return_address(0));
    return p;
}
void *realloc(void *q, size_t n) {
    if (fail_now()) return NULL;
    untrack(q);
    void *p = __libc_realloc(q, n);
    track(p, __builtin_return_address(0));
    return p;
}
void free(void *p) {
    untrack(p);
    __libc_free(p);
}

static int find_lumen(struct dl_phdr_info *info, size_t size, void *base) {
    (void)size;
    if (info->dlpi_addr != (uintptr_t)base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        if (ph->p_type == PT_LOAD && end > lumen_hi) lumen_hi = end;
    }
    lumen_lo = info->dlpi_addr;
    return 1;
}

static lumen_status round_of_calls(int *bad) {
    lumen_image *a = NULL, *b = NULL, *g = NULL, *c = NULL;
    lumen_status worst = LUMEN_OK, st[9];
    static const double rot[6] = {0.8, 0.6, -30, -0.6, 0.8, 90}; /* its map and packed source */
    lumen_set_num_threads(2); /* the pool restarts: threads are spawned by the next call */
    st[0] = lumen_image_create(300, 200, 3, &a);
    st[1] = lumen_image_create(300, 200, 3, &b);
    st[2] = lumen_image_create(300, 200, 1, &g);
    st[3] = a && b ? lumen_gaussian_blur(NULL, a, b, 2.0f) : LUMEN_ERROR_OUT_OF_MEMORY;
    st[4] = a && g ? lumen_grayscale(NULL, a, g) : LUMEN_ERROR_OUT_OF_MEMORY;
    st[5] = a && b ? lumen_resize(NULL, a, b) : LUMEN_ERROR_OUT_OF_MEMORY;
    st[6] = a && b ? lumen_warp_affine(NULL, a, b, rot, 0, LUMEN_BORDER_CONSTANT, NULL)
                   : LUMEN_ERROR_OUT_OF_MEMORY;
    st[7] = lumen_image_create(110, 70, 3, &c); /* area: the general path's rows and tables */
    st[8] = a && c ? lumen_resize_interp(NULL, a, c, LUMEN_INTER_AREA) : LUMEN_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < 9; i++) {
        if (st[i] != LUMEN_OK && st[i] != LUMEN_ERROR_OUT_OF_MEMORY) {
            printf("call %d: %s (%s)\n", i, lumen_status_string(st[i]), lumen_last_error());
            (*bad)++;
        }
        if (st[i] != LUMEN_OK) worst = st[i];
    }
    lumen_image_destroy(a), lumen_image_destroy(b), lumen_image_destroy(g), lumen_image_destroy(c);
    return worst;
}

int main(void) {
    t_seed();
    int bad = 0, rounds = 0, oom = 0, warm = 0;
    Dl_info lib;
    int shared = dladdr((void *)lumen_version, &lib) && strstr(lib.dli_fname, "liblumen.so");
    if (shared) dl_iterate_phdr(find_lumen, lib.dli_fbase);
    round_of_calls(&warm), round_of_calls(&warm); /* the pool and caches settle */
    lumen_release_device_memory(); /* the cache of freed host buffers emptied (hostmem.c) */
    long before = n_live;
    if (shared) { /* the tracking itself: an image's two blocks are seen, then freed */
        lumen_image *img = NULL;
        CHECK_OK(lumen_image_create(8, 8, 1, &img));
        CHECK(n_live == before + 2, "tracking: %ld blocks for an image, want 2", n_live - before);
        lumen_image_destroy(img);
        CHECK(n_live == before, "tracking: image freed, %ld blocks left", n_live - before);
    }
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
    if (shared) {
        lumen_release_device_memory();
        printf("blocks held by liblumen: %ld before the sweep, %ld after\n", before, n_live);
        CHECK(n_live == before, "%ld blocks leaked on failure paths", n_live - before);
    }
    return t_summary();
}
