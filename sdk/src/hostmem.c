/* Halide's host allocations (a pipeline's intermediate rows: per strip of rows, per call) through
 * a small cache of freed blocks. glibc gives the top of its heap back to the system whenever a free
 * leaves more than M_TRIM_THRESHOLD there (128 KiB until the program frees a large block, which
 * raises it), so in such a program every strip's buffers were page-faulted in again: morphology
 * open 7x7, 1080p gray, 1 thread, 2.2 ms against 1.3 ms with the heap left alone; a 4K source's
 * copy with its border (lumen_context_set_border) paid 7 ms of page faults per call. Blocks of up
 * to MAX_BLOCK bytes are kept, MAX_CACHED in all, and reused for a request of at least half their
 * size; lumen_release_device_memory frees them. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>

enum { SLOTS = 32, ALIGN = 128 }; /* Halide asks for 128-byte alignment at most */
#define MAX_BLOCK ((size_t)32 << 20)
#define MAX_CACHED ((size_t)64 << 20)

typedef struct {
    void *raw;  /* what malloc returned */
    size_t cap; /* usable bytes */
} header;       /* just before each block */

static lumen__mutex lock = LUMEN__MUTEX_INIT;
static void *slot[SLOTS]; /* cached blocks; NULL: an empty slot */
static size_t cached;     /* their bytes */

static header *head(void *p) { return (header *)p - 1; }

static void *host_malloc(void *user_context, size_t n) {
    (void)user_context;
    void *p = NULL;
    lumen__lock(&lock);
    for (int i = 0; i < SLOTS && !p; i++) {
        if (slot[i] && head(slot[i])->cap >= n && head(slot[i])->cap / 2 <= n) {
            p = slot[i];
            slot[i] = NULL;
            cached -= head(p)->cap;
        }
    }
    lumen__unlock(&lock);
    if (p || n > SIZE_MAX - ALIGN - sizeof(header)) return p;
    uint8_t *raw = (uint8_t *)malloc(n + ALIGN + sizeof(header));
    if (!raw) return NULL;
    p = (void *)(((uintptr_t)raw + sizeof(header) + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
    head(p)->raw = raw;
    head(p)->cap = n;
    return p;
}

static void host_free(void *user_context, void *p) {
    (void)user_context;
    if (!p) return;
    size_t cap = head(p)->cap;
    int kept = 0;
    if (cap <= MAX_BLOCK) {
        lumen__lock(&lock);
        for (int i = 0; i < SLOTS && !kept && cached + cap <= MAX_CACHED; i++) {
            if (!slot[i]) slot[i] = p, cached += cap, kept = 1;
        }
        lumen__unlock(&lock);
    }
    if (!kept) free(head(p)->raw);
}

void *lumen__host_alloc(size_t n) { return host_malloc(NULL, n); }
void lumen__host_free(void *p) { host_free(NULL, p); }

void lumen__host_memory_install(void) {
    halide_set_custom_malloc(host_malloc);
    halide_set_custom_free(host_free);
}

void lumen__host_memory_release(void) {
    lumen__lock(&lock);
    for (int i = 0; i < SLOTS; i++) {
        if (slot[i]) free(head(slot[i])->raw);
        slot[i] = NULL;
    }
    cached = 0;
    lumen__unlock(&lock);
}
