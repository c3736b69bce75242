/* Halide's host allocations (a pipeline's intermediate rows: per strip of rows, per call) through
 * a small cache of freed blocks. glibc gives the top of its heap back to the system whenever a free
 * leaves more than M_TRIM_THRESHOLD there (128 KiB until the program frees a large block, which
 * raises it), so in such a program every strip's buffers were page-faulted in again: morphology
 * open 7x7, 1080p gray, 1 thread, 2.2 ms against 1.3 ms with the heap left alone; a 4K source's
 * copy with its border (lumen_context_set_border) paid 7 ms of page faults per call. Blocks of up
 * to MAX_BLOCK bytes are kept, MAX_CACHED in all, and reused for a request of at least half their
 * size; lumen_release_device_memory frees them.
 *
 * A schedule may allocate per row (4K blur: ~5000 blocks a call), from every worker at once, so
 * the cache is split into SHARDS, each with its own lock; a thread uses its own shard (given
 * round-robin on its first call) and only falls back to the others, with a try-lock, when that
 * misses. One lock for all had the two threads of a 2-core machine queueing on it: 4K gray blur,
 * sigma 1, took 4.2 ms on 1 thread and 4.0 on 2. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>

enum { SHARDS = 8, SLOTS = 8, ALIGN = 128 }; /* Halide asks for 128-byte alignment at most */
#define MAX_BLOCK ((size_t)32 << 20)
#define MAX_CACHED ((size_t)64 << 20)

#if defined(_MSC_VER)
#  define THREAD_LOCAL __declspec(thread)
#  define FETCH_ADD(p, n) ((size_t)InterlockedExchangeAdd64((volatile LONG64 *)(p), (LONG64)(n)))
#else
#  define THREAD_LOCAL __thread
#  define FETCH_ADD(p, n) __atomic_fetch_add((p), (n), __ATOMIC_RELAXED)
#endif

typedef struct {
    void *raw;  /* what malloc returned */
    size_t cap; /* usable bytes */
} header;       /* just before each block */

static struct shard {
    lumen__mutex lock;
    void *slot[SLOTS]; /* cached blocks; NULL: an empty slot */
    char pad[64];      /* shards on their own cache lines */
} shards[SHARDS] = {
#define SHARD                     \
  {                               \
    LUMEN__MUTEX_INIT, {0}, { 0 } \
  }
    SHARD, SHARD, SHARD, SHARD, SHARD, SHARD, SHARD, SHARD,
#undef SHARD
};
static size_t cached; /* bytes in every shard (atomic) */
static size_t next_home;
static THREAD_LOCAL unsigned home; /* this thread's shard + 1; 0: none yet */

static header *head(void *p) { return (header *)p - 1; }

static struct shard *home_shard(void) {
    if (!home) home = (unsigned)FETCH_ADD(&next_home, (size_t)1) % SHARDS + 1;
    return &shards[home - 1];
}

/* A cached block of n..2n bytes from shard s, or NULL; s locked by the caller. */
static void *take(struct shard *s, size_t n) {
    for (int i = 0; i < SLOTS; i++) {
        void *p = s->slot[i];
        if (p && head(p)->cap >= n && head(p)->cap / 2 <= n) {
            s->slot[i] = NULL;
            FETCH_ADD(&cached, (size_t)0 - head(p)->cap);
            return p;
        }
    }
    return NULL;
}

/* Puts p into an empty slot of shard s (locked by the caller); 0 if there is none. */
static int keep(struct shard *s, void *p) {
    for (int i = 0; i < SLOTS; i++) {
        if (!s->slot[i]) return s->slot[i] = p, 1;
    }
    return 0;
}

static void *host_malloc(void *user_context, size_t n) {
    (void)user_context;
    struct shard *own = home_shard();
    lumen__lock(&own->lock);
    void *p = take(own, n);
    lumen__unlock(&own->lock);
    for (int k = 1; k < SHARDS && !p; k++) {
        struct shard *s = &shards[(own - shards + k) % SHARDS];
        if (lumen__trylock(&s->lock)) p = take(s, n), lumen__unlock(&s->lock);
    }
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
    if (cap <= MAX_BLOCK && FETCH_ADD(&cached, cap) + cap <= MAX_CACHED) {
        struct shard *own = home_shard();
        lumen__lock(&own->lock);
        kept = keep(own, p);
        lumen__unlock(&own->lock);
        for (int k = 1; k < SHARDS && !kept; k++) {
            struct shard *s = &shards[(own - shards + k) % SHARDS];
            if (lumen__trylock(&s->lock)) kept = keep(s, p), lumen__unlock(&s->lock);
        }
    }
    if (!kept) {
        if (cap <= MAX_BLOCK) FETCH_ADD(&cached, (size_t)0 - cap);
        free(head(p)->raw);
    }
}

void *lumen__host_alloc(size_t n) { return host_malloc(NULL, n); }
void lumen__host_free(void *p) { host_free(NULL, p); }

void lumen__host_memory_install(void) {
    halide_set_custom_malloc(host_malloc);
    halide_set_custom_free(host_free);
}

void lumen__host_memory_release(void) {
    for (int s = 0; s < SHARDS; s++) {
        lumen__lock(&shards[s].lock);
        for (int i = 0; i < SLOTS; i++) {
            void *p = shards[s].slot[i];
            if (p) FETCH_ADD(&cached, (size_t)0 - head(p)->cap), free(head(p)->raw);
            shards[s].slot[i] = NULL;
        }
        lumen__unlock(&shards[s].lock);
    }
}
