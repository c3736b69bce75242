/* Halide's host allocations (a pipeline's intermediate rows: per strip of rows, per call) through
 * a small cache of freed blocks. glibc gives the top of its heap back to the system whenever a free
 * leaves more than M_TRIM_THRESHOLD there (128 KiB until the program frees a large block, which
 * raises it), so in such a program every strip's buffers were page-faulted in again: morphology
 * open 7x7, 1080p gray, 1 thread, 2.2 ms against 1.3 ms with the heap left alone; a 4K source's
 * copy with its border (lumen_context_set_border) paid 7 ms of page faults per call. Blocks of up
 * to MAX_BLOCK bytes are kept, MAX_CACHED in all, and reused for a request of at least half their
 * size; lumen_release_device_memory frees them.
 *
 * Every worker allocates at once, and a schedule may allocate per row (Halide 14 builds of the
 * blurs: ~2900 blocks per 1080p call; Halide 21 builds hoist those, generators/common.h), so the
 * cache is split into SHARDS, each with its own lock; a thread uses its own shard (given
 * round-robin on its first call) and only falls back to the others, with a try-lock, when that
 * misses. One lock for all had the two threads of a 2-core machine queueing on it
 * (docs/performance.md, "Two threads"). */
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

/* clang-format off */
#define SHARD {LUMEN__MUTEX_INIT, {0}, {0}}
/* clang-format on */
static struct shard {
    lumen__mutex lock;
    void *slot[SLOTS]; /* cached blocks; NULL: an empty slot */
    char pad[64];      /* shards on their own cache lines */
} shards[SHARDS] = {SHARD, SHARD, SHARD, SHARD, SHARD, SHARD, SHARD, SHARD};
#undef SHARD
static size_t cached; /* bytes in every shard (atomic) */
static size_t next_home;
static THREAD_LOCAL unsigned home; /* this thread's shard + 1; 0: none yet */

static header *head(void *p) { return (header *)p - 1; }

static struct shard *home_shard(void) {
    if (!home) home = (unsigned)FETCH_ADD(&next_home, (size_t)1) % SHARDS + 1;
    return &shards[home - 1];
}

/* A cached block of n..2n bytes from shard s, or NULL; s locked by the caller. */
static void *take(struct shard *s, void *unused, size_t n) {
    (void)unused;
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

/* Puts p into an empty slot of shard s (locked by the caller): p, or NULL if there is none. */
static void *keep(struct shard *s, void *p, size_t unused) {
    (void)unused;
    for (int i = 0; i < SLOTS; i++) {
        if (!s->slot[i]) return s->slot[i] = p;
    }
    return NULL;
}

/* op(shard, p, n) on this thread's shard (waiting for its lock), then on each other shard whose
 * lock is free, until one returns non-NULL: that, or NULL. */
static void *on_shards(void *(*op)(struct shard *, void *, size_t), void *p, size_t n) {
    struct shard *own = home_shard();
    lumen__lock(&own->lock);
    void *r = op(own, p, n);
    lumen__unlock(&own->lock);
    for (int k = 1; k < SHARDS && !r; k++) {
        struct shard *s = &shards[(own - shards + k) % SHARDS];
        if (lumen__trylock(&s->lock)) r = op(s, p, n), lumen__unlock(&s->lock);
    }
    return r;
}

static void *host_malloc(void *user_context, size_t n) {
    (void)user_context;
    void *p = on_shards(take, NULL, n);
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
    if (cap <= MAX_BLOCK && FETCH_ADD(&cached, cap) + cap <= MAX_CACHED)
        kept = on_shards(keep, p, 0) != NULL;
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
