/* Which GPU backends can run here: the CUDA driver and OpenCL ICD loader are probed once, at run
 * time, without any SDK headers (Halide's runtime loads the same libraries itself). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#  define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#  include <windows.h>
#  define LIB_OPEN(name) ((void *)LoadLibraryA(name))
#  define LIB_SYM(lib, name) ((void *)GetProcAddress((HMODULE)(lib), name))
#  define LIB_CLOSE(lib) FreeLibrary((HMODULE)(lib))
static const char *const cuda_libs[] = {"nvcuda.dll", NULL};
static const char *const opencl_libs[] = {"OpenCL.dll", NULL};
#  define CALL __stdcall
#else
#  include <dlfcn.h>
#  include <pthread.h>
#  define LIB_OPEN(name) dlopen(name, RTLD_LAZY | RTLD_LOCAL)
#  define LIB_SYM(lib, name) dlsym(lib, name)
#  define LIB_CLOSE(lib) dlclose(lib)
static const char *const cuda_libs[] = {"libcuda.so.1", "libcuda.so", NULL};
static const char *const opencl_libs[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
#  define CALL
#endif

#ifndef LUMEN__CUDA_CAPABILITY
#  define LUMEN__CUDA_CAPABILITY 20 /* Halide's default PTX target */
#endif

typedef struct {
    lumen_status status;
    char why[256];
    char devices[256]; /* "N device(s): name, name" */
} probe_result;

/* Appends a device name to r->devices (the count is written in front at the end). */
static void add_device(probe_result *r, const char *name) {
    size_t n = strlen(r->devices);
    snprintf(r->devices + n, sizeof r->devices - n, "%s%s", n ? ", " : "", name);
}

static void finish_devices(probe_result *r, int count) {
    char names[sizeof r->devices];
    memcpy(names, r->devices, sizeof names);
    if (count)
        snprintf(r->devices, sizeof r->devices, "%d device%s: %.200s", count, count == 1 ? "" : "s",
                 names);
}

static probe_result cuda, opencl_any;
static int opencl_gpus;

/* The CUDA driver, kept loaded once it is usable: primary contexts for Lumen's CUDA work. */
typedef int(CALL *retain_t)(void **, int);
static struct {
    int count;
    retain_t primary_retain;
    void *primary[16];
} driver;

static void *open_first(const char *const *names) {
    for (; *names; names++) {
        void *lib = LIB_OPEN(*names);
        if (lib) return lib;
    }
    return NULL;
}

static void unavailable(probe_result *r, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    r->status = LUMEN_ERROR_BACKEND_UNAVAILABLE;
    vsnprintf(r->why, sizeof r->why, fmt, args);
    va_end(args);
}

static void probe_cuda(void) {
    typedef int(CALL * init_t)(unsigned);
    typedef int(CALL * count_t)(int *);
    typedef int(CALL * get_t)(int *, int);
    typedef int(CALL * attr_t)(int *, int, int);
    typedef int(CALL * name_t)(char *, int, int);
    void *lib = open_first(cuda_libs);
    if (!lib) return unavailable(&cuda, "no driver (%s not found)", cuda_libs[0]);
    init_t cu_init = (init_t)LIB_SYM(lib, "cuInit");
    count_t cu_count = (count_t)LIB_SYM(lib, "cuDeviceGetCount");
    get_t cu_get = (get_t)LIB_SYM(lib, "cuDeviceGet");
    attr_t cu_attr = (attr_t)LIB_SYM(lib, "cuDeviceGetAttribute");
    name_t cu_name = (name_t)LIB_SYM(lib, "cuDeviceGetName");
    driver.primary_retain = (retain_t)LIB_SYM(lib, "cuDevicePrimaryCtxRetain");
    int n = 0, best = 0, rc;
    if (!cu_init || !cu_count || !cu_get || !cu_attr) {
        unavailable(&cuda, "%s lacks the driver API", cuda_libs[0]);
    } else if ((rc = cu_init(0)) != 0) {
        unavailable(&cuda, "%s: cuInit failed (CUresult %d; no device or driver problem)",
                    cuda_libs[0], rc);
    } else if ((rc = cu_count(&n)) != 0 || n == 0) {
        unavailable(&cuda, "no CUDA device%s (CUresult %d)",
                    getenv("CUDA_VISIBLE_DEVICES") ? ", CUDA_VISIBLE_DEVICES is set" : "", rc);
    } else {
        /* 75, 76: CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, _MINOR */
        for (int i = 0; i < n; i++) {
            int dev, major = 0, minor = 0;
            char name[128] = "?";
            if (cu_get(&dev, i) != 0) continue;
            if (cu_name) cu_name(name, sizeof name, dev);
            if (cu_attr(&major, 75, dev) == 0 && cu_attr(&minor, 76, dev) == 0) {
                if (major * 10 + minor > best) best = major * 10 + minor;
                snprintf(name + strlen(name), sizeof name - strlen(name), " (sm_%d%d)", major,
                         minor);
            }
            add_device(&cuda, name);
        }
        finish_devices(&cuda, n);
        if (best < LUMEN__CUDA_CAPABILITY)
            unavailable(&cuda, "CUDA devices too old (compute capability %d.%d < %d.%d)", best / 10,
                        best % 10, LUMEN__CUDA_CAPABILITY / 10, LUMEN__CUDA_CAPABILITY % 10);
        else if (!driver.primary_retain)
            unavailable(&cuda, "%s lacks cuDevicePrimaryCtxRetain", cuda_libs[0]);
        else
            cuda.status = LUMEN_OK, driver.count = n;
    }
    if (cuda.status != LUMEN_OK) LIB_CLOSE(lib); /* else kept for primary contexts */
}

static void probe_opencl(void) {
    typedef int(CALL * platforms_t)(unsigned, void **, unsigned *);
    typedef int(CALL * devices_t)(void *, uint64_t, unsigned, void **, unsigned *);
    typedef int(CALL * info_t)(void *, unsigned, size_t, void *, size_t *);
    void *lib = open_first(opencl_libs);
    if (!lib) return unavailable(&opencl_any, "no OpenCL loader (%s not found)", opencl_libs[0]);
    platforms_t get_platforms = (platforms_t)LIB_SYM(lib, "clGetPlatformIDs");
    devices_t get_devices = (devices_t)LIB_SYM(lib, "clGetDeviceIDs");
    info_t get_info = (info_t)LIB_SYM(lib, "clGetDeviceInfo");
    void *platforms[16];
    unsigned np = 0, any = 0;
    if (get_platforms && get_devices && get_platforms(16, platforms, &np) == 0) {
        if (np > 16) np = 16;
        for (unsigned i = 0; i < np; i++) {
            void *devices[16];
            unsigned n = 0;
            if (get_devices(platforms[i], 0xFFFFFFFFu /* ALL */, 16, devices, &n) != 0) n = 0;
            any += n;
            for (unsigned d = 0; d < n && d < 16 && get_info; d++) {
                char name[128] = "?";
                get_info(devices[d], 0x102B /* CL_DEVICE_NAME */, sizeof name, name, NULL);
                add_device(&opencl_any, name);
            }
            n = 0;
            if (get_devices(platforms[i], 1u << 2 /* GPU */, 0, NULL, &n) == 0)
                opencl_gpus += (int)n;
        }
    }
    finish_devices(&opencl_any, (int)any);
    if (any == 0)
        unavailable(&opencl_any, "no OpenCL device (%s: %d platforms)", opencl_libs[0], (int)np);
    else
        opencl_any.status = LUMEN_OK;
    /* The loader stays loaded: its platform list lives in its globals (unloading it leaked
     * that list, and Halide's runtime loads the same library again anyway). */
}

#if defined(__linux__)
#  include <link.h>
static int find_interp(struct dl_phdr_info *info, size_t size, void *found) {
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_INTERP) *(int *)found = 1;
    return 1; /* the first object is the program itself */
}
/* A statically linked program has no program interpreter; dlopen() of a GPU driver into it
 * crashes (glibc), so no driver is loaded there. */
static int static_executable(void) {
    int interp = 0;
    dl_iterate_phdr(find_interp, &interp);
    return !interp;
}
#else
static int static_executable(void) { return 0; }
#endif

/* Each driver is probed once, on demand: LUMEN_BACKEND_AUTO asks CUDA first and OpenCL only
 * when CUDA is not usable, as loading an OpenCL driver can be slow (PoCL loads LLVM, ~30 ms). */
static void probe_cuda_all(void) {
    if (static_executable())
        unavailable(&cuda, "statically linked executable: no GPU drivers");
    else if (lumen__device_interface(LUMEN_BACKEND_CUDA))
        probe_cuda();
    else
        unavailable(&cuda, "not built in");
}

static void probe_opencl_all(void) {
    if (static_executable())
        unavailable(&opencl_any, "statically linked executable: no GPU drivers");
    else if (lumen__device_interface(LUMEN_BACKEND_OPENCL))
        probe_opencl();
    else
        unavailable(&opencl_any, "not built in");
}

static void probe_once(lumen_backend backend) {
    static lumen__once_t cuda_once = LUMEN__ONCE_INIT, opencl_once = LUMEN__ONCE_INIT;
    if (backend == LUMEN_BACKEND_CUDA)
        lumen__once(&cuda_once, probe_cuda_all);
    else
        lumen__once(&opencl_once, probe_opencl_all);
}

lumen_status lumen__probe(lumen__call *call, lumen_backend backend) {
    if (backend != LUMEN_BACKEND_CUDA && backend != LUMEN_BACKEND_OPENCL) return LUMEN_OK;
    probe_once(backend);
    const probe_result *r = backend == LUMEN_BACKEND_CUDA ? &cuda : &opencl_any;
    if (r->status == LUMEN_OK) return LUMEN_OK;
    return lumen__fail(call, r->status, "%s backend unavailable: %s", lumen_backend_name(backend),
                       r->why);
}

lumen_status lumen_backend_available(lumen_backend backend) {
    lumen__call call;
    lumen__begin(&call, "lumen_backend_available", NULL);
    if (!lumen_backend_name(backend)) {
        return lumen__fail(&call, LUMEN_ERROR_INVALID_ARGUMENT, "unknown backend %d", (int)backend);
    }
    return lumen__probe(&call, backend);
}

lumen_backend lumen_backend_preferred(void) {
    lumen__call call;
    lumen__begin(&call, "lumen_backend_preferred", NULL);
    return lumen__preferred();
}

lumen_backend lumen__preferred(void) {
    probe_once(LUMEN_BACKEND_CUDA);
    if (cuda.status == LUMEN_OK) return LUMEN_BACKEND_CUDA;
    probe_once(LUMEN_BACKEND_OPENCL);
    if (opencl_any.status == LUMEN_OK && opencl_gpus > 0) return LUMEN_BACKEND_OPENCL;
    return LUMEN_BACKEND_CPU;
}

const char *lumen_backend_devices(lumen_backend backend) {
    lumen__call call;
    lumen__begin(&call, "lumen_backend_devices", NULL);
    if (backend != LUMEN_BACKEND_CUDA && backend != LUMEN_BACKEND_OPENCL) return "";
    probe_once(backend);
    return backend == LUMEN_BACKEND_CUDA ? cuda.devices : opencl_any.devices;
}

const char *lumen_compiled_targets(lumen_backend backend) {
    switch (backend) {
        case LUMEN_BACKEND_CPU:
            return LUMEN__CPU_TARGETS;
        case LUMEN_BACKEND_CUDA:
            return LUMEN__CUDA_TARGETS;
        case LUMEN_BACKEND_OPENCL:
            return LUMEN__OPENCL_TARGETS;
        default:
            return "";
    }
}

int lumen__cuda_device_count(void) {
    probe_once(LUMEN_BACKEND_CUDA);
    return cuda.status == LUMEN_OK ? driver.count : 0;
}

static lumen__mutex primary_lock = LUMEN__MUTEX_INIT;

/* The device's primary context, retained once for the life of the process. */
int lumen__cuda_primary_context(int device, void **context) {
    if (device < 0 || device >= lumen__cuda_device_count() || device >= 16) return 101;
    int rc = 0; /* CUDA_SUCCESS; 101 = CUDA_ERROR_INVALID_DEVICE */
    lumen__lock(&primary_lock);
    if (!driver.primary[device]) rc = driver.primary_retain(&driver.primary[device], device);
    *context = driver.primary[device];
    lumen__unlock(&primary_lock);
    return rc;
}

/* ---- OpenCL on a CPU device -------------------------------------------------------------- */
/* CPU OpenCL drivers (PoCL) compile a kernel lazily, on their worker threads, when it is first
 * enqueued. A process that exits meanwhile (a GPU call's result stays on the device, so nothing
 * waits for it) crashes inside the driver: exit() destroys the driver's LLVM state under the
 * compiling thread. On a CPU device there is no GPU work to overlap with anyway, so Lumen waits
 * for Halide's queue after each call there; on a GPU device calls stay asynchronous. */
#include <stdbool.h>
extern int halide_acquire_cl_context(void *user_context, void **ctx, void **q, bool create);
extern int halide_release_cl_context(void *user_context);
typedef int(CALL *cl_finish_t)(void *);
static cl_finish_t cl_finish; /* set only if Halide's OpenCL device is a CPU */
static int cl_align; /* its CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes; 0 until known (atomic) */

static void *halide_cl_queue(void) {
    static void *ctx, *q; /* static: Halide writes them through the pointers */
    if (halide_acquire_cl_context(NULL, &ctx, &q, false) != 0) return NULL;
    void *queue = q;
    halide_release_cl_context(NULL);
    return queue;
}

static void find_cpu_device(void) {
    typedef int(CALL * queue_info_t)(void *, unsigned, size_t, void *, size_t *);
    typedef int(CALL * info_t)(void *, unsigned, size_t, void *, size_t *);
    void *q = halide_cl_queue(), *lib = q ? open_first(opencl_libs) : NULL, *device = NULL;
    if (!lib) return;
    queue_info_t queue_info = (queue_info_t)LIB_SYM(lib, "clGetCommandQueueInfo");
    info_t info = (info_t)LIB_SYM(lib, "clGetDeviceInfo");
    uint64_t type = 0;
    unsigned bits = 0;
    if (queue_info && info &&
        queue_info(q, 0x1091 /* CL_QUEUE_DEVICE */, sizeof device, &device, NULL) == 0) {
        if (info(device, 0x1019 /* CL_DEVICE_MEM_BASE_ADDR_ALIGN */, sizeof bits, &bits, NULL) ==
                0 &&
            bits >= 8)
            __atomic_store_n(&cl_align, (int)(bits / 8), __ATOMIC_RELEASE);
        if (info(device, 0x1000 /* CL_DEVICE_TYPE */, sizeof type, &type, NULL) == 0 &&
            (type & (1u << 1)) /* CL_DEVICE_TYPE_CPU */)
            cl_finish = (cl_finish_t)LIB_SYM(lib, "clFinish");
    }
    if (!cl_finish) LIB_CLOSE(lib); /* else kept */
}

int lumen__crop_align(lumen_backend backend) {
    if (backend == LUMEN_BACKEND_CUDA) return 1;
    return backend == LUMEN_BACKEND_OPENCL ? __atomic_load_n(&cl_align, __ATOMIC_ACQUIRE) : 0;
}

void lumen__opencl_after_call(void) {
    static lumen__once_t once = LUMEN__ONCE_INIT;
    lumen__once(&once, find_cpu_device);
    void *q = cl_finish ? halide_cl_queue() : NULL;
    if (q) cl_finish(q);
}
