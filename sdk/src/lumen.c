/* Version, status, per-thread errors, contexts and the one-time Halide runtime set-up. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#  define _GNU_SOURCE /* PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP */
#endif
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#  include <windows.h>
#else
#  include <pthread.h>
#endif

unsigned lumen_version(void) { return LUMEN_VERSION_NUMBER; }
const char *lumen_version_string(void) { return LUMEN_VERSION_STRING; }
const char *lumen_halide_version(void) { return LUMEN__HALIDE_VERSION; }

const char *lumen_status_string(lumen_status status) {
    switch (status) {
        case LUMEN_OK:
            return "ok";
        case LUMEN_ERROR_INVALID_ARGUMENT:
            return "invalid argument";
        case LUMEN_ERROR_UNSUPPORTED_FORMAT:
            return "unsupported format";
        case LUMEN_ERROR_SIZE_MISMATCH:
            return "size mismatch";
        case LUMEN_ERROR_OUT_OF_MEMORY:
            return "out of memory";
        case LUMEN_ERROR_BACKEND_UNAVAILABLE:
            return "backend unavailable";
        case LUMEN_ERROR_DEVICE:
            return "device error";
        case LUMEN_ERROR_INTERNAL:
            return "internal error";
        case LUMEN_ERROR_IO:
            return "I/O error";
        case LUMEN_ERROR_CORRUPT_DATA:
            return "corrupt data";
    }
    return "unknown status";
}

static LUMEN__THREAD_LOCAL char last_error[LUMEN__MESSAGE_SIZE];

const char *lumen_last_error(void) { return last_error; }

lumen_status lumen__set_error(lumen_status status, const char *message) {
    snprintf(last_error, sizeof last_error, "%s", message ? message : "");
    return status;
}

lumen_status lumen__fail(const lumen__call *call, lumen_status status, const char *fmt, ...) {
    int n = snprintf(last_error, sizeof last_error, "%s: ", call->function);
    va_list args;
    va_start(args, fmt);
    if (n > 0 && (size_t)n < sizeof last_error) {
        vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, args);
    }
    va_end(args);
    return status;
}

/* ---- Backends and contexts ---------------------------------------------------------------- */

const char *lumen_backend_name(lumen_backend backend) {
    switch (backend) {
        case LUMEN_BACKEND_AUTO:
            return "auto";
        case LUMEN_BACKEND_CPU:
            return "cpu";
        case LUMEN_BACKEND_CUDA:
            return "cuda";
        case LUMEN_BACKEND_OPENCL:
            return "opencl";
    }
    return NULL;
}

int lumen_backend_compiled(lumen_backend backend) {
    switch (backend) {
        case LUMEN_BACKEND_AUTO:
        case LUMEN_BACKEND_CPU:
            return 1;
        case LUMEN_BACKEND_CUDA:
        case LUMEN_BACKEND_OPENCL:
            return lumen__device_interface(backend) != NULL;
    }
    return 0;
}

static lumen_context default_context = {LUMEN_BACKEND_AUTO,     -1, {0}, 0, NULL, NULL,
                                        LUMEN_BORDER_REPLICATE, {0}};

lumen_context *lumen__default_context(void) { return &default_context; }

#if defined(_MSC_VER)
#  define ATOMIC_ADD64(p, n) InterlockedExchangeAdd64((volatile LONG64 *)(p), (LONG64)(n))
#  define ATOMIC_ADD32(p, n) InterlockedExchangeAdd((volatile LONG *)(p), (LONG)(n))
#  define ATOMIC_LOAD64(p) InterlockedOr64((volatile LONG64 *)(p), 0)
#  define ATOMIC_LOAD32(p) InterlockedOr((volatile LONG *)(p), 0)
#  define ATOMIC_STORE32(p, v) InterlockedExchange((volatile LONG *)(p), (LONG)(v))
#else
#  define ATOMIC_ADD64(p, n) __atomic_fetch_add((p), (n), __ATOMIC_RELAXED)
#  define ATOMIC_ADD32(p, n) __atomic_fetch_add((p), (n), __ATOMIC_ACQ_REL)
#  define ATOMIC_LOAD64(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#  define ATOMIC_LOAD32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#  define ATOMIC_STORE32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#endif

void lumen__count(uint64_t *counter, uint64_t n) { ATOMIC_ADD64(counter, n); }

lumen_context *lumen__context_retain(lumen_context *ctx) {
    if (ctx && ctx->refs >= 0) ATOMIC_ADD32(&ctx->refs, 1);
    return ctx;
}

void lumen__context_release(lumen_context *ctx) {
    if (ctx && ctx->refs >= 0 && ATOMIC_ADD32(&ctx->refs, -1) == 1) free(ctx);
}

lumen_status lumen_context_create(lumen_backend policy, lumen_context **out) {
    lumen__call call;
    lumen__begin(&call, "lumen_context_create", NULL);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!lumen_backend_name(policy)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "policy %d is no lumen_backend",
                           (int)policy);
    }
    lumen_context *ctx = (lumen_context *)calloc(1, sizeof *ctx);
    if (!ctx) return lumen__fail(&call, LUMEN_ERROR_OUT_OF_MEMORY, "no memory for a context");
    ctx->policy = policy;
    ctx->refs = 1;
    ctx->border = LUMEN_BORDER_REPLICATE;
    *out = ctx;
    return LUMEN_OK;
}

void lumen_context_destroy(lumen_context *ctx) { lumen__context_release(ctx); }

lumen_backend lumen_context_policy(const lumen_context *ctx) {
    lumen__call call;
    lumen__begin(&call, "lumen_context_policy", (lumen_context *)ctx);
    return call.ctx->policy;
}

lumen_status lumen_context_set_border(lumen_context *ctx, lumen_border border,
                                      const float value[4]) {
    lumen__call call;
    lumen__begin(&call, "lumen_context_set_border", ctx);
    if (!ctx) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "ctx is NULL (the default context's border is always "
                           "LUMEN_BORDER_REPLICATE: create a context)");
    }
    if (border < LUMEN_BORDER_CONSTANT || border > LUMEN_BORDER_REFLECT_101) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT,
                           "border %d (LUMEN_BORDER_CONSTANT .. REFLECT_101 taken)", (int)border);
    }
    for (int k = 0; value && k < 4; k++) {
        if (!isfinite(value[k])) {
            return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "value[%d] is not finite", k);
        }
    }
    ctx->border = border;
    for (int k = 0; k < 4; k++) ctx->border_value[k] = value ? value[k] : 0.0f;
    return LUMEN_OK;
}

lumen_border lumen_context_border(const lumen_context *ctx, float value[4]) {
    lumen__call call;
    lumen__begin(&call, "lumen_context_border", (lumen_context *)ctx);
    for (int k = 0; value && k < 4; k++) value[k] = call.ctx->border_value[k];
    return call.ctx->border;
}

lumen_status lumen_context_stats(const lumen_context *ctx, lumen_transfer_stats *out) {
    lumen__call call;
    lumen__begin(&call, "lumen_context_stats", (lumen_context *)ctx);
    if (!out) return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "out is NULL");
    const lumen_transfer_stats *s = &call.ctx->stats;
    out->uploads = ATOMIC_LOAD64(&s->uploads);
    out->downloads = ATOMIC_LOAD64(&s->downloads);
    out->upload_bytes = ATOMIC_LOAD64(&s->upload_bytes);
    out->download_bytes = ATOMIC_LOAD64(&s->download_bytes);
    out->device_allocations = ATOMIC_LOAD64(&s->device_allocations);
    out->device_frees = ATOMIC_LOAD64(&s->device_frees);
    return LUMEN_OK;
}

void lumen_context_reset_stats(lumen_context *ctx) {
    lumen__call call;
    lumen__begin(&call, "lumen_context_reset_stats", ctx);
    lumen_transfer_stats now;
    lumen_context_stats(call.ctx, &now); /* subtract what was read: concurrent counts survive */
    lumen__count(&call.ctx->stats.uploads, -now.uploads);
    lumen__count(&call.ctx->stats.downloads, -now.downloads);
    lumen__count(&call.ctx->stats.upload_bytes, -now.upload_bytes);
    lumen__count(&call.ctx->stats.download_bytes, -now.download_bytes);
    lumen__count(&call.ctx->stats.device_allocations, -now.device_allocations);
    lumen__count(&call.ctx->stats.device_frees, -now.device_frees);
}

lumen_status lumen_release_device_memory(void) {
    lumen__call call;
    lumen__begin(&call, "lumen_release_device_memory", NULL);
    call.backend = LUMEN_BACKEND_OPENCL; /* errors are device errors */
    int rc;
    LUMEN__HALIDE_CALL(rc, halide_reuse_device_allocations(&call, false));
    lumen_status st = lumen__halide_status(&call, rc);
    LUMEN__HALIDE_CALL(rc, halide_reuse_device_allocations(&call, true));
    lumen__host_memory_release();
    return st;
}

/* ---- Halide runtime hooks ----------------------------------------------------------------- */

/* Errors land in the failing call's user_context: first message wins (workers may race). */
static void on_halide_error(void *user_context, const char *msg) {
    lumen__call *call = (lumen__call *)user_context;
    if (!call) return;
#if defined(_MSC_VER)
    if (InterlockedExchange((volatile LONG *)&call->failed, 1)) return;
#else
    if (__atomic_exchange_n(&call->failed, 1, __ATOMIC_ACQ_REL)) return;
#endif
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) n--;
    if (n >= sizeof call->message) n = sizeof call->message - 1;
    memcpy(call->message, msg, n);
    call->message[n] = '\0';
}

/* A library must not write to the host process's stderr. */
static void on_halide_print(void *user_context, const char *msg) {
    (void)user_context;
    (void)msg;
}

/* CPU ISA levels, in the order of LUMEN_MAX_CPU_ISA's names. */
enum { ISA_BASELINE, ISA_SSE41, ISA_AVX2, ISA_AVX512, ISA_COUNT };
static const char *const isa_names[ISA_COUNT] = {"baseline", "sse41", "avx2", "avx512"};
static int isa_cap = ISA_AVX512;
static int isa_chosen = -1; /* atomic: the wrappers of several pipelines may set it at once */

static int has_feature(int count, const uint64_t *features, int f) {
    return f / 64 < count && ((features[f / 64] >> (f % 64)) & 1);
}

/* The ISA level a variant's feature set needs. */
static int isa_level(int count, const uint64_t *features) {
    static const int avx512[] = {halide_target_feature_avx512, halide_target_feature_avx512_knl,
                                 halide_target_feature_avx512_skylake,
                                 halide_target_feature_avx512_cannonlake,
                                 halide_target_feature_avx512_sapphirerapids};
    static const int avx2[] = {halide_target_feature_avx, halide_target_feature_avx2,
                               halide_target_feature_fma, halide_target_feature_f16c};
    for (size_t i = 0; i < sizeof avx512 / sizeof *avx512; i++) {
        if (has_feature(count, features, avx512[i])) return ISA_AVX512;
    }
    for (size_t i = 0; i < sizeof avx2 / sizeof *avx2; i++) {
        if (has_feature(count, features, avx2[i])) return ISA_AVX2;
    }
    return has_feature(count, features, halide_target_feature_sse41) ? ISA_SSE41 : ISA_BASELINE;
}

/* Halide's multi-target wrappers ask this, best variant first, on their first call. */
static int can_use_target_features(int count, const uint64_t *features) {
    int level = isa_level(count, features);
    if (level > isa_cap || !halide_default_can_use_target_features(count, features)) return 0;
    ATOMIC_STORE32(&isa_chosen, level);
    return 1;
}

static int parse_backend(const char *s, lumen_backend *out) {
    for (int b = LUMEN_BACKEND_AUTO; b <= LUMEN_BACKEND_OPENCL; b++) {
        if (strcmp(s, lumen_backend_name((lumen_backend)b)) == 0) {
            *out = (lumen_backend)b;
            return 1;
        }
    }
    return 0;
}

static void exit_fence(void);

/* Invalid values of Lumen's environment variables, set once by init_once. */
static char config_warning[320];

static void warn_config(const char *name, const char *value, const char *valid) {
    size_t n = strlen(config_warning);
    snprintf(config_warning + n, sizeof config_warning - n, "%s%s='%.40s%s' is not one of %s",
             n ? "; " : "", name, value, strlen(value) > 40 ? "..." : "", valid);
}

static void init_once(void) {
    lumen__host_memory_install(); /* before anything the runtime allocates */
    halide_set_error_handler(on_halide_error);
    halide_set_custom_print(on_halide_print);
    const char *cap = getenv("LUMEN_MAX_CPU_ISA");
    int cap_ok = !cap || !*cap; /* empty: as if unset */
    for (int i = 0; !cap_ok && i < ISA_COUNT; i++) {
        if (strcmp(cap, isa_names[i]) == 0) isa_cap = i, cap_ok = 1;
    }
    if (!cap_ok) warn_config("LUMEN_MAX_CPU_ISA", cap, "baseline, sse41, avx2, avx512");
    halide_set_custom_can_use_target_features(can_use_target_features);
    halide_reuse_device_allocations(NULL, true); /* lumen_release_device_memory empties it */
    lumen__cuda_install_hooks();
    const char *backend = getenv("LUMEN_BACKEND");
    if (backend && *backend && !parse_backend(backend, &default_context.policy))
        warn_config("LUMEN_BACKEND", backend, "auto, cpu, cuda, opencl");
    atexit(exit_fence);
    lumen__threads_link();
}

#if defined(_WIN32)
static BOOL CALLBACK run_once(PINIT_ONCE once, PVOID fn, PVOID *ctx) {
    (void)once, (void)ctx;
    ((void (*)(void))fn)();
    return TRUE;
}
void lumen__once(lumen__once_t *once, void (*fn)(void)) {
    InitOnceExecuteOnce(once, run_once, (PVOID)fn, NULL);
}
#else
void lumen__once(lumen__once_t *once, void (*fn)(void)) { pthread_once(once, fn); }
#endif

void lumen__begin(lumen__call *call, const char *function, lumen_context *ctx) {
    static lumen__once_t once = LUMEN__ONCE_INIT;
    lumen__once(&once, init_once);
    call->function = function;
    call->ctx = ctx ? ctx : &default_context;
    call->backend = LUMEN_BACKEND_CPU;
    call->failed = 0;
    call->message[0] = '\0';
    last_error[0] = '\0';
}

const char *lumen_config_warning(void) {
    lumen__call call;
    lumen__begin(&call, "lumen_config_warning", NULL);
    return config_warning;
}

lumen_status lumen__halide_status(lumen__call *call, int code) {
    if (code == 0) return LUMEN_OK;
    const char *msg = call->message[0] ? call->message : "(no message)";
    lumen_status status;
    switch (code) {
        case halide_error_code_out_of_memory:
        case halide_error_code_buffer_allocation_too_large:
            status = LUMEN_ERROR_OUT_OF_MEMORY;
            break;
        case halide_error_code_copy_to_host_failed:
        case halide_error_code_copy_to_device_failed:
        case halide_error_code_device_malloc_failed:
        case halide_error_code_device_sync_failed:
        case halide_error_code_device_free_failed:
        case halide_error_code_device_run_failed:
        case halide_error_code_device_buffer_copy_failed:
            status = LUMEN_ERROR_DEVICE;
            break;
        default:
            /* GPU runtimes report driver failures (no library, no device, ...) as generic errors or
             * as the driver's own codes. */
            status = call->backend > LUMEN_BACKEND_CPU ? LUMEN_ERROR_DEVICE : LUMEN_ERROR_INTERNAL;
            break;
    }
    return lumen__fail(call, status, "Halide error %d: %s", code, msg);
}

/* ---- CPU variant and threads -------------------------------------------------------------- */

const char *lumen_cpu_variant(void) {
    if (ATOMIC_LOAD32(&isa_chosen) < 0) {
        /* No CPU pipeline has run yet: run a 1x1 one so the wrappers make their choice. */
        uint8_t px = 0;
        lumen_image *img = NULL;
        lumen_context cpu = {LUMEN_BACKEND_CPU, -1, {0}};
        if (lumen_image_wrap(&px, 1, 1, 1, 1, &img) == LUMEN_OK) {
            lumen_levels(&cpu, img, img, 1.0f, 0.0f);
            lumen_image_destroy(img);
        }
    }
    int isa = ATOMIC_LOAD32(&isa_chosen);
    return isa < 0 ? "baseline" : isa_names[isa];
}

/* The call lock. Halide calls hold it shared (lumen__pool_enter/leave, never nested); it is
 * taken exclusively (writers first, so a steady stream of calls cannot starve it) by:
 *  - lumen_set_num_threads: Halide 14 grows a running thread pool but never shrinks it, so a new
 *    thread count restarts the pool (lazily, at the next parallel loop), with no call running;
 *  - the exit fence: a program may exit (return from main) while its threads are inside Lumen
 *    calls. exit() then tears down Halide's runtime (OpenCL context, thread pool) and the
 *    drivers' state (PoCL's LLVM) under those calls, which crashed. Lumen's exit handler waits
 *    for the running calls and keeps the lock, so later calls block until the process is gone.
 *    atexit handlers run in reverse order of registration, and drivers register destructors as
 *    they are loaded and compile kernels, so the handler is registered again after the first
 *    call of each pipeline on each GPU backend (lumen__exit_fence_renew). Exiting during the
 *    very first kernel compilation of a pipeline is not covered. */
#if defined(_WIN32)
static SRWLOCK pool_lock = SRWLOCK_INIT;
void lumen__pool_enter(void) { AcquireSRWLockShared(&pool_lock); }
void lumen__pool_leave(void) { ReleaseSRWLockShared(&pool_lock); }
#  define POOL_LOCK() AcquireSRWLockExclusive(&pool_lock)
#  define POOL_UNLOCK() ReleaseSRWLockExclusive(&pool_lock)
#else
#  ifdef PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
static pthread_rwlock_t pool_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
#  else
static pthread_rwlock_t pool_lock = PTHREAD_RWLOCK_INITIALIZER;
#  endif
void lumen__pool_enter(void) { pthread_rwlock_rdlock(&pool_lock); }
void lumen__pool_leave(void) { pthread_rwlock_unlock(&pool_lock); }
#  define POOL_LOCK() pthread_rwlock_wrlock(&pool_lock)
#  define POOL_UNLOCK() pthread_rwlock_unlock(&pool_lock)
#endif

static lumen__mutex fence_lock = LUMEN__MUTEX_INIT;
static int fenced;
static void exit_fence(void) {
    if (fenced) return; /* registered several times */
    fenced = 1;
    POOL_LOCK(); /* never released: the process is ending */
}

void lumen__exit_fence_renew(const char *function, lumen_backend backend) {
    static struct {
        const char *function;
        lumen_backend backend;
    } seen[64];
    static int n_seen;
    int renew = 1;
    lumen__lock(&fence_lock);
    for (int i = 0; i < n_seen && renew; i++)
        renew = seen[i].function != function || seen[i].backend != backend;
    if (renew && n_seen < 64) {
        seen[n_seen].function = function, seen[n_seen++].backend = backend;
        atexit(exit_fence);
    }
    lumen__unlock(&fence_lock);
}

int lumen_set_num_threads(int n) {
    lumen__call call;
    lumen__begin(&call, "lumen_set_num_threads", NULL);
    POOL_LOCK();
    halide_shutdown_thread_pool();
    int old = halide_set_num_threads(n < 0 ? 0 : n);
    POOL_UNLOCK();
    return old;
}
