/* Runtime-level transfer counts of the test-only wrapped liblumen (raw_counts.c). */
#ifndef LUMEN_TESTS_RAW_COUNTS_H
#define LUMEN_TESTS_RAW_COUNTS_H
#include <stdint.h>
typedef struct {
    uint64_t uploads, downloads, allocations, frees;
} raw_counts;
void lumen_test_raw_counts(raw_counts *out);
#endif
