/* Test-only: linked into a copy of liblumen with ld --wrap, counts the Halide runtime calls that
 * really move images so the tests can check Lumen's own transfer counters. Images are the 3-D
 * buffers with host memory; Halide's device-only intermediates have none. */
#include <HalideRuntime.h>

#include "raw_counts.h"

int __real_halide_copy_to_device(void *, struct halide_buffer_t *,
                                 const struct halide_device_interface_t *);
int __real_halide_copy_to_host(void *, struct halide_buffer_t *);
int __real_halide_device_malloc(void *, struct halide_buffer_t *,
                                const struct halide_device_interface_t *);
int __real_halide_device_free(void *, struct halide_buffer_t *);

static raw_counts counts;

static int is_image(const struct halide_buffer_t *b) { return b->dimensions == 3 && b->host; }

static void add(uint64_t *c) { __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); }

int __wrap_halide_copy_to_device(void *uc, struct halide_buffer_t *b,
                                 const struct halide_device_interface_t *iface) {
    int dirty = (b->flags & halide_buffer_flag_host_dirty) != 0;
    uint64_t device = b->device;
    int rc = __real_halide_copy_to_device(uc, b, iface);
    if (rc == 0 && is_image(b)) {
        if (dirty && !(b->flags & halide_buffer_flag_host_dirty)) add(&counts.uploads);
        if (!device && b->device) add(&counts.allocations);
    }
    return rc;
}

int __wrap_halide_device_malloc(void *uc, struct halide_buffer_t *b,
                                const struct halide_device_interface_t *iface) {
    uint64_t device = b->device;
    int rc = __real_halide_device_malloc(uc, b, iface);
    if (rc == 0 && is_image(b) && !device && b->device) add(&counts.allocations);
    return rc;
}

int __wrap_halide_copy_to_host(void *uc, struct halide_buffer_t *b) {
    int dirty = (b->flags & halide_buffer_flag_device_dirty) != 0;
    int rc = __real_halide_copy_to_host(uc, b);
    if (rc == 0 && is_image(b) && dirty && !(b->flags & halide_buffer_flag_device_dirty))
        add(&counts.downloads);
    return rc;
}

int __wrap_halide_device_free(void *uc, struct halide_buffer_t *b) {
    uint64_t device = b->device;
    int rc = __real_halide_device_free(uc, b);
    if (rc == 0 && is_image(b) && device && !b->device) add(&counts.frees);
    return rc;
}

__attribute__((visibility("default"))) void lumen_test_raw_counts(raw_counts *out) {
    out->uploads = __atomic_load_n(&counts.uploads, __ATOMIC_RELAXED);
    out->downloads = __atomic_load_n(&counts.downloads, __ATOMIC_RELAXED);
    out->allocations = __atomic_load_n(&counts.allocations, __ATOMIC_RELAXED);
    out->frees = __atomic_load_n(&counts.frees, __ATOMIC_RELAXED);
}
