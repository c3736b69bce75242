/* Halide's thread pool starts its workers with halide_spawn_thread. The runtime's version
 * (posix_threads.cpp) writes through what malloc returned, so an allocation failure there
 * crashed the process. Lumen's own definitions replace the runtime's weak ones: a worker's record
 * comes from static memory, and a worker that cannot be started (no slot, pthread_create failing
 * for lack of memory) is recorded as such; the pool then runs with one worker less, the calling
 * thread doing the tasks itself (Lumen's pipelines need no minimum number of threads). */
#include "internal.h"

/* Called at Lumen's set-up: links this file into programs that use the static library, where
 * the runtime's weak definitions would otherwise satisfy the pool and this file stay out. */
void lumen__threads_link(void) {}

#if !defined(_WIN32)
#  include <pthread.h>
#  include <stdatomic.h>

enum { SLOTS = 1024 }; /* Halide's pool has at most 256 workers; a restart frees them */

static struct worker {
    atomic_int used;
    int started;
    pthread_t handle;
    void (*f)(void *);
    void *closure;
} workers[SLOTS], no_worker; /* no_worker: every slot in use, never started */

static void *run(void *arg) {
    struct worker *w = (struct worker *)arg;
    w->f(w->closure);
    return NULL;
}

struct halide_thread *halide_spawn_thread(void (*f)(void *), void *closure) {
    struct worker *w = &no_worker;
    for (int i = 0; i < SLOTS && w == &no_worker; i++) {
        int unused = 0;
        if (atomic_compare_exchange_strong(&workers[i].used, &unused, 1)) w = &workers[i];
    }
    if (w != &no_worker) {
        w->f = f, w->closure = closure;
        w->started = pthread_create(&w->handle, NULL, run, w) == 0;
    }
    return (struct halide_thread *)w;
}

void halide_join_thread(struct halide_thread *thread) {
    struct worker *w = (struct worker *)thread;
    if (w == &no_worker) return;
    if (w->started) pthread_join(w->handle, NULL);
    atomic_store(&w->used, 0);
}
#endif
