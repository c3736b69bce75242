/* The few CUDA driver calls the CUDA tests and benchmark need, loaded at run time (no toolkit
 * headers): cu.ok is 0 when libcuda.so.1 is missing. */
#ifndef LUMEN_TESTS_CUDA_DRIVER_H
#define LUMEN_TESTS_CUDA_DRIVER_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int ok;
    int (*Init)(unsigned);
    int (*DeviceGet)(int *, int);
    int (*DevicePrimaryCtxRetain)(void **, int);
    int (*CtxPushCurrent)(void *);
    int (*CtxPopCurrent)(void **);
    int (*MemAlloc)(uint64_t *, size_t);
    int (*MemFree)(uint64_t);
    int (*MemcpyHtoD)(uint64_t, const void *, size_t);
    int (*MemcpyDtoH)(void *, uint64_t, size_t);
    int (*MemcpyDtoD)(uint64_t, uint64_t, size_t);
    int (*StreamCreate)(void **, unsigned);
    int (*StreamSynchronize)(void *);
    int (*StreamDestroy)(void *);
    int (*CtxSynchronize)(void);
} cuda_driver;

static cuda_driver cu;

#define CU_LOAD(field, name) (cu.field = (__typeof__(cu.field))dlsym(lib, name)) != NULL

/* Loads the driver and makes device 0's primary context current. */
static int cuda_driver_load(void **primary) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) return 0;
    int ok = CU_LOAD(Init, "cuInit") && CU_LOAD(DeviceGet, "cuDeviceGet") &&
             CU_LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
             CU_LOAD(CtxPushCurrent, "cuCtxPushCurrent_v2") &&
             CU_LOAD(CtxPopCurrent, "cuCtxPopCurrent_v2") && CU_LOAD(MemAlloc, "cuMemAlloc_v2") &&
             CU_LOAD(MemFree, "cuMemFree_v2") && CU_LOAD(MemcpyHtoD, "cuMemcpyHtoD_v2") &&
             CU_LOAD(MemcpyDtoH, "cuMemcpyDtoH_v2") && CU_LOAD(MemcpyDtoD, "cuMemcpyDtoD_v2") &&
             CU_LOAD(StreamCreate, "cuStreamCreate") &&
             CU_LOAD(StreamSynchronize, "cuStreamSynchronize") &&
             CU_LOAD(StreamDestroy, "cuStreamDestroy_v2") &&
             CU_LOAD(CtxSynchronize, "cuCtxSynchronize");
    int dev;
    if (!ok || cu.Init(0) || cu.DeviceGet(&dev, 0) || cu.DevicePrimaryCtxRetain(primary, dev) ||
        cu.CtxPushCurrent(*primary))
        return 0;
    return cu.ok = 1;
}

#endif
